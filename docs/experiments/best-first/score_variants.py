"""Copies of the shipped 1.5B score with other reading bars, one file per (threshold, more), for ``in_domain.py --scores``.

    PYTHONPATH=. python docs/experiments/best-first/score_variants.py /tmp/bars --threshold 0.6 0.65 0.7 --more 0.7 0.8 0.9
"""

import argparse
import json
from pathlib import Path

from ambigdemo.config import VERIFIERS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--threshold", nargs="+", type=float, required=True, help="the first reading's bars")
    ap.add_argument("--more", nargs="+", type=float, required=True, help="each further reading's bars")
    args = ap.parse_args()
    shipped = json.loads(Path(VERIFIERS["1.5b"]).read_text(encoding="utf-8"))
    args.out.mkdir(parents=True, exist_ok=True)
    for threshold in args.threshold:
        for more in args.more:
            path = args.out / f"threshold-{threshold}-more-{more}.json"
            path.write_text(json.dumps({**shipped, "threshold": threshold, "more": more}), encoding="utf-8")
            print(path)


if __name__ == "__main__":
    main()
