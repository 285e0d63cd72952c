"""Do wrong readings come from passages that lack a name the question writes?

The newcomer's "Henry VIII" for the first Tudor king was read from a lead that never says "Tudor". For every
recorded question decided by the shipped score (``ReaderRun.replay``), each reading is counted right or wrong by whether
a passage it was read from holds every name of its question: the words of its capitalised words after the first (less
the answer's own), a passage's word holding a name when it starts with all but the name's last two letters (at least
four; a word of three letters or fewer only whole).

    PYTHONPATH=. python docs/experiments/best-first/names_held.py docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/test
"""

import argparse
import re
from collections import Counter
from pathlib import Path

from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader import LlmReader, ReaderRun
from ambigdemo.stages.reader.verifier import Verifier
from ambigdemo.stages.reader.verify import titled
from ambigdemo.text import normalize_answer
from ambigdemo.types import Passage

from in_domain import recorded

CAPITALISED = re.compile(r"\b[A-Z][\w'’-]*")


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", normalize_answer(text)))


def names_held(question: str, answer: str, passage: Passage) -> bool:
    rest = question.split(None, 1)[1] if len(question.split(None, 1)) > 1 else ""
    named = {w for name in CAPITALISED.findall(re.sub(r"['’]s\b", "", rest)) for w in words(name)} - words(answer)
    held = words(titled(passage))
    return all(any(h.startswith(w[: max(4, len(w) - 2)]) for h in held) if len(w) > 3 else w in held for w in named)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args()
    score = Verifier.load(VERIFIERS["1.5b"])
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0)
    nlp, counts, lacking = load_spacy(), Counter(), []
    for folder in args.dirs:
        for path in sorted(folder.glob("*.jsonl")):
            for r in recorded(path, nlp):
                run = ReaderRun.replay(reader, r)
                passages = {p["id"]: Passage(**p) for p in r["passages"]}
                for a in run.found:
                    held = any(names_held(r["question"], a.text, passages[i]) for i in a.passages if i in passages)
                    ok = any(right(a.text, g) for g in r["gold"])
                    counts[(held, ok)] += 1
                    if not held:
                        lacking.append(f"    {'right' if ok else 'WRONG'} | {r['question']} | {a.text} | {a.passages[0]}")
    print("readings whose passage holds every name of the question:", counts[(True, True)], "right,", counts[(True, False)], "wrong")
    print("readings whose passage lacks one:", counts[(False, True)], "right,", counts[(False, False)], "wrong")
    print("\n".join(lacking))


if __name__ == "__main__":
    main()
