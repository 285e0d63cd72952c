"""Lab: do the 1.5B's own checks of its candidates add to its verifier? Two checks, each a feature beside the
15 of the shipped fit: ``yes`` (backfill.py: P(yes) of a yes/no turn after the candidate in its passage's
cache) and ``listwise`` (verifier-options/listwise.py: p(its number) when the question's distinct
candidates are listed, each with its evidence sentence). Dev AUC, and the 5-fold out-of-fold AUC on train
(1,105 candidates against dev's 129), of the logistic fit with and without each.

Usage: AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/verifier-1.5b-checks/fits.py docs/results/verifier-1.5b-checks [OUT.json NAMES]
(RUN/train.jsonl and RUN/dev.jsonl: train-verifier's candidates with ``yes``; RUN/listwise.json). OUT.json: the
fit on the 15 features and NAMES (comma-separated), with the reading and thresholds of assets/verifier-1.5b.json,
for verifier-1.5b/replay.py.
"""
import json
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.config import VERIFIERS, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import featurize, labelled, out_of_fold, records
from ambigdemo.stages.reader.verifier import FEATURES, Verifier, auc, fit
from ambigdemo.text import normalize_answer

run = Path(sys.argv[1])
listed = json.loads((run / "listwise.json").read_text(encoding="utf-8"))


def with_checks(found: list[dict]) -> list[dict]:
    """``found`` (featurized) with each candidate's two checks among its features (a candidate past the
    listwise turn's nine scores 0 there)."""
    for record in found:
        for c in record["candidates"]:
            c["features"]["yes"] = c["yes"]
            c["features"]["listwise"] = listed.get(record["question"], {}).get(normalize_answer(c["text"]), 0.0)
    return found


pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
retriever, nlp = pipeline.retriever, pipeline.reader.nlp
train = with_checks(featurize(records(run / "train.jsonl"), retriever, nlp))
rows, labels = labelled(train)
dev_rows, dev_labels = labelled(with_checks(featurize(records(run / "dev.jsonl"), retriever, nlp)))


print(f"train: {len(labels)} candidates, {sum(labels)} right; dev: {len(dev_labels)} candidates, {sum(dev_labels)} right\n")
print("| scorer | dev AUC | train, 5-fold out of fold |\n|---|---|---|")
for name, extra in (("the 15 features (assets/verifier-1.5b.json's fit)", ()), ("the 15 + yes", ("yes",)),
                    ("the 15 + listwise", ("listwise",)), ("the 15 + yes + listwise", ("yes", "listwise"))):
    fitted = fit(rows, labels, names=FEATURES + extra)
    print(f"| {name} | {auc([fitted.p(r) for r in dev_rows], dev_labels):.3f} | {out_of_fold(train, FEATURES + extra):.3f} |")
for check in ("yes", "listwise"):
    print(f"| {check} alone | {auc([r[check] for r in dev_rows], dev_labels):.3f} | {auc([r[check] for r in rows], labels):.3f} (no fit) |")
below = [(r, y) for r, y in zip(dev_rows, dev_labels) if r["rank"] > 0]
print(f"| below the top passage ({len(below)} dev candidates): score / yes / listwise | "
      + " / ".join(f"{auc([r[n] for r, _ in below], [y for _, y in below]):.3f}" for n in ("score", "yes", "listwise")) + " | |")
fitted = fit(rows, labels, names=FEATURES + ("yes", "listwise"))
print("\nweights of the 15 + yes + listwise (standardised):", {n: round(w, 2) for n, w in zip(fitted.names, fitted.weights)})
if len(sys.argv) > 3:
    shipped = Verifier.load(VERIFIERS["1.5b"])
    setting = {k: getattr(shipped, k) for k in ("threshold", "more", "passages", "relevance", "branch_passages", "branch_min")}
    chosen = fit(rows, labels, names=FEATURES + tuple(sys.argv[3].split(",")))
    Path(sys.argv[2]).write_text(json.dumps(replace(chosen, **setting).to_json(), indent=2) + "\n")
