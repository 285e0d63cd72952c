"""Which "also" answers name the subject of a reading's passage as the reading does (``ReaderRun._names_reading``)?

Replays recorded sets under the shipped 1.5B score with that fold turned off (``ReaderRun.replay``, no model call) and
prints each "also" answer it would leave out, with the reading, the passage and whether each names a gold reading.

    PYTHONPATH=. python docs/experiments/best-first/subject_fold.py docs/results/verifier-1.5b/test/*.jsonl \\
        docs/results/verifier-1.5b/sets/*.jsonl
"""

import argparse
from pathlib import Path
from unittest import mock

from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.answers import names_subject
from ambigdemo.stages.reader import LlmReader, ReaderRun
from ambigdemo.stages.reader.verifier import Verifier

from in_domain import recorded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    args = ap.parse_args()
    mock.patch.object(ReaderRun, "_names_reading", staticmethod(lambda text, passage, found: False)).start()
    score = Verifier.load(VERIFIERS["1.5b"])
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0)
    nlp, listed, folded = load_spacy(), 0, 0
    for path in args.records:
        for record in recorded(path, nlp):
            run = ReaderRun.replay(reader, record)
            by_id = {p.id: p for p in run.passages}
            for a in run.also:
                listed += 1
                passage = by_id[a.passage]
                reading = next((r for r in run.found if a.passage in r.passages and names_subject(r.text, passage)), None)
                if reading is not None and names_subject(a.answer, passage):
                    folded += 1
                    gold = record["gold"]
                    print(f"{path.stem}: {record['question']!r}: also {a.answer!r} beside the reading {reading.text!r} "
                          f"[{passage.title}]; right: also {any(right(a.answer, g) for g in gold)}, "
                          f"reading {any(right(reading.text, g) for g in gold)}")
    print(f"\n{folded} of {listed} \"also\" answers name the subject of a reading's passage as the reading does")


if __name__ == "__main__":
    main()
