"""What a perfect verifier could make of the reader's candidates on a readings set: every right candidate
kept, every wrong one dropped (no rewrite stage), over the passages the shipped gate reads (within 90%
of the best score, above 0.45, at most 4) and over all top-k passages: needed readings, questions fully
right, multi-reading questions complete.

    python docs/results/reader-verifier/ceiling.py assets/readings-dev.json docs/results/reader-verifier/dev.jsonl
"""
import json
import sys

from ambigdemo.config import Config
from ambigdemo.evaluation.readings import right

SHIPPED = Config()


def gated(candidate: dict, top: float) -> bool:
    """The candidate's passage is one the shipped gate reads (``stages/reader/recall.relevant`` with the
    configured relevance, least score and passage count), ``top`` being the question's best score."""
    return (candidate["rank"] < SHIPPED.reader_passages
            and candidate["score"] >= max(SHIPPED.reader_relevance * top, SHIPPED.reader_min_score))


if __name__ == "__main__":
    items = {it["question"]: it for it in json.load(open(sys.argv[1], encoding="utf-8"))}
    probe = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
    for name, keep in (("gated passages", gated), ("all passages", lambda c, top: True)):
        needed = gold = full = multi = multi_full = 0
        for q in probe:
            readings = items[q["question"]]["answers"]
            top = q["top"]
            kept = [c["answer"] for c in q["candidates"] if c["right"] and keep(c, top)]
            found = sum(any(right(a, g) for a in kept) for g in readings)
            needed, gold = needed + found, gold + len(readings)
            full += found == len(readings) and (bool(kept) or not readings)
            multi += len(readings) >= 2
            multi_full += len(readings) >= 2 and found == len(readings)
        print(f"{name}: needed {needed} / {gold}, fully right {full} / {len(probe)}, multi complete {multi_full} / {multi}")
