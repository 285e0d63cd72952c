"""Which recorded candidates, rejected as repeating their question, does today's check let through?

``verify.rejection`` no longer rejects an answer made of the question's words that names a part of a longer name the
question writes ("Kano" for the capital of Kano State) or puts two or more of its words in another order ("Guatemala
City"). Prints each recorded candidate rejected as "repeats the question" that passes that check now (``+`` when it
names a gold reading), then the count; writes ``{set: [question, ...]}`` to ``--out`` for ``reread.py``, which reads
them again as the app now reads them (a rejected candidate was recorded with no features).

    PYTHONPATH=. python docs/experiments/best-first/echo_touched.py docs/results/verifier-1.5b/{sets,test,checks}/*.jsonl --out /tmp/echo.json
"""

import argparse
import json
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.evaluation.readings import right
from ambigdemo.stages.answers import renames_question
from ambigdemo.stages.question import Question


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    touched, count, gold_named = {}, 0, 0
    for path in args.records:
        for record in records(path):
            question = Question.of(record["question"])
            let = {c["text"] for c in record["candidates"]
                   if c["rejection"] == "repeats the question" and renames_question(c["text"], question)}
            if not let:
                continue
            touched.setdefault(path.stem, []).append(record["question"])
            for text in sorted(let):
                named = any(right(text, gold) for gold in record["gold"])
                count, gold_named = count + 1, gold_named + named
                print(f"{path.stem}: {record['question']} | {'+' if named else ' '} {text}")
    print(f"{count} candidates let through ({gold_named} naming a gold reading), "
          f"{sum(map(len, touched.values()))} questions")
    args.out.write_text(json.dumps(touched, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
