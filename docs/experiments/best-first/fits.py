"""Which features the score keeps, and how a best-first choice in two tiers reads both readings dev sets,
from the features featurize.py computed (seconds; no model is run).

    PYTHONPATH=. python docs/experiments/best-first/fits.py docs/results/best-first/1.5b 0 > docs/experiments/best-first/fits-1.5b.md
    PYTHONPATH=. python docs/experiments/best-first/fits.py docs/results/best-first/0.5b 1 > docs/experiments/best-first/fits-0.5b.md

The folder holds train.features.json (AmbigNQ train) and {dev,test,heldout}.features.json (the readings dev sets:
dev as train-verifier collected it, test and the first held-out set, once read, by collect.py; the 0.5B's test and
heldout were not collected); the second argument: how many of the passages read also give their less likely
replies (the 0.5B's reading: 1).
"""

import json
import math
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import fold_fits, gold_answers, labelled, out_of_fold, replay, shown_tiers
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.evaluation.readings import right
from ambigdemo.config import AMBIGNQ_TRAIN, ROOT, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.recall import relevant
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verifier import FEATURES, auc, fit

SETS = {"dev": ROOT / "assets" / "readings-dev.json", "test": ROOT / "assets" / "readings-test.json",
        "heldout": ROOT / "assets" / "readings-heldout.json"}
BASE = FEATURES[:15]  # the verifier's, before this issue
FITS = {
    "the verifier's 15": BASE,
    "15 + lift (shipped)": BASE + ("lift",),
    "15 + prior, prior_gap": BASE + ("prior", "prior_gap"),
    "15 + clash, of_other, support_gap": BASE + ("clash", "of_other", "support_gap"),
    "all but prior, prior_gap": tuple(f for f in FEATURES if f not in ("prior", "prior_gap")),
    "all": FEATURES,
}


def load(path: Path) -> list[dict]:
    found = json.loads(path.read_text())
    for r in found:
        for c in r["candidates"]:
            c["features"].setdefault("lift", c["features"]["logp"] - c["features"]["prior"])
    return found


def first_gated(record: dict) -> dict[str, int]:
    """Verify's rules on one collected question, approximately: the first likeliest reply from the passages within
    90% of the best retrieval score (at most 4) is the one reading (the rules' rewrite-checked second readings
    are not replayed)."""
    gated = [c for c in record["candidates"]
             if c["likeliest"] and c["features"]["ratio"] >= 0.9 and round(math.expm1(c["features"]["rank"])) < 4]
    if not gated:
        return {"needed": 0, "wrong": 0}
    return {"needed": sum(right(gated[0]["text"], g) for g in record["gold"]), "wrong": int(not gated[0]["right"])}


def new_questions(train: list[dict], branch_passages: int) -> None:
    """Each choice on AmbigNQ train questions its score was not fitted on (5 folds by question): needed and wrong."""
    rules = [first_gated(r) for r in train]
    print("\n## New questions: AmbigNQ train, each scored by a fit on the other four fifths\n")
    print(f"{len(train)} questions, {sum(len(r['gold']) for r in train)} needed answers (every annotator's).\n")
    print("| choice | passages | first | more | needed | wrong |\n|---|---|---|---|---|---|")
    print(f"| verify's rules (approximately: the first reply of the gated passages) | at most 4 within 90% | | | "
          f"{sum(r['needed'] for r in rules)} | {sum(r['wrong'] for r in rules)} |")
    for label, names in FITS.items():
        folds = fold_fits(train, names)
        for passages in (4, 8):
            for first, more in ((0.2, 0.8), (0.3, 0.6), (0.3, 0.8), (0.4, 0.8), (0.5, 0.8)):
                got = [shown_tiers(train[q], replace(score, threshold=first, more=more, also=1.0), passages, branch_passages)
                       for held, score in folds for q in held]
                print(f"| {label} | {passages} | {first} | {more} | {sum(g['needed'] for g in got)} | {sum(g['wrong'] for g in got)} |")


