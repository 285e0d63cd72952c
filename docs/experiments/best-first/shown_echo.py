"""Recorded answers shown by a name that only repeats the question, and the same records with another code's shown names.

A record keeps each candidate's shown name as the recording code computed it (``select.shown_as``), and a replay shows
that name. ``list`` prints every recorded candidate whose recorded name and the one the code on ``PYTHONPATH`` shows
differ where one of them only repeats its question (``verify.repeats_question``) and its reply does not; ``patch``
writes copies of the records with those names as that code shows them, so that ``in_domain.py --scores`` replays them
as it would. Run from this release, it shows older records as this release would; run from an older release's
worktree, it shows this release's records as that release would:

    PYTHONPATH=. python docs/experiments/best-first/shown_echo.py list docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/test docs/results/verifier-1.5b/checks
    PYTHONPATH=. python docs/experiments/best-first/shown_echo.py patch /tmp/shown docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/test docs/results/verifier-1.5b/checks
"""

import argparse
import json
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verify import repeats_question
from ambigdemo.types import Passage


def echoing(record: dict, nlp) -> list[tuple[dict, str]]:
    """The candidates of ``record`` whose recorded shown name and the one this code shows differ where one of them
    repeats the question and the reply does not, each with the name this code shows."""
    q = Question.of(record["question"])
    passages = {p["id"]: Passage(**p) for p in record["passages"]}
    out = []
    for c in record["candidates"]:
        passage = passages[c["passage"]] if c["passage"] in passages else None
        if not c["shown"] or passage is None or repeats_question(q, c["text"], passage):
            continue
        now = shown_as(q, c["text"], passage, nlp)
        if now != c["shown"] and (repeats_question(q, c["shown"], passage) or repeats_question(q, now, passage)):
            out.append((c, now))
    return out


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
                for c, now in echoing(r, nlp):
                    count += 1
                    if out is None:
                        print(f"{path.stem} | {r['question']} | replied {c['text']} | recorded {c['shown']} | now {now}")
                    c["shown"] = now
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / path.name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in found), encoding="utf-8")
    print(f"{count} recorded candidates whose shown name, recorded or now, only repeats the question")


if __name__ == "__main__":
    main()
