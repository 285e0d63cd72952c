"""Which recorded questions would today's ``select.other_names`` read other names for than their records hold?

For each recorded question (``record_reading``) and each passage read with a likeliest reply: the names
``other_names`` gives that reply now, against the names recorded as its passage's siblings. Prints each question that
differs, with the names it gains (``+`` when one names a gold reading) and loses, then the count; writes
``{set: [question, ...]}`` to ``--out`` for ``reread.py`` to read again as the app now reads them. With ``--lost-only``
only the questions that now read no other names where their records hold some are written (a change that stops
reading lists, apart from any other drift of the list readers since the records were made).

    PYTHONPATH=. python docs/experiments/best-first/siblings_touched.py docs/results/verifier-1.5b/sets/*.jsonl --out /tmp/touched.json
"""

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import other_names
from ambigdemo.types import Passage


def replies(record: dict) -> Iterator[tuple[Question, dict, Passage]]:
    """One recorded question's likeliest replies, each with the question and the passage it was read from."""
    question = Question.of(record["question"])
    read = {p["id"]: Passage(**p) for p in record["passages"]}
    for c in record["candidates"]:
        if c["likeliest"] and c["passage"] in read:
            yield question, c, read[c["passage"]]


def differences(record: dict, nlp) -> list[tuple[list[str], list[str]]]:
    """(names gained, names lost) for each passage of one recorded question whose other names differ now."""
    out = []
    for question, c, passage in replies(record):
        now = other_names(question, c["text"], passage, nlp)
        then = [x["text"] for x in record["candidates"] if x["passage"] == passage.id and x.get("sibling")]
        if now != then:
            out.append(([n for n in now if n not in then], [n for n in then if n not in now]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--lost-only", action="store_true", help="only questions whose every difference loses names and gains none")
    args = ap.parse_args()
    nlp = load_spacy()
    found: dict[str, list[str]] = {}
    for path in args.records:
        for record in records(path):
            changed = differences(record, nlp)
            if args.lost_only and any(gained for gained, _ in changed):
                changed = []
            if changed:
                found.setdefault(path.stem, []).append(record["question"])
            for gained, lost in changed:
                marks = [f"{'+' if any(right(n, g) for g in record['gold']) else '-'}{n}" for n in gained]
                print(f"{path.stem}: {record['question']} | gains {marks} | loses {lost}")
    print(f"{sum(map(len, found.values()))} questions differ")
    args.out.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
