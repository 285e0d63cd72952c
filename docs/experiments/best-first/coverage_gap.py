"""Does the score choose better when it knows how far a candidate's sentence falls short of the best-covering
candidate's (``coverage_gap``: its coverage of the question's words less the question's best)?

The recorded sets the score is fitted on (``sets/``, the ninth to seventeenth, each left out in turn) and the two older
dev sets (``checks/``, fitted on none), each related as today's code relates it (``current``), are replayed
(``ReaderRun.replay``, no model call); logistic fits on the other sets alone (no AmbigNQ train, no trees: a comparison
of features, not the shipped fit), with the shipped features and with ``coverage_gap`` added, at three first-reading
bars. trees.py makes the full comparison (AmbigNQ train, the trees).

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/coverage_gap.py
"""

from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import recorded_rows
from ambigdemo.config import VERIFIERS
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader.verifier import Verifier, fit
from in_domain import line, recorded, replay_rows

RECORDS = Path("docs/results/verifier-1.5b")
KEPT = ("also", "passages", "relevance", "branch_passages", "branch_min", "also_passages", "also_further", "siblings",
        "listed", "titles", "also_titles", "lexical")
BASE = ("score", "ratio", "rank", "likeliest", "logp", "support", "type_fit", "untyped", "subject", "coverage",
        "outranked", "other_year", "words", "numeric", "position", "lift", "rank_other", "sibling", "title", "of_other",
        "clash")  # the sixteenth pass's score's features


def main() -> None:
    shipped, nlp = Verifier.load(VERIFIERS["1.5b"]), load_spacy()
    sets = {p.stem: recorded(p, nlp) for p in sorted((RECORDS / "sets").glob("*.jsonl"))}
    checks = [r for p in sorted((RECORDS / "checks").glob("*.jsonl")) for r in recorded(p, nlp)]
    rows = {name: recorded_rows(found) for name, found in sets.items()}
    for extra in ((), ("coverage_gap",)):
        names = BASE + extra
        for first in (0.65, 0.6, 0.7):
            bars = {**{k: getattr(shipped, k) for k in KEPT}, "threshold": first, "more": 0.9}
            out = []
            for held in sets:
                x = [r for n in sets if n != held for r in rows[n][0]]
                y = [label for n in sets if n != held for label in rows[n][1]]
                out += replay_rows(replace(fit(x, y, names=names), **bars), sets[held])
            x = [r for n in sets for r in rows[n][0]]
            y = [label for n in sets for label in rows[n][1]]
            label = f"{'+coverage_gap' if extra else 'shipped features'} {first}:0.9"
            print(line(f"{label}, sets left out", out))
            print(line(f"{label}, older dev sets", replay_rows(replace(fit(x, y, names=names), **bars), checks)))


if __name__ == "__main__":
    main()
