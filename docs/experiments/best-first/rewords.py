"""How often does "also" list an answer that only rewords one already shown, and how right is "also" at each p?

Replays recorded sets under the shipped 1.5B score (``ReaderRun.replay``, no model call) and prints each "also" answer
that ``answers.rewords`` finds among the answers shown before it (readings, then earlier "also" answers), with the
question's gold; then "also" precision (an answer naming a gold reading) by whether the question has a reading and by p.
``--unfolded`` replays with the fold turned off (``rewords`` patched to never hold in ``answers.repeats``), so the rewordings
the fold leaves out are listed; without it none should be left.

    PYTHONPATH=. python docs/experiments/best-first/rewords.py docs/results/verifier-1.5b/test/*.jsonl \\
        docs/results/verifier-1.5b/sets/*.jsonl [--unfolded]
"""

import argparse
from collections import defaultdict
from pathlib import Path
from unittest import mock

from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.answers import rewords
from ambigdemo.stages.reader import LlmReader, ReaderRun
from ambigdemo.stages.reader.verifier import Verifier

from in_domain import recorded

BANDS = ((0.7, "p >= 0.7"), (0.5, "0.5-0.7"), (0.3, "0.3-0.5"), (0.0, "p < 0.3"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--unfolded", action="store_true", help="replay with the fold turned off")
    args = ap.parse_args()
    if args.unfolded:  # ``answers.repeats`` reads it from its module; this script keeps the real one
        mock.patch("ambigdemo.stages.answers.rewords", lambda text, shown: False).start()
    score = Verifier.load(VERIFIERS["1.5b"])
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0)
    nlp = load_spacy()
    listed = reworded = 0
    precision: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for path in args.records:
        for record in recorded(path, nlp):
            run = ReaderRun.replay(reader, record)
            gold = record["gold"]
            shown = [a.text for a in run.found]
            kind = "with a reading" if run.found else "no reading, answerable" if gold else "no reading, unanswerable"
            for a in run.also:
                listed += 1
                same = next((s for s in shown if rewords(a.answer, s)), None)
                if same is not None:
                    reworded += 1
                    print(f"{path.stem}: {record['question']!r}: also {a.answer!r} rewords {same!r}; gold {gold}")
                shown.append(a.answer)
                band = next(name for bar, name in BANDS if a.p >= bar)
                for key in (kind, f"{kind}, {band}"):
                    precision[key][0] += any(right(a.answer, g) for g in gold)
                    precision[key][1] += 1
    print(f"\n{reworded} of {listed} \"also\" answers reword one shown before them")
    for key in sorted(precision):
        hits, count = precision[key]
        print(f"{key:40} {hits} right of {count}")


if __name__ == "__main__":
    main()
