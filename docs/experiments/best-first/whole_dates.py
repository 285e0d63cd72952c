"""The nineteenth pass's date shown whole, measured on the records: would the readings be as right without it?

A date the model replies without its year ("February 4") is shown as its passage writes it whole ("February 4, 1899",
``select.with_year``). Every recorded set (``checks/`` and ``sets/`` together, and each set of ``test/``) is replayed under the shipped score
(``ReaderRun.replay``, no model call) with each candidate's shown form computed again, once without ``with_year`` (the
eighteenth pass) and once with it (today). The score's features are not the shown form's, so only the shown answers
(and what they count as) can move.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/whole_dates.py
"""

from pathlib import Path

import ambigdemo.stages.reader.select as select
from ambigdemo.building.train_verifier import replayed
from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import score_item
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader import LlmReader
from ambigdemo.stages.reader.verifier import Verifier
from in_domain import line, recorded

RECORDS = Path("docs/results/verifier-1.5b")
TODAY = select.with_year


def rows(score: Verifier, found: list[dict], nlp) -> list[dict]:
    """``score_item``'s row for each recorded question, its shown forms computed again (``nlp`` for ``shown_as``)."""
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0, nlp=nlp)
    unshown = ({**r, "candidates": [{**c, "shown": None} for c in r["candidates"]]} for r in found)
    return [score_item({"question": r["question"], "answers": r["gold"]}, *replayed(reader, r)) for r in unshown]


def main() -> None:
    score, nlp = Verifier.load(VERIFIERS["1.5b"]), load_spacy()
    groups = [(folder, sorted((RECORDS / folder).glob("*.jsonl"))) for folder in ("checks", "sets")]
    groups += [(p.stem, [p]) for p in sorted((RECORDS / "test").glob("*.jsonl"))]
    for name, paths in groups:
        found = [r for p in paths for r in recorded(p, nlp)]
        select.with_year = lambda answer, passage, nlp: answer
        print(line(f"{name}, without with_year", rows(score, found, nlp)), flush=True)
        select.with_year = TODAY
        print(line(f"{name}, a date shown whole", rows(score, found, nlp)), flush=True)


if __name__ == "__main__":
    main()
