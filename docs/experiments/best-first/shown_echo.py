"""Recorded answers shown by a name that only repeats the question, and the same records with today's shown forms.

A record keeps each candidate's shown form as the recording code computed it (``select.shown_as``), and a replay shows
that form. ``list`` prints every recorded candidate whose shown form repeats its question (``answers.echoes_question``)
while its reply did not, beside the form today's code shows; ``patch`` writes copies of the records with those shown
forms computed again, so that ``in_domain.py --scores`` replays them as today's code would show them:

    PYTHONPATH=. python docs/experiments/best-first/shown_echo.py list docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/test docs/results/verifier-1.5b/checks
    PYTHONPATH=. python docs/experiments/best-first/shown_echo.py patch /tmp/shown docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/test docs/results/verifier-1.5b/checks
"""

import argparse
import json
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.answers import echoes_question
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.types import Passage


def echoing(record: dict) -> list[dict]:
    """The candidates of ``record`` shown by a name that repeats the question where the reply did not."""
    q = Question.of(record["question"])
    return [c for c in record["candidates"] if c["shown"] and echoes_question(c["shown"], q) and not echoes_question(c["text"], q)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("list", "patch"))
    ap.add_argument("dirs", nargs="+", type=Path, help="with patch: the folder to write first, then the record folders")
    args = ap.parse_args()
    out, dirs = (args.dirs[0], args.dirs[1:]) if args.mode == "patch" else (None, args.dirs)
    nlp = load_spacy()
    count = 0
    for folder in dirs:
        for path in sorted(folder.glob("*.jsonl")):
            found = records(path)
            for r in found:
                passages = {p["id"]: Passage(**p) for p in r["passages"]}
                for c in echoing(r):
                    count += 1
                    now = shown_as(Question.of(r["question"]), c["text"], passages[c["passage"]], nlp)
                    if out is None:
                        print(f"{path.stem} | {r['question']} | replied {c['text']} | recorded {c['shown']} | now {now}")
                    c["shown"] = now
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / path.name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in found), encoding="utf-8")
    print(f"{count} recorded candidates shown by a name that only repeats the question")


if __name__ == "__main__":
    main()
