"""Per question of a readings set: the answers the LLM reader verifies and those the rewrite stage shows,
each labelled right or wrong against the set's gold readings, with ``further`` passages read after the
gate at ``coverage`` (docs/experiments/further-passages.md).

    PYTHONPATH=. python docs/results/reader-further/hidden.py assets/readings-dev.json FURTHER COVERAGE
"""

import json
import sys
from collections import Counter
from dataclasses import replace

from ambigdemo.config import Config
from ambigdemo.evaluation.readings import right
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.reader import MalformedOutput

pipeline = Pipeline.load(Config.from_env())
reader = replace(pipeline.reader, further_passages=int(sys.argv[2]), further_coverage=float(sys.argv[3]))
counts = Counter()
for item in json.load(open(sys.argv[1], encoding="utf-8")):
    question = item["question"]
    reading = reader.read(question, pipeline.retriever.search(question, pipeline.config.top_k))
    try:
        for _ in reading.answers():
            pass
    except MalformedOutput:
        print(f"{question} | no reply readable: the app answers with the heuristic reader")
        continue
    shown = [i.answer for i in pipeline.rewriter.rewrite(question, list(reading.found), propose=reading.propose_rewrite)]
    label = lambda text: "right" if any(right(text, aliases) for aliases in item["answers"]) else "wrong"  # noqa: E731
    counts.update(f"verified {label(a.text)}" for a in reading.found)
    counts.update(f"shown {label(t)}" for t in shown)
    hidden = [f"{a.text} ({label(a.text)})" for a in reading.found if a.text not in shown]
    if hidden:
        print(f"{question} | shown: {'; '.join(shown)} | hidden: {'; '.join(hidden)}")
print(dict(sorted(counts.items())))
