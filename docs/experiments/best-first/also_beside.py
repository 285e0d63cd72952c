"""How right is "also" beside a reading, and what would a bar for it there cost?

Replays recorded sets under the shipped 1.5B score with no bar beside a reading (``also_beside`` 0; ``ReaderRun.replay``,
no model call). Prints "also" precision (an answer naming a gold reading) in bands of p, beside a reading and with none
(answerable or not), over every record but the sets ``--leave-out`` names; then, for each bar beside a reading, over
all the records and per set of ``--sets``: needed answers in the readings, in the readings or "also", and the "also"
answers listed (and right), each "also" answer's bar being the larger of its own and this one.

    PYTHONPATH=. python docs/experiments/best-first/also_beside.py docs/results/verifier-1.5b/test/*.jsonl \\
        docs/results/verifier-1.5b/sets/*.jsonl --leave-out readings-heldout-24
"""

import argparse
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader import LlmReader, ReaderRun
from ambigdemo.stages.reader.verifier import Verifier

from in_domain import recorded

EDGES = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.7)
BARS = (0.0, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)


def replayed(paths: list[Path]) -> list[dict]:
    """Each recorded question's set, gold, readings and "also" answers (with p), under no bar beside a reading."""
    score = replace(Verifier.load(VERIFIERS["1.5b"]), also_beside=0.0)
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0)
    nlp, rows = load_spacy(), []
    for path in paths:
        for record in recorded(path, nlp):
            run = ReaderRun.replay(reader, record)
            rows.append({"set": path.stem, "gold": record["gold"], "shown": [a.text for a in run.found],
                         "also": [(a.answer, a.p) for a in run.also]})
    return rows


def counts(rows: list[dict], bar: float) -> list[int]:
    """Needed answers, in the readings, in the readings or "also", "also" answers listed and right, questions."""
    out = [0] * 6
    for r in rows:
        also = [a for a, p in r["also"] if not (r["shown"] and p < bar)]
        out[3] += len(also)
        out[4] += sum(any(right(a, g) for g in r["gold"]) for a in also)
        out[5] += 1
        for g in r["gold"]:
            shown = any(right(a, g) for a in r["shown"])
            out[0], out[1], out[2] = out[0] + 1, out[1] + shown, out[2] + (shown or any(right(a, g) for a in also))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--leave-out", nargs="*", default=[], help="sets (record names) the precision bands leave out")
    ap.add_argument("--sets", nargs="*", default=["readings-heldout-22", "readings-heldout-23", "readings-heldout-24"])
    args = ap.parse_args()
    rows = replayed(args.records)
    bands: dict[tuple[str, float], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r["set"] in args.leave_out:
            continue
        kind = "beside a reading" if r["shown"] else "no reading, answerable" if r["gold"] else "no reading, unanswerable"
        for a, p in r["also"]:
            band = bands[(kind, max(e for e in EDGES if e <= p))]
            band[0] += any(right(a, g) for g in r["gold"])
            band[1] += 1
    print(f"\"also\" precision by p, every record but {', '.join(args.leave_out) or 'none'}")
    for (kind, low), (hits, n) in sorted(bands.items()):
        high = next((e for e in EDGES if e > low), 1.0)
        print(f"  {kind:26} {low:.2f}-{high:.2f}  {hits:4} right of {n:4}  ({hits / n:.0%})")
    print("\nbar beside a reading: needed / in the readings / in the readings or \"also\" / \"also\" listed (right) / a question")
    for bar in BARS:
        parts = [("all", rows)] + [(s, [r for r in rows if r["set"] == s]) for s in args.sets]
        line = []
        for name, part in parts:
            n, shown, either, listed, hits, qs = counts(part, bar)
            line.append(f"{name}: {n} / {shown} / {either} / {listed} ({hits}) / {listed / max(qs, 1):.2f}")
        print(f"  {bar:.2f}  " + "  |  ".join(line))


if __name__ == "__main__":
    main()
