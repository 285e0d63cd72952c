"""Do the score's choices change when a sentence no longer ends at an initial ("J. K. Rowling")?

Every recorded candidate's features are computed again (``current``: the ones read from the sentences stating it
change: its coverage, its entity's kind, how the sentence ranks or relates it, another year), once with the splitter the
records were made with (a break after every full stop before a capital: a check that the recomputation gives back
what was recorded) and once with today's (``text.split_sentences``: not after an initial or a title); the features that
count passages retrieved but not read (``support``, ``rank``) are the recorded ones.
Each set is then replayed under the shipped score (``ReaderRun.replay``: what the app would show, no model call) and
summed as ``bench --readings`` prints it.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/initials.py \\
        docs/results/verifier-1.5b/checks docs/results/verifier-1.5b/sets
"""

import argparse
import re
from pathlib import Path

import ambigdemo.stages.reader.verify as verify
import ambigdemo.text as text
from ambigdemo.building.train_verifier import current, records
from ambigdemo.config import VERIFIERS
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader.verifier import Verifier
from in_domain import line, replay_rows

TODAY = text.split_sentences
_RECORDED_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])")


def recorded_split(passage_text: str) -> list[str]:
    """The splitter the records were made with: a break after every full stop before a capital."""
    return [s.strip() for s in _RECORDED_END.split(passage_text) if s.strip()]


def refeaturized(found: list[dict], nlp, split) -> list[dict]:
    """``found`` with each scored candidate's features computed again (``current``) under ``split``."""
    verify.split_sentences = split
    try:
        return current(found, nlp)
    finally:
        verify.split_sentences = TODAY


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="folders of recorded sets (NAME.jsonl, record_reading)")
    ap.add_argument("--score", type=Path, default=VERIFIERS["1.5b"])
    args = ap.parse_args()
    score, nlp = Verifier.load(args.score), load_spacy()
    for folder in args.dirs:
        for path in sorted(folder.glob("*.jsonl")):
            found = records(path)
            print(line(f"{path.stem} recorded", replay_rows(score, found)))
            print(line(f"{path.stem} old splitter", replay_rows(score, refeaturized(found, nlp, recorded_split))))
            print(line(f"{path.stem} today's splitter", replay_rows(score, refeaturized(found, nlp, TODAY))))


if __name__ == "__main__":
    main()
