"""Each question's readings and "also" answers with and without the twenty-sixth pass's two changes to "also" (the bar
beside a reading, ``also_beside``, and the subject fold, ``ReaderRun._names_reading``), asked through ``Pipeline.ask``
(no paragraph), one JSON line a question.

    AMBIGDEMO_READER_MODEL=1.5b AMBIGDEMO_VERIFIER=on PYTHONPATH=. python docs/experiments/best-first/also_compare.py \\
        docs/results/newcomer-26/questions.json > OUT.jsonl
"""

import json
import sys
from dataclasses import replace
from unittest import mock

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.reader import ReaderRun


def main() -> None:
    now = Pipeline.load(Config.from_env(use_generator=False))
    before = replace(now, reader=replace(now.reader, verifier=replace(now.reader.verifier, also_beside=0.0)))
    for path in sys.argv[1:]:
        for item in json.load(open(path, encoding="utf-8")):
            question = item["question"]
            result = now.ask(question)
            with mock.patch.object(ReaderRun, "_names_reading", staticmethod(lambda text, passage, found: False)):
                old = before.ask(question)
            print(json.dumps({"question": question, "gold": item["answers"],
                              "readings": [i.answer for i in result.interpretations],
                              "readings_before": [i.answer for i in old.interpretations],
                              "also": [(a.answer, a.p) for a in result.also], "also_before": [(a.answer, a.p) for a in old.also]}))


if __name__ == "__main__":
    main()