def further(train: list[dict], sets: dict[str, list[dict]], branch_passages: int, min_score: float) -> None:
    """The shipped features, at most 4 passages, each pair of thresholds for the first and each further reading and
    each passage gate (``relevance``: passages within this share of the best retrieval score): needed / wrong on
    each dev set and on AmbigNQ train (out of fold), the dev sets' sums, and the passages read per question."""
    names = BASE + ("lift",)
    folds = fold_fits(train, names)
    score = fit(*labelled(train), names=names)
    print("\n## The first and further readings' thresholds and the passage gate (15 + lift, at most 4 passages, "
          "also 0.1): needed / wrong / needed in readings or also\n")
    print("| relevance | first | more | " + " | ".join(sets) + " | dev sets: needed | dev sets: wrong | passages read "
          "| train, out of fold: needed / wrong |\n|---|---|---|" + "---|" * (len(sets) + 4))
    records = [r for found in sets.values() for r in found]
    for relevance in (0.0, 0.85, 0.9):
        read = sum(len(relevant(r["retrieved"], relevance, min_score, 4)) for r in records) / len(records)
        for first in (0.2, 0.3, 0.4, 0.5):
            for more in (0.6, 0.7, 0.8, 0.9, 1.0):
                chosen = replace(score, threshold=first, more=more, also=0.1, relevance=relevance)
                runs = [replay(found, chosen, 4, branch_passages, shown=lambda c: c["shown"]) for found in sets.values()]
                got = [shown_tiers(train[q], replace(f, threshold=first, more=more, also=1.0, relevance=relevance), 4,
                                   branch_passages) for held, f in folds for q in held]
                print(f"| {relevance} | {first} | {more} | " + " | ".join(f"{r['needed']} / {r['wrong']} / {r['either']}" for r in runs)
                      + f" | {sum(r['needed'] for r in runs)} | {sum(r['wrong'] for r in runs)} | {read:.2f}"
                      + f" | {sum(g['needed'] for g in got)} / {sum(g['wrong'] for g in got)} |")


def main(folder: Path, branch_passages: int = 0) -> None:
    train = load(folder / "train.features.json")
    if any("gold" not in r for r in train):  # collected before train-verifier kept the gold (the 0.5B's)
        gold = {e.question: gold_answers(e) for e in load_ambignq(AMBIGNQ_TRAIN)}
        for r in train:
            r.setdefault("gold", gold[r["question"]])
    sets = {name: load(folder / f"{name}.features.json") for name in SETS if (folder / f"{name}.features.json").exists()}
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
    for name, found in sets.items():
        gold = {i["question"]: i["answers"] for i in json.loads(SETS[name].read_text())}
        for r in found:
            r["gold"] = gold[r["question"]]
            r["retrieved"] = pipeline.retriever.search(r["question"], 8)
            passages = {p.id: p for p in r["retrieved"]}
            for c in r["candidates"]:
                c["shown"] = shown_as(Question.of(r["question"]), c["text"], passages[c["passage"]], pipeline.reader.nlp)
    print("## AUC: out of fold on train (5 folds by question), and on each dev set's candidates\n")
    print("| features | train, out of fold | " + " | ".join(sets) + " |\n|---|---|" + "---|" * len(sets))
    for label, names in FITS.items():
        fitted = fit(*labelled(train), names=names)
        aucs = [auc([fitted.p(r) for r in labelled(found)[0]], labelled(found)[1]) for found in sets.values()]
        print(f"| {label} | {out_of_fold(train, names):.3f} | " + " | ".join(f"{a:.3f}" for a in aucs) + " |")
    new_questions(train, branch_passages)
    further(train, sets, branch_passages, pipeline.reader.min_score)
    print("\n## Both dev sets replayed: best first, two tiers (needed / wrong / needed in readings or also / also per question)\n")
    print("| features | passages | first | more | also | " + " | ".join(sets) + " | both: needed | both: wrong |\n|---|---|---|---|---|" + "---|" * (len(sets) + 2))
    for label, names in FITS.items():
        score = fit(*labelled(train), names=names)
        for k in (4, 6, 8):
            for first in (0.2, 0.3, 0.4, 0.5):
                for more in (0.5, 0.6, 0.7, 0.8):
                    for also in (0.1, 0.2):
                        chosen = replace(score, threshold=first, more=more, also=also)
                        runs = [replay(found, chosen, k, branch_passages, shown=lambda c: c["shown"]) for found in sets.values()]
                        cells = [f"{r['needed']} / {r['wrong']} / {r['either']} / {r['also'] / len(f):.2f}" for r, f in zip(runs, sets.values())]
                        print(f"| {label} | {k} | {first} | {more} | {also} | " + " | ".join(cells)
                              + f" | {sum(r['needed'] for r in runs)} | {sum(r['wrong'] for r in runs)} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
