"""Print leads drawn at random whose title no readings set names, each with its first sentence matching a pattern.

The drafts of a new held-out set are written from these (then checked with ``check_new_set.py``):

    PYTHONPATH=. python docs/experiments/best-first/draw_leads.py '\\b(largest|first|oldest)\\b' --seed 2101 -n 70
"""

import argparse
import json
import random
import re
from pathlib import Path

from ambigdemo.corpus import WIKI_FILE, WIKI_PACKAGE, package_file

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pattern")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-n", type=int, default=70)
    args = ap.parse_args()
    leads = json.loads(Path(package_file(WIKI_PACKAGE, WIKI_FILE)).read_text(encoding="utf-8"))
    asked = "".join(p.read_text(encoding="utf-8").lower() for p in sorted((ROOT / "assets").glob("*.json")))
    pattern = re.compile(args.pattern, re.I)
    keys = list(leads)
    random.Random(args.seed).shuffle(keys)
    shown = 0
    for key in keys:
        title = leads[key]["title"]
        if title.lower() in asked:
            continue
        hits = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", leads[key]["extract"]) if pattern.search(s)]
        if hits:
            print(f"## {title}: {hits[0][:260]}")
            shown += 1
            if shown >= args.n:
                break


if __name__ == "__main__":
    main()
