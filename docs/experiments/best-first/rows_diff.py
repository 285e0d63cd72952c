"""Each question whose readings or "also" differ between two ``trees.py --rows`` files, with what each shows.

    python docs/experiments/best-first/rows_diff.py BEFORE.jsonl AFTER.jsonl
"""

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    args = ap.parse_args()
    before, after = ({r["question"]: r for r in map(json.loads, p.read_text(encoding="utf-8").splitlines())}
                     for p in (args.before, args.after))
    for question, row in after.items():
        old = before[question]
        if (old["answers"], old["also"]) != (row["answers"], row["also"]):
            print(f"{row['set']}: {question}")
            for name, r in (("before", old), ("after", row)):
                print(f"  {name:6} readings {r['answers']} also {r['also']} needed {r['found']} ({r['found_with_also']} with also) wrong {r['wrong']}")


if __name__ == "__main__":
    main()
