"""Are the needed answers a read passage names, but the model never replied, among its less likely replies?

For each needed answer of a recorded set that stops at "named in a passage read, not replied" (``losses.stage`` under
the shipped score), each read passage that names it is read again and its alternatives taken (``Context.alternatives``:
the greedy replies that start with the 2nd to N-th likeliest first token); the first one that names the answer is
printed with its rank and probability, then a summary line.

    AMBIGDEMO_THREADS=1 AMBIGDEMO_VERIFIER=on AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/branch_probe.py RECORD.jsonl 5
"""

import json
import sys
from pathlib import Path

from ambigdemo.building.train_verifier import replayed
from ambigdemo.config import VERIFIERS, Config
from ambigdemo.evaluation.readings import right
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader import LlmReader
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.reader.verifier import Verifier
from ambigdemo.text import normalize_answer
from ambigdemo.types import Passage
from in_domain import recorded
from losses import stage


def main(path: Path, n: int) -> None:
    pipeline = Pipeline.load(Config.from_env())
    reader, nlp = pipeline.reader, pipeline.heuristic.nlp
    score = Verifier.load(VERIFIERS["1.5b"])
    replayer = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, nlp=nlp)
    hits = []
    for record in recorded(path, nlp):
        shown, also = replayed(replayer, record)
        question = Question.of(record["question"])
        for gold in record["gold"]:
            if stage(record, gold, shown, also) != "named in a passage read, not replied":
                continue
            hit = None
            for p in record["passages"]:
                if not any(normalize_answer(name) in normalize_answer(p["text"]) for name in gold):
                    continue
                start = reader.start(question.text, Passage(**p))
                got = [(parse_reply(text, names=question.asks_person), round(prob, 3))
                       for text, prob, _ in start.alternatives(n, reader.max_answer_tokens, stop=("\n",))]
                hit = next(((k + 2, prob, p["title"]) for k, (a, prob) in enumerate(got) if a and right(a, gold)), None)
                print(json.dumps({"q": record["question"], "gold": gold[0], "passage": p["title"], "alts": got, "hit": hit},
                                 ensure_ascii=False), flush=True)
                if hit:
                    break
            hits.append(hit)
    print("probe", path, "not replied", len(hits), "found among alternatives", sum(h is not None for h in hits),
          sorted(h[:2] for h in hits if h))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 5)
