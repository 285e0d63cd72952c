"""What would reading no list for a question that asks for one thing change, before any record is read again?

For each recorded question (``record_reading``) whose "which" or "what" phrase is singular (``select.asks_one``), its
candidates from a list's other names (``sibling``) are dropped, as the app no longer reads them; the records are then
related as today's code relates them (``current``) and replayed under ``--score`` (``ReaderRun.replay``), beside the
records as they are and beside a softer variant that keeps those names but takes none at the ``listed`` bar. Prints
each set's readings summary for the three, every question whose readings or "also" the drop changes, and the totals.
Positions are those recorded (a question read again renumbers its candidates), so ``reread.py`` decides; this shows
where to look.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/one_asked.py RECORDS.jsonl ... --score assets/verifier-1.5b.json
"""

import argparse
from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import current, records
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import asks_one
from ambigdemo.stages.reader.verifier import Verifier

from in_domain import line, replay_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--score", type=Path, required=True)
    args = ap.parse_args()
    nlp = load_spacy()
    score = Verifier.load(args.score)
    totals: dict[str, list[dict]] = {"as recorded": [], "no list read": [], "no listed bar": []}
    for path in args.records:
        found = records(path)
        one = [asks_one(Question.of(r["question"]), nlp) for r in found]
        dropped = [{**r, "candidates": [c for c in r["candidates"] if not (o and c["sibling"])]} for r, o in zip(found, one)]
        related = current(found, nlp, True, True)
        before = replay_rows(score, related)
        after = replay_rows(score, current(dropped, nlp, True, True))
        unbarred = replay_rows(replace(score, listed=1.0), related)
        softer = [u if o else b for b, u, o in zip(before, unbarred, one)]
        for name, rows in zip(totals, (before, after, softer)):
            totals[name] += rows
            print(line(f"{path.stem} {name}", rows), flush=True)
        for b, a in zip(before, after):
            if (b["answers"], b["also"]) != (a["answers"], a["also"]):
                print(f"    {b['question']} | {b['answers']} also {b['also']} -> {a['answers']} also {a['also']} | wrong {b['wrong']} -> {a['wrong']}")
    for name, rows in totals.items():
        print(line(f"all {name}", rows))


if __name__ == "__main__":
    main()
