"""Does the place a passage ranks an answer at (``verify.rank_as_asked``: the place asked, another, or no ranking)
help the score? Adds ``rank_asked`` and ``rank_other`` to the committed candidates' features (no model is run: the
other features are as featurize.py computed them), then prints the out-of-fold AUC on AmbigNQ train, and the best-first
choice at the shipped setting's reading and thresholds on train (out of fold) and on each readings dev set.

    PYTHONPATH=. python docs/experiments/best-first/rank_feature.py docs/results/best-first/1.5b assets/verifier-1.5b.json
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

from fits import SETS, load

from ambigdemo.building.train_verifier import fold_fits, gold_answers, labelled, out_of_fold, replay, shown_tiers
from ambigdemo.config import AMBIGNQ_TRAIN, Config
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verifier import FEATURES, Verifier, auc, fit
from ambigdemo.stages.reader.verify import rank_as_asked

BEFORE = FEATURES[:15] + ("lift",)  # the score before this feature
FITS = {"15 + lift (before)": BEFORE, "+ rank_other (shipped)": BEFORE + ("rank_other",),
        "+ rank_asked, rank_other": BEFORE + ("rank_asked", "rank_other")}


def add(found: list[dict], pipeline: Pipeline, gold: dict | None = None) -> list[dict]:
    """The two features on each candidate of ``found``, its passage found among the question's retrieved ones;
    with ``gold`` (question -> readings), each candidate's text as the app shows it too."""
    for r in found:
        question = Question.of(r["question"])
        passages = {p.id: p for p in pipeline.retriever.search(r["question"], 8)}
        if gold is not None:
            r["gold"] = gold[r["question"]]
        for c in r["candidates"]:
            ranked = rank_as_asked(question, c["text"], passages[c["passage"]])
            c["features"]["rank_asked"], c["features"]["rank_other"] = float(ranked == 1), float(ranked == -1)
            if gold is not None:
                c["shown"] = shown_as(question, c["text"], passages[c["passage"]], pipeline.reader.nlp)
    return found


def main(folder: Path, shipped: Path) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
    train = add(load(folder / "train.features.json"), pipeline)
    if any("gold" not in r for r in train):  # collected before train-verifier kept the gold (the 0.5B's)
        gold = {e.question: gold_answers(e) for e in load_ambignq(AMBIGNQ_TRAIN)}
        for r in train:
            r.setdefault("gold", gold[r["question"]])
    sets = {name: add(load(folder / f"{name}.features.json"), pipeline,
                      {i["question"]: i["answers"] for i in json.loads(SETS[name].read_text())})
            for name in SETS if (folder / f"{name}.features.json").exists()}
    setting = Verifier.load(shipped)
    every = [c for r in train for c in r["candidates"]]
    print(f"AmbigNQ train: {len(train)} questions, {len(every)} candidates; rank_asked on "
          f"{sum(c['features']['rank_asked'] for c in every):.0f} ({sum(c['features']['rank_asked'] and c['right'] for c in every)} right), "
          f"rank_other on {sum(c['features']['rank_other'] for c in every):.0f} ({sum(c['features']['rank_other'] and c['right'] for c in every)} right)\n")
    print(f"The shipped reading: {setting.passages} passages within {setting.relevance} of the best, thresholds "
          f"{setting.threshold} / {setting.more}, also from {setting.also}.\n")
    print("| features | train AUC, out of fold | " + " | ".join(f"{n} AUC" for n in sets)
          + " | train, out of fold: needed / wrong | " + " | ".join(f"{n}: needed / wrong / either / also" for n in sets)
          + " |\n|---|---|" + "---|" * (2 * len(sets) + 1))
    for label, names in FITS.items():
        score = replace(fit(*labelled(train), names=names), **{k: getattr(setting, k) for k in
                        ("threshold", "more", "also", "passages", "relevance", "branch_passages")})
        aucs = [auc([score.p(x) for x in labelled(found)[0]], labelled(found)[1]) for found in sets.values()]
        folds = [(held, replace(f, **{k: getattr(score, k) for k in ("threshold", "more", "relevance")}, also=1.0))
                 for held, f in fold_fits(train, names)]
        new = [shown_tiers(train[q], f, score.passages, score.branch_passages) for held, f in folds for q in held]
        runs = [replay(found, score, score.passages, score.branch_passages, shown=lambda c: c["shown"]) for found in sets.values()]
        print(f"| {label} | {out_of_fold(train, names):.3f} | " + " | ".join(f"{a:.3f}" for a in aucs)
              + f" | {sum(g['needed'] for g in new)} / {sum(g['wrong'] for g in new)} | "
              + " | ".join(f"{r['needed']} / {r['wrong']} / {r['either']} / {r['also']}" for r in runs) + " |")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(Path(sys.argv[1]), Path(sys.argv[2]))
