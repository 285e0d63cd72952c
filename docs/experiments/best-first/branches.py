"""The model's less likely replies read for "also" only (``also_branches``), on recorded sets.

``prune IN_DIR OUT_DIR``: each record of IN_DIR without the less likely replies of the passages read for "also" only
(a record made when those were read too is then what today's code reads: only the readings' passages give them);
with ``--all`` without any less likely reply (what the previous release read).
``count RECORD.jsonl ...``: the less likely replies recorded, by whether their passage gave a reply, whether they were
scored or rejected, whether they name a needed answer, and whether their passage was read for "also" only.

    PYTHONPATH=. python docs/experiments/best-first/branches.py prune /tmp/rec /tmp/rec-pruned
    PYTHONPATH=. python docs/experiments/best-first/branches.py count /tmp/rec/readings-heldout-23.jsonl
"""

import json
import sys
from collections import Counter
from pathlib import Path

from ambigdemo.evaluation.readings import right


def branch(candidate: dict) -> bool:
    return not (candidate["likeliest"] or candidate["sibling"] or candidate["title"])


def prune(src: Path, out: Path, every: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(src.glob("*.jsonl")):
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            later = set(record["also_only"])
            record["candidates"] = [c for c in record["candidates"] if not (branch(c) and (every or c["passage"] in later))]
            lines.append(json.dumps(record, ensure_ascii=False))
        (out / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def count(paths: list[Path]) -> None:
    counts: Counter[tuple[str, ...]] = Counter()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for c in filter(branch, record["candidates"]):
                replied = any(x["likeliest"] and x["passage"] == c["passage"] for x in record["candidates"])
                named = any(right(c["shown"] or c["text"], g) for g in record["gold"])
                counts[("passage replied" if replied else "passage said none", "scored" if c["own"] else "rejected",
                        "needed" if named else "not needed", "also-only passage" if c["passage"] in record["also_only"] else "read")] += 1
    for key, n in sorted(counts.items()):
        print(f"{n:5d}  {' | '.join(key)}")


if __name__ == "__main__":
    if sys.argv[1] == "prune":
        prune(Path(sys.argv[2]), Path(sys.argv[3]), "--all" in sys.argv[4:])
    else:
        count([Path(p) for p in sys.argv[2:]])
