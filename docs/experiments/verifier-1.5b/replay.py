"""Lab: the readings a verifier would show on dev, replayed from the candidates train-verifier collected.

Usage: python replay.py RUN VERIFIER.json SET.json [SETTINGS]. SETTINGS: "passages,relevance,branch;..."
(default: the six below). RUN/dev.jsonl holds every grounded candidate of the wide
reading (8 passages, the less likely replies of the first 2), in reading order. For each reading (passages
read, relevance gate, passages whose less likely replies are read) and pair of thresholds, the candidates
that reading would reply are judged in order as the app's ReaderRun.take judges them (position recounted, the
further threshold once another answer is found), kept ones are added as select shows them, and the answers
are scored as bench --readings scores them. A lab shortcut for choosing what the dev funnel then runs.
"""
import json
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.config import Config
from ambigdemo.evaluation import readings
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import records
from ambigdemo.stages.answers import same_answer
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.recall import relevant
from ambigdemo.stages.reader.select import add, shown_as
from ambigdemo.stages.reader.verifier import Clue, Verifier, features, position
from ambigdemo.text import normalize_answer

run, verifier, items = Path(sys.argv[1]), Verifier.load(Path(sys.argv[2])), json.loads(Path(sys.argv[3]).read_text())
pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
retriever, nlp = pipeline.retriever, pipeline.reader.nlp
gold = {i["question"]: i for i in items}
listed = json.loads((run / "listwise.json").read_text(encoding="utf-8")) if (run / "listwise.json").exists() else {}

questions = []
for record in records(run / "dev.jsonl"):
    question = Question.of(record["question"])
    passages = retriever.search(question.text, 8)
    by_id = {p.id: p for p in passages}
    for c in record["candidates"]:  # every feature but position, which depends on the reading: computed once
        c["features"] = features(Clue(question, c["text"], by_id[c["passage"]], passages, c["logp"], c["likeliest"]), nlp)
        if "yes" in c:  # the model's own checks, where collected (verifier-1.5b-checks.md)
            c["features"]["yes"] = c["yes"]
        if listed:
            c["features"]["listwise"] = listed.get(record["question"], {}).get(normalize_answer(c["text"]), 0.0)
    questions.append((record["question"], question, passages, record["candidates"]))


def shown(question, passages, candidates, v: Verifier) -> list[str]:
    read = relevant(passages, v.relevance, 0.45, v.passages)
    rank = {p.id: i for i, p in enumerate(read)}
    by_id = {p.id: p for p in passages}
    heard = [c for c in candidates if c["passage"] in rank and (c["likeliest"] or rank[c["passage"]] < v.branch_passages)]
    found, earlier = [], []
    for c in heard:
        named = {**c["features"], "position": float(position(c["text"], earlier))}
        earlier.append(c["text"])
        p = v.p(named)
        others = [a for a in found if not same_answer(normalize_answer(a.text), normalize_answer(c["text"]))]
        if p >= v.needs(len(others)):
            add(found, shown_as(question, c["text"], by_id[c["passage"]], nlp), by_id[c["passage"]])
        if len(found) >= 5:
            break
    return [a.text for a in found]


print("| passages | relevance | branch | threshold | more | needed | wrong | fully right | multi complete | null right |")
print("|---|---|---|---|---|---|---|---|---|---|")
readings_tried = [(4, 0.9, 0), (4, 0.9, 1), (4, 0.0, 0), (4, 0.0, 1), (2, 0.0, 0), (2, 0.0, 1)]
if len(sys.argv) > 4:
    readings_tried = [(int(n), float(r), int(b)) for n, r, b in (t.split(",") for t in sys.argv[4].split(";"))]
for n, r, b in readings_tried:
    for t in (0.2, 0.3, 0.4, 0.5, 0.6):
        for m in (0.5, 0.6, 0.7, 0.8):
            if m < t:
                continue
            v = replace(verifier, passages=n, relevance=r, branch_passages=b, threshold=t, more=m)
            s = readings.summarize([readings.score_item(gold[text], shown(q, ps, cs, v)) for text, q, ps, cs in questions], [])
            print(f"| {n} | {r} | {b} | {t} | {m} | {s['needed']} | {s['wrong']} | {s['fully_right']} | {s['multi_complete']} | {s['null_right']} |")
