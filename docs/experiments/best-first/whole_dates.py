"""A lead for the next pass, not shipped: would the readings be righter if a date the model replies without its year
("February 4") were shown as its passage writes it whole ("February 4, 1899")?

Every recorded set (``checks/``, ``sets/``, and ``test/``: the eighteenth set, measured already) is replayed under the
shipped score (``ReaderRun.replay``, no model call) with each candidate's shown form computed again by today's
``select.shown_as`` (a check that it gives back what was recorded, but for the seventeenth pass's splitter), then by
the lead: when the answer opens a spaCy DATE entity of a sentence stating it, and the rest of that entity is a year
(",? NNNN"), the entity is shown. The score's features are not the shown form's, so only the shown answers (and what
they count as) can move.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/whole_dates.py
"""

import re
from pathlib import Path

import ambigdemo.stages.reader as reader_module
from ambigdemo.building.train_verifier import replayed
from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import score_item
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader import LlmReader
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verify import stating
from ambigdemo.stages.reader.verifier import Verifier
from in_domain import line, recorded

RECORDS = Path("docs/results/verifier-1.5b")
TODAY = shown_as
YEAR_AFTER = re.compile(r",?\s+\d{3,4}")


def whole_date(question, answer, passage, nlp):
    shown = TODAY(question, answer, passage, nlp)
    if shown != answer or nlp is None:
        return shown
    for sentence in stating(answer, passage):
        for e in nlp(sentence).ents:
            if e.label_ == "DATE" and e.text.startswith(answer) and YEAR_AFTER.fullmatch(e.text[len(answer):]):
                return e.text
    return shown


def rows(score: Verifier, found: list[dict], nlp) -> list[dict]:
    """``score_item``'s row for each recorded question, its shown forms computed again (``nlp`` for ``shown_as``)."""
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, nlp=nlp)
    unshown = ({**r, "candidates": [{**c, "shown": None} for c in r["candidates"]]} for r in found)
    return [score_item({"question": r["question"], "answers": r["gold"]}, *replayed(reader, r)) for r in unshown]


def main() -> None:
    score, nlp = Verifier.load(VERIFIERS["1.5b"]), load_spacy()
    for folder in ("checks", "sets", "test"):
        found = [r for p in sorted((RECORDS / folder).glob("*.jsonl")) for r in recorded(p, nlp)]
        reader_module.shown_as = TODAY
        print(line(f"{folder}, shown as today", rows(score, found, nlp)), flush=True)
        reader_module.shown_as = whole_date
        print(line(f"{folder}, a date shown whole", rows(score, found, nlp)), flush=True)
        reader_module.shown_as = TODAY


if __name__ == "__main__":
    main()
