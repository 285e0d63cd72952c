"""Lab: dev AUC of verifiers for the 1.5B reader, on the candidates its train-verifier run collected.

Usage: python fits.py RUN_1_5B RUN_0_5B, each a train-verifier --out folder (train.jsonl, dev.jsonl). Every
fit is scored on the 1.5B's dev candidates: the shipped 0.5B verifier as it is, a fit on the 1.5B's train
candidates, and a fit on both readers' train candidates.
"""
import sys
from pathlib import Path

from ambigdemo.config import VERIFIERS, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import featurize, labelled, records
from ambigdemo.stages.reader.verifier import FEATURES, Verifier, auc, fit

big, small = Path(sys.argv[1]), Path(sys.argv[2])
pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
retriever, nlp = pipeline.retriever, pipeline.reader.nlp
train_big = labelled(featurize(records(big / "train.jsonl"), retriever, nlp))
train_small = labelled(featurize(records(small / "train.jsonl"), retriever, nlp))
dev_rows, dev_labels = labelled(featurize(records(big / "dev.jsonl"), retriever, nlp))
fits = {
    "the 0.5B's verifier (assets/verifier.json)": Verifier.load(VERIFIERS["0.5b"]),
    "fitted on the 1.5B's train candidates": fit(*train_big),
    "fitted on both readers' train candidates": fit(train_big[0] + train_small[0], train_big[1] + train_small[1]),
}
print(f"1.5B train: {len(train_big[1])} candidates, {sum(train_big[1])} right; "
      f"dev: {len(dev_labels)} candidates, {sum(dev_labels)} right\n")
print("| scorer | dev AUC |\n|---|---|")
for name, verifier in fits.items():
    print(f"| {name} | {auc([verifier.p(r) for r in dev_rows], dev_labels):.3f} |")
for name in FEATURES:
    sign = -1 if name in ("rank", "position", "outranked", "other_year", "words") else 1
    print(f"| {name} alone{' (inverted)' if sign < 0 else ''} | {auc([sign * r[name] for r in dev_rows], dev_labels):.3f} |")
