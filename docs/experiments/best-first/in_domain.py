"""Does the score choose better when it is also fitted on questions of the kind the app is asked?

The shipped score is fitted on AmbigNQ train alone (NQ's questions, mostly about TV, songs and sport, read wide). The
readings sets are the app's own kind of question, and ``train-verifier --sets`` records how the app reads them
(``record_reading``: every candidate with the features it was scored on). This lab fits on AmbigNQ train and every
recorded set but one, replays the set left out under that fit (``ReaderRun.replay``: exactly what the app would show,
no model call), and sums each set's readings summary as ``bench --readings`` prints it, beside the shipped score's
replay of the same records. ``--bars`` sweeps the first and further readings' bars; ``--features`` adds features to
the shipped ones (``verifier.FEATURES``).

    PYTHONPATH=. python docs/experiments/best-first/in_domain.py TRAIN.json RECORDS_DIR --bars 0.55:0.8,0.45:0.8 \\
        --features "" "of_other,clash"

With ``--scores A.json B.json`` it replays the sets under each score file instead (the shipped score before and
after a refit, on sets it was not fitted on); ``--wrong`` lists each question with a wrong reading or a missed answer. ``TRAIN.json``: AmbigNQ train's committed candidates with their
features (featurize.py of docs/results/verifier-1.5b/train.jsonl); ``RECORDS_DIR``: one ``NAME.jsonl`` per set (``record_reading``),
each related as today's code relates it (``current``).
"""

import argparse
import json
from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import current, labelled, recorded_rows, records, replayed
from ambigdemo.config import VERIFIERS
from ambigdemo.evaluation.readings import score_item, summarize
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader import LlmReader
from ambigdemo.stages.reader.verifier import SCORED, Verifier, fit

SHOWN = ("needed", "wrong", "wrong_per_5_questions", "fully_right", "multi_complete", "needed_with_also",
         "multi_complete_with_also", "also_per_question", "null_right")


def replay_rows(score: Verifier, found: list[dict]) -> list[dict]:
    """``score_item``'s row for each recorded question as ``score`` decides it."""
    reader = LlmReader(None, verifier=score, also_titles=score.also_titles < 1.0, also_branches=score.also_branches < 1.0)
    return [score_item({"question": r["question"], "answers": r["gold"]}, *replayed(reader, r)) for r in found]


def recorded(path: Path, nlp) -> list[dict]:
    """The questions recorded in ``path`` as today's code relates them (:func:`current`), with the subjects and the less
    likely replies read apart, as the 1.5B's score reads them and ``train-verifier`` relates them."""
    return current(records(path), nlp, True, True)


def line(name: str, rows: list[dict]) -> str:
    summary = summarize(rows, [{}] * len(rows))
    return f"{name:34} " + "  ".join(f"{k} {summary[k]}" for k in SHOWN)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("train", type=Path)
    ap.add_argument("records", type=Path)
    ap.add_argument("--bars", default="0.55:0.8", help="first:further bars, comma-separated")
    ap.add_argument("--features", nargs="*", default=[""], help="features added to the shipped ones, one variant each")
    ap.add_argument("--sets", help="the recorded sets fitted on and left out in turn (default: every file)")
    ap.add_argument("--ambignq", type=float, default=1.0, help="what each AmbigNQ train candidate counts in the fit (0: left out)")
    ap.add_argument("--scores", nargs="+", type=Path, help="instead: replay the sets under each score file given, fitting nothing")
    ap.add_argument("--wrong", action="store_true", help="with --scores: also each question with a wrong reading or a needed answer missed")
    ap.add_argument("--gold", type=Path, help="with --scores: each question's gold from this readings set, not its record's (a corrected gold)")
    args = ap.parse_args()
    nlp = load_spacy()
    if args.scores:
        names = args.sets.split(",") if args.sets else sorted(p.stem for p in args.records.glob("*.jsonl"))
        gold = {i["question"]: i["answers"] for i in json.loads(args.gold.read_text(encoding="utf-8"))} if args.gold else {}
        for name in names:
            found = [{**r, "gold": gold.get(r["question"], r["gold"])} for r in recorded(args.records / f"{name}.jsonl", nlp)]
            for path in args.scores:
                rows = replay_rows(Verifier.load(path), found)
                print(line(f"{name} {path}", rows))
                for row in rows if args.wrong else []:
                    if row["wrong"] or row["found"] < row["gold"]:
                        print(f"    {row['question']} | readings {row['answers']} | also {row['also']} | wrong {row['wrong']}"
                              f" | needed {row['found']} / {row['gold']} ({row['found_with_also']} with also)")
        return

    shipped = Verifier.load(VERIFIERS["1.5b"])
    train_rows, train_labels = labelled(json.loads(args.train.read_text(encoding="utf-8"))) if args.ambignq else ([], [])
    names = args.sets.split(",") if args.sets else sorted(p.stem for p in args.records.glob("*.jsonl"))
    sets = {n: recorded(args.records / f"{n}.jsonl", nlp) for n in names}
    bars = [tuple(float(v) for v in b.split(":")) for b in args.bars.split(",")]
    print(line("shipped score", [row for found in sets.values() for row in replay_rows(shipped, found)]))
    for extra in args.features:
        features = SCORED + tuple(f for f in extra.split(",") if f)
        fits = {}
        for held in sets:
            rows, labels = recorded_rows([r for n, found in sets.items() if n != held for r in found])
            fits[held] = fit(train_rows + rows, train_labels + labels, names=features,
                             weights=[args.ambignq] * len(train_rows) + [1.0] * len(rows))
        for first, further in bars:
            out = []
            for held, found in sets.items():
                out += replay_rows(replace(fits[held], **{k: getattr(shipped, k) for k in (
                    "also", "passages", "relevance", "branch_passages", "branch_min", "also_passages", "also_further",
                    "siblings", "listed", "titles", "also_titles", "lexical")}, threshold=first, more=further), found)
            print(line(f"+{extra or 'none'} {first}:{further}", out))


if __name__ == "__main__":
    main()
