"""A lead, not shipped: does the score choose better when it knows how far a candidate's sentence falls short of the
best-covering candidate's (``coverage_gap``: its coverage of the question's words less the question's best)?

The recorded sets (the ninth to seventeenth, each left out in turn) and the two older dev sets (``checks/``, fitted on
none) are replayed (``ReaderRun.replay``, no model call) with ``coverage_gap`` computed beside the other gaps
(``verifier.RELATIVE``); logistic fits on the other sets alone (no AmbigNQ train, no trees: a comparison of features,
not the shipped fit), with the shipped features and with ``coverage_gap`` added, at three first-reading bars.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/coverage_gap.py
"""

from dataclasses import replace
from pathlib import Path

import ambigdemo.stages.reader.verifier as verifier
from ambigdemo.building.train_verifier import records
from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import right
from ambigdemo.stages.reader import LlmReader, ReaderRun
from in_domain import line, replay_rows

RECORDS = Path("docs/results/verifier-1.5b")
KEPT = ("also", "passages", "relevance", "branch_passages", "branch_min", "also_passages", "also_further", "siblings",
        "listed", "titles", "also_titles", "lexical")


def labelled_rows(reader: LlmReader, found: list[dict]) -> tuple[list[dict], list[int]]:
    """Every scored candidate's features as a replay relates them, each labelled right when it names a gold reading."""
    rows, labels = [], []
    for record in found:
        run = ReaderRun.replay(reader, record)
        for c in run.candidates:
            if c.features:
                shown = run._shown.get((c.passage, c.text)) or c.text
                rows.append(c.features)
                labels.append(int(any(right(shown, g) for g in record["gold"])))
    return rows, labels


def main() -> None:
    verifier.RELATIVE["coverage_gap"] = "coverage"
    shipped = verifier.Verifier.load(VERIFIERS["1.5b"])
    sets = {p.stem: records(p) for folder in ("sets", "test") for p in sorted((RECORDS / folder).glob("*.jsonl"))}
    checks = [r for p in sorted((RECORDS / "checks").glob("*.jsonl")) for r in records(p)]
    probe = replace(shipped, trees="", blend=0.0)
    reader = LlmReader(None, verifier=probe, also_titles=probe.also_titles < 1.0)
    rows = {name: labelled_rows(reader, found) for name, found in sets.items()}
    for extra in ((), ("coverage_gap",)):
        names = tuple(shipped.names) + extra
        for first in (0.65, 0.6, 0.7):
            out = []
            for held in sets:
                x = [r for n in sets if n != held for r in rows[n][0]]
                y = [label for n in sets if n != held for label in rows[n][1]]
                fitted = replace(verifier.fit(x, y, names=names), **{k: getattr(shipped, k) for k in KEPT}, threshold=first, more=0.9)
                out += replay_rows(fitted, sets[held])
            x = [r for n in sets for r in rows[n][0]]
            y = [label for n in sets for label in rows[n][1]]
            fitted = replace(verifier.fit(x, y, names=names), **{k: getattr(shipped, k) for k in KEPT}, threshold=first, more=0.9)
            label = f"{'+coverage_gap' if extra else 'shipped features'} {first}:0.9"
            print(line(f"{label}, sets left out", out))
            print(line(f"{label}, older dev sets", replay_rows(fitted, checks)))


if __name__ == "__main__":
    main()
