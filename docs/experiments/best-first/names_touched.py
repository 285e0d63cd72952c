"""How many names does ``select.names_given`` (a lead's other names for its subject) add to recorded questions, and how
many of them name a gold reading?

For each recorded question (``record_reading``), each passage read whose likeliest reply is grounded and whose subject
the question names: the lead's other names for that subject (``names_given``) that pass ``rejection`` and are not
already a candidate of that passage. Prints each such name, ``+`` when it names a gold reading, then the counts.

    PYTHONPATH=. python docs/experiments/best-first/names_touched.py docs/results/verifier-1.5b/sets/*.jsonl
"""

import argparse
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.evaluation.readings import right
from ambigdemo.stages.answers import bare_title, echoes_question
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import names_given
from ambigdemo.stages.reader.verify import ranks, rejection
from ambigdemo.text import normalize_answer
from ambigdemo.types import Passage


def added(record: dict) -> list[tuple[str, str]]:
    """(reply, name) for each name ``names_given`` adds to one recorded question."""
    question = Question.of(record["question"])
    if ranks(question.text):
        return []
    read = {p["id"]: Passage(**p) for p in record["passages"]}
    out = []
    for c in record["candidates"]:
        passage = read.get(c["passage"])
        if (not c["likeliest"] or passage is None or not echoes_question(bare_title(passage.title), question)
                or rejection(question, c["text"], passage) is not None):
            continue
        have = {normalize_answer(x["text"]) for x in record["candidates"] if x["passage"] == passage.id}
        out += [(c["text"], n) for n in names_given(c["text"], passage)
                if rejection(question, n, passage) is None and normalize_answer(n) not in have]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    args = ap.parse_args()
    questions = good = bad = 0
    for path in args.records:
        for record in records(path):
            names = added(record)
            questions += bool(names)
            for reply, name in names:
                hit = any(right(name, g) for g in record["gold"])
                good, bad = good + hit, bad + (not hit)
                print(f"{'+' if hit else '-'} {path.stem}: {record['question']} | {reply} -> {name}")
    print(f"{questions} questions gain {good + bad} names: {good} name a gold reading, {bad} do not")


if __name__ == "__main__":
    main()
