"""What the score can trade: needed readings against wrong ones, at each bar a reading must reach.

Replays the decisions ``listed.py record`` kept (the 1.5B's score, its candidates and their p as the recorded code
computed them) with the first reading's bar (``Verifier.threshold``) and a further reading's (``Verifier.more``)
set to each pair given, and prints each set's readings summary as ``bench --readings`` does. Nothing is asked again,
so the sweep takes seconds; what it cannot move is an answer no candidate names (the funnel's stages before
"dropped by verify").

    PYTHONPATH=. python docs/experiments/best-first/frontier.py 0.3:0.8,0.5:0.8,0.7:0.9 \
        docs/results/listed/eighth-pass/heldout-8.jsonl
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import summarize
from ambigdemo.stages.reader.verifier import Verifier

sys.path.insert(0, str(Path(__file__).parent))
from listed import scored  # noqa: E402

SHOWN = ("needed", "wrong", "wrong_per_5_questions", "fully_right", "multi_complete", "needed_with_also", "null_right")


def sweep(bars: list[tuple[float, float]], files: list[Path]) -> None:
    """Each set's summary at each pair of bars, then all the sets' together."""
    score = Verifier.load(VERIFIERS["1.5b"])
    sets = {path.stem: [json.loads(line) for line in path.open(encoding="utf-8")] for path in files}
    if len(sets) > 1:
        sets["all"] = [rec for recs in list(sets.values()) for rec in recs]
    for name, recs in sets.items():
        for threshold, more in bars:
            verifier = replace(score, threshold=threshold, more=more)
            rows = [scored(r, verifier) for r in recs]
            summary = summarize(rows, [{}] * len(rows))
            print(f"{name:12} {threshold}:{more}  " + "  ".join(f"{k} {summary[k]}" for k in SHOWN))


if __name__ == "__main__":
    pairs = [tuple(float(v) for v in pair.split(":")) for pair in sys.argv[1].split(",")]
    sweep(pairs, [Path(a) for a in sys.argv[2:]])
