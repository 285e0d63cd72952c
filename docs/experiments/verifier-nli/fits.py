"""Lab: the NLI scores of nli.py as verifier features: dev AUC and 5-fold out-of-fold train AUC of each form
alone and beside the shipped 15 features, and (with OUT.json FORM) a fit on the 15 + that form as ``nli``,
with the reading and thresholds of assets/verifier-1.5b.json, for verifier-1.5b/replay.py.

Usage: AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/verifier-nli/fits.py RUN NLI.json [OUT.json FORM]
"""
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.config import VERIFIERS, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import featurize, labelled, out_of_fold, records
from ambigdemo.stages.reader.verifier import FEATURES, Verifier, auc, fit

run = Path(sys.argv[1])
nli = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
forms = sorted(next(iter(next(iter(nli.values())).values())))


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def with_nli(found: list[dict]) -> list[dict]:
    """``found`` (featurized) with each form's NLI log-odds among each candidate's features."""
    for record in found:
        for c in record["candidates"]:
            for form, p in nli[record["question"]][f'{c["passage"]}\t{c["text"]}'].items():
                c["features"][form] = logit(p)
    return found


pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
retriever, nlp = pipeline.retriever, pipeline.reader.nlp
train = with_nli(featurize(records(run / "train.jsonl"), retriever, nlp))
rows, labels = labelled(train)
dev_rows, dev_labels = labelled(with_nli(featurize(records(run / "dev.jsonl"), retriever, nlp)))


print(f"train: {len(labels)} candidates, {sum(labels)} right; dev: {len(dev_labels)} candidates, {sum(dev_labels)} right\n")
print("| scorer | dev AUC | train, 5-fold out of fold |\n|---|---|---|")
print(f"| the 15 features (assets/verifier-1.5b.json's fit) | {auc([fit(rows, labels, names=FEATURES).p(r) for r in dev_rows], dev_labels):.3f} | {out_of_fold(train, FEATURES):.3f} |")
for form in forms:
    fitted = fit(rows, labels, names=FEATURES + (form,))
    print(f"| the 15 + NLI {form} | {auc([fitted.p(r) for r in dev_rows], dev_labels):.3f} | {out_of_fold(train, FEATURES + (form,)):.3f} |")
for form in forms:
    print(f"| NLI {form} alone | {auc([r[form] for r in dev_rows], dev_labels):.3f} | {auc([r[form] for r in rows], labels):.3f} (no fit) |")
below = [(r, y) for r, y in zip(dev_rows, dev_labels) if r["rank"] > 0]
print(f"| below the top passage ({len(below)} dev candidates): score / " + " / ".join(forms) + " | "
      + " / ".join(f"{auc([r[n] for r, _ in below], [y for _, y in below]):.3f}" for n in ("score", *forms)) + " | |")
if len(sys.argv) > 4:
    shipped = Verifier.load(VERIFIERS["1.5b"])
    setting = {k: getattr(shipped, k) for k in ("threshold", "more", "passages", "relevance", "branch_passages", "branch_min")}
    chosen = fit(rows, labels, names=FEATURES + (sys.argv[4],))
    print("\nweights (standardised):", {n: round(w, 2) for n, w in zip(chosen.names, chosen.weights)})
    Path(sys.argv[3]).write_text(json.dumps(replace(chosen, **setting).to_json(), indent=2) + "\n")
