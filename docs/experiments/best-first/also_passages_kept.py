"""What the "also" tier loses when fewer further passages are read for it: each recorded question replayed under the
shipped score with its first ``k`` "also"-only passages kept (2, as shipped; 1; 0), summed as ``bench --readings``
prints it (the readings cannot change: what is read for "also" only never moves one).

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/also_passages_kept.py \\
        docs/results/verifier-1.5b/checks docs/results/verifier-1.5b/sets
"""

import sys
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.config import VERIFIERS
from ambigdemo.stages.reader.verifier import Verifier
from in_domain import line, replay_rows


def keeping(record: dict, k: int) -> dict:
    """``record`` as if only its first ``k`` "also"-only passages (in the order they were read) had been read."""
    also_only = set(record["also_only"])
    dropped = set([p["id"] for p in record["passages"] if p["id"] in also_only][k:])
    return {**record, "passages": [p for p in record["passages"] if p["id"] not in dropped],
            "candidates": [c for c in record["candidates"] if c["passage"] not in dropped],
            "also_only": [i for i in record["also_only"] if i not in dropped]}


def main(folders: list[Path]) -> None:
    score = Verifier.load(VERIFIERS["1.5b"])
    totals: dict[int, list[int]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")):
            found = records(path)
            for k in (2, 1, 0):
                rows = replay_rows(score, [keeping(r, k) for r in found])
                print(line(f"{path.stem}, {k} kept", rows))
                total = totals.setdefault(k, [0, 0, 0])
                total[0] += sum(r["found_with_also"] for r in rows)
                total[1] += sum(r["gold"] for r in rows)
                total[2] += sum(len(r["also"]) for r in rows)
    for k, (found, gold, also) in totals.items():
        print(f"{k} kept: {found} of {gold} needed in the readings or 'also', {also} 'also' answers")


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]])
