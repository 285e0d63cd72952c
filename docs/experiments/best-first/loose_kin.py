"""A lab, not shipped: would lists be read whole if every proper-name tag counted as one kind?

spaCy's small model tags the items of one list by their context ("bordered by Mali to the northwest, Niger to the
northeast, Benin to the southeast": PERSON, PERSON, GPE), and ``select.siblings`` reads a run of one kind only (a
country's GPE beside a place or an ORG, ``select._kin``). This lab reads, beside each recorded likeliest reply, the
other names a looser rule adds (``PERSON``, ``GPE``, ``LOC``, ``FAC``, ``ORG`` and ``NORP`` all kin, but for a name
that opens with "the") and counts them: a gold reading no recorded candidate had, one a candidate had already, or
no gold reading (wrong). It reads no model: new names would still be scored before any was shown.

    PYTHONPATH=. python docs/experiments/best-first/loose_kin.py
"""

import json
from collections import Counter
from pathlib import Path

import ambigdemo.stages.reader.select as select
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.question import Question
from ambigdemo.types import Passage

RECORDS = Path("docs/results/verifier-1.5b")
TODAY = select._kin
NAMES = {"PERSON", "GPE", "LOC", "FAC", "ORG", "NORP"}


def loose(left, right_) -> bool:
    kinds = {select._kind(left), select._kind(right_)}
    return TODAY(left, right_) or (kinds <= NAMES and not any(e.text.lower().startswith("the ") for e in (left, right_)))


def added(question: Question, reply: str, passage: Passage, nlp) -> list[str]:
    """The other names of ``reply``'s list that the loose rule reads and today's does not."""
    select._kin = TODAY
    today = set(select.other_names(question, reply, passage, nlp))
    select._kin = loose
    try:
        return [n for n in select.other_names(question, reply, passage, nlp) if n not in today]
    finally:
        select._kin = TODAY


def main() -> None:
    nlp = load_spacy()
    counts: Counter[str] = Counter()
    for path in sorted(RECORDS.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            question, by_id = Question.of(record["question"]), {p["id"]: Passage(**p) for p in record["passages"]}
            had = [c["shown"] or c["text"] for c in record["candidates"]]
            for c in record["candidates"]:
                if c["likeliest"] and c["own"] is not None and c["passage"] in by_id:
                    for name in added(question, c["text"], by_id[c["passage"]], nlp):
                        gold = [g for g in record["gold"] if right(name, g)]
                        counts["wrong" if not gold else "right, a candidate had it" if any(
                            right(h, g) for h in had for g in gold) else "right, new"] += 1
    for name, n in counts.most_common():
        print(f"{n:5d}  {name}")


if __name__ == "__main__":
    main()
