"""Does a score with gradient-boosted trees in it choose better than the logistic one, each recorded set left out in turn?

The same leave-one-set-out replay as in_domain.py (``ReaderRun.replay``: what the app would show, no model call), the
score fitted by ``verifier.blended`` on AmbigNQ train and every recorded set but the one replayed: the logistic fit,
its p mixed with each ``--shares`` share of the trees' (``verifier.fit_trees``, LightGBM, ``--trees`` settings as
``key=value`` pairs); ``--bars`` sweeps the first and further readings' bars (``first:further``, or
``first:further:listed`` with the bar of a name listed with a reading). With ``--checks DIR`` it also replays the
sets recorded in DIR (not fitted on) under the same fit on every set, at each bar. ``--leave A,B`` leaves out only
those sets in turn (each fitted on every other set) and prints each apart. ``--features`` adds features to the
shipped score's, one variant each (``""``: none); ``--rows FILE`` writes each left-out question's readings and
"also". Every record is related as today's code relates it (``current``).

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/trees.py /tmp/train.features.json \\
        docs/results/verifier-1.5b/sets --bars 0.65:0.85,0.65:0.9 --shares 0 0.3 0.5 1 --checks docs/results/verifier-1.5b/checks
"""

import argparse
import json
from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import labelled, recorded_rows
from ambigdemo.config import VERIFIERS
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.reader.verifier import Verifier, blended

from in_domain import line, recorded, replay_rows

READING = ("also", "passages", "relevance", "branch_passages", "branch_min", "also_passages", "also_further", "siblings",
           "listed", "titles", "also_titles", "lexical", "also_branches", "also_beside")


def settings(text: str) -> dict[str, float]:
    return {k: float(v) if "." in v else int(v) for k, v in (pair.split("=") for pair in text.split(",") if pair)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("train", type=Path)
    ap.add_argument("records", type=Path)
    ap.add_argument("--bars", default="0.65:0.85")
    ap.add_argument("--shares", nargs="*", type=float, default=[0.0, 1.0], help="the trees' shares of p, one variant each")
    ap.add_argument("--trees", default="", help="the trees' settings, key=value,...")
    ap.add_argument("--checks", type=Path, help="recorded sets replayed under fits on every set")
    ap.add_argument("--features", nargs="*", default=[""], help="features added to the shipped score's, one variant each")
    ap.add_argument("--leave", help="only these sets (comma-separated) are left out in turn, each printed apart; the rest are always fitted on")
    ap.add_argument("--rows", type=Path, help="also write each left-out question's readings and \"also\" to this JSON-lines file")
    args = ap.parse_args()
    shipped = Verifier.load(VERIFIERS["1.5b"])
    train_rows, train_labels = labelled(json.loads(args.train.read_text(encoding="utf-8")))
    nlp = load_spacy()
    sets = {p.stem: recorded(p, nlp) for p in sorted(args.records.glob("*.jsonl"))}
    checks = {p.stem: recorded(p, nlp) for p in sorted(args.checks.glob("*.jsonl"))} if args.checks else {}
    bars = [tuple(float(v) for v in b.split(":")) + (shipped.listed,) for b in args.bars.split(",")]
    fitters = {f"{'+' + extra if extra else 'shipped'} trees {share}":
               (lambda rows, labels, share=share, names=shipped.names + tuple(f for f in extra.split(",") if f):
                blended(rows, labels, share, names=names, **settings(args.trees)))
               for extra in args.features for share in args.shares}
    leave = args.leave.split(",") if args.leave else list(sets)
    for name, fitter in fitters.items():
        fits = {}
        for held in leave:
            rows, labels = recorded_rows([r for n, found in sets.items() if n != held for r in found])
            fits[held] = fitter(train_rows + rows, train_labels + labels)
        all_rows, all_labels = recorded_rows([r for f in sets.values() for r in f])
        every = fitter(train_rows + all_rows, train_labels + all_labels) if checks else None
        for first, further, listed, *_ in bars:
            bar = {**{k: getattr(shipped, k) for k in READING}, "threshold": first, "more": further, "listed": listed}
            per = {held: replay_rows(replace(fits[held], **bar), sets[held]) for held in leave}
            if args.rows:
                with args.rows.open("a", encoding="utf-8") as f:
                    f.writelines(json.dumps({"fit": name, "bars": [first, further, listed], "set": held, **row}, ensure_ascii=False) + "\n"
                                 for held in leave for row in per[held])
            for held in leave if args.leave else []:
                print(line(f"{name} {first}:{further}:{listed} {held}", per[held]), flush=True)
            out = [row for rows in per.values() for row in rows]
            print(line(f"{name} {first}:{further}:{listed} left out", out), flush=True)
            for check, found in checks.items():
                print(line(f"{name} {first}:{further}:{listed} {check}", replay_rows(replace(every, **bar), found)), flush=True)


if __name__ == "__main__":
    main()
