"""How many names does ``select.names_given`` (a lead's other names for its subject) add to recorded questions, and how
many of them name a gold reading?

For each recorded question (``record_reading``) and each passage read with a likeliest reply: the names today's
``other_names`` reads for that reply that come from ``names_given`` and are not already a candidate of that passage.
Prints each such name, ``+`` when it names a gold reading, then the counts.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/names_touched.py docs/results/verifier-1.5b/sets/*.jsonl
"""

import argparse
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader.select import names_given, other_names
from ambigdemo.text import normalize_answer

from siblings_touched import replies


def added(record: dict, nlp) -> list[tuple[str, str]]:
    """(reply, name) for each name of ``names_given`` that ``other_names`` reads for one recorded question and its
    record lacks."""
    out = []
    for question, c, passage in replies(record):
        given = names_given(c["text"], passage)
        have = {normalize_answer(x["text"]) for x in record["candidates"] if x["passage"] == passage.id}
        out += [(c["text"], n) for n in other_names(question, c["text"], passage, nlp)
                if n in given and normalize_answer(n) not in have]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    args = ap.parse_args()
    nlp = load_spacy()
    questions = good = bad = 0
    for path in args.records:
        for record in records(path):
            names = added(record, nlp)
            questions += bool(names)
            for reply, name in names:
                hit = any(right(name, g) for g in record["gold"])
                good, bad = good + hit, bad + (not hit)
                print(f"{'+' if hit else '-'} {path.stem}: {record['question']} | {reply} -> {name}")
    print(f"{questions} questions gain {good + bad} names: {good} name a gold reading, {bad} do not")


if __name__ == "__main__":
    main()
