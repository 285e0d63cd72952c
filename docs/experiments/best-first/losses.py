"""Where each needed answer that misses the readings is lost, on recorded sets replayed under the shipped score.

Each recorded question (``record_reading``) is related as today's code relates it (``current``) and replayed
(``ReaderRun.replay``, no model call). Each of its gold readings is then counted at the first stage it reaches, going
back from the screen: shown as a reading; under "also"; a scored candidate under the "also" bar; a candidate rejected
before scoring (with the first words of its reason); named in a passage read but never replied; in no passage read.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/losses.py docs/results/verifier-1.5b/test/readings-heldout-19.jsonl

``--score FILE`` replays another score file (a previous release's). ``--show STAGE`` also prints each question whose
needed answer stops at a stage starting with STAGE, with what it shows.
"""

import argparse
from collections import Counter
from pathlib import Path

from ambigdemo.building.train_verifier import replayed
from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import right
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader import LlmReader
from ambigdemo.stages.reader.verifier import Verifier
from ambigdemo.text import normalize_answer
from in_domain import recorded


def stage(record: dict, gold: list[str], shown: list[str], also: list[str]) -> str:
    """The furthest stage ``gold`` (one reading's names) reaches for ``record``."""
    if any(right(a, gold) for a in shown):
        return "a reading"
    if any(right(a, gold) for a in also):
        return 'under "also"'
    named = [c for c in record["candidates"] if right(c["shown"] or c["text"], gold) or right(c["text"], gold)]
    if any(c["own"] is not None for c in named):
        return 'scored under the "also" bar'
    if named:
        return "rejected: " + named[0]["rejection"][:30]
    read = normalize_answer(" ".join(p["text"] for p in record["passages"]))
    return "named in a passage read, not replied" if any(normalize_answer(n) in read for n in gold) else "in no passage read"


def main(paths: list[Path], show: str | None, score_file: Path) -> None:
    score, nlp = Verifier.load(score_file), load_spacy()
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0, nlp=nlp)
    counts: Counter[str] = Counter()
    for path in paths:
        for record in recorded(path, nlp):
            shown, also = replayed(reader, record)
            for gold in record["gold"]:
                where = stage(record, gold, shown, also)
                counts[where] += 1
                if show and where.startswith(show):
                    print(f"{where}: {record['question']} | needed {gold[0]} | shown {shown} | also {also}")
    for name, n in counts.most_common():
        print(f"{n:5d}  {name}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--show", help="print the questions whose needed answer stops at a stage starting with this")
    ap.add_argument("--score", type=Path, default=VERIFIERS["1.5b"], help="the score file replayed (default: the shipped 1.5B's)")
    args = ap.parse_args()
    main(args.records, args.show, args.score)
