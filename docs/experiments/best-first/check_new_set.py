"""Is a draft readings set new, and does the corpus hold its answers?

For each drafted question: the question on record nearest to it (the share of content words in common, over every
question-shaped string in the repository's JSON, Python and Markdown files: readings sets, AmbigNQ, NQ-open, tests,
docs), how many Wikipedia leads state each of its answers, and which earlier readings questions have one of its answers
as gold. A row marked ``near`` (half the words or more in common) or sharing gold is read by hand: dropped when it asks
the same thing, kept when it asks another thing of the same subject.

    PYTHONPATH=. python docs/experiments/best-first/check_new_set.py DRAFT.json [--exclude assets/readings-heldout-16.json]
"""

import argparse
import json
import re
import unicodedata
from pathlib import Path

from ambigdemo.corpus import WIKI_FILE, WIKI_PACKAGE, package_file

ROOT = Path(__file__).resolve().parents[3]
STOP = set("the a an of in on at to is was were are who what when where which how many much did does do by for and or with "
           "from as that this it its be been has have had first largest".split())


def norm(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def words(question: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", norm(question)) if w not in STOP)


def on_record(exclude: set[Path]) -> set[str]:
    """Every question-shaped string in the repository's text files but ``exclude``."""
    found = set()
    for path in ROOT.rglob("*"):
        if (not path.is_file() or path.suffix not in {".json", ".jsonl", ".py", ".md", ".txt"} or path.resolve() in exclude
                or any(part in {".git", "models", "test-artifacts", "data"} for part in path.relative_to(ROOT).parts)):
            continue
        found.update(re.findall(r"[A-Z][^\"\n?]{8,200}\?", path.read_text(encoding="utf-8", errors="ignore")))
    return found


def gold_of(exclude: set[Path]) -> dict[str, list[str]]:
    """Each gold answer of the readings sets in ``assets/`` (normalized) -> the questions it answers."""
    gold: dict[str, list[str]] = {}
    for path in sorted((ROOT / "assets").glob("readings-*.json")):
        if path.resolve() in exclude:
            continue
        for item in json.loads(path.read_text(encoding="utf-8")):
            for names in item["answers"]:
                for name in names:
                    gold.setdefault(norm(name), []).append(item["question"])
    return gold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("draft", type=Path)
    ap.add_argument("--exclude", nargs="*", type=Path, default=[], help="files not counted as on record (the draft's own copy)")
    args = ap.parse_args()
    exclude = {p.resolve() for p in [args.draft, *args.exclude]}
    asked = [(words(q), q) for q in on_record(exclude)]
    gold = gold_of(exclude)
    leads = [norm(v["extract"]) for v in json.loads(package_file(WIKI_PACKAGE, WIKI_FILE).read_text(encoding="utf-8")).values()]
    print(f"{len(asked)} questions on record, {len(leads)} leads")
    for item in json.loads(args.draft.read_text(encoding="utf-8")):
        own = words(item["question"])
        share, nearest = max(((len(own & w) / len(own | w), q) for w, q in asked if w), default=(0.0, ""))
        stated = []
        for names in item["answers"]:
            pattern = re.compile("|".join(r"\b" + re.escape(norm(n)) + r"\b" for n in names))
            stated.append(f"{names[0]}: {sum(bool(pattern.search(lead)) for lead in leads)} leads")
        shared = sorted({q for names in item["answers"] for n in names for q in gold.get(norm(n), [])})
        print(f"{'near' if share >= 0.5 else '    '} {share:.2f} {item['question']} | {nearest[:70]} | {'; '.join(stated) or 'no answer'}"
              + (f" | gold of: {shared[:3]}" if shared else ""))


if __name__ == "__main__":
    main()
