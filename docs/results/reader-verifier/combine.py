"""Per distinct answer of a question (its candidates from every passage folded by ``same_answer``): features
from the probe output, a logistic regression fitted on one probe output and applied to another, against
the shipped gate (passages within 90% of the best score, above 0.45, at most 4), before the rewrite
stage. Fitted on dev and applied to dev, as below, it is in-sample: an upper bound for a fitted scorer.

    PYTHONPATH=. python docs/results/reader-verifier/combine.py docs/results/reader-verifier/dev.jsonl docs/results/reader-verifier/dev.jsonl score,ratio,rank,support
    PYTHONPATH=. python docs/results/reader-verifier/combine.py docs/results/reader-verifier/dev.jsonl docs/results/reader-verifier/dev.jsonl

FEATURES: comma-separated names among those of ``features`` (default all). Prints the AUC on both sets
and, per threshold on the fitted probability, right and wrong answers kept on the second set.
"""
import json
import sys

import numpy as np
from scipy.optimize import minimize

from auc import auc
from ceiling import gated

from ambigdemo.stages.answers import same_answer
from ambigdemo.text import normalize_answer


def answers(path):
    for line in open(path, encoding="utf-8"):
        q = json.loads(line)
        top = q["top"]
        groups = []
        for c in q["candidates"]:
            key = normalize_answer(c["answer"])
            g = next((g for g in groups if same_answer(key, g["key"])), None)
            if g is None:
                groups.append(g := {"key": key, "question": q["question"], "rows": []})
            g["rows"].append(c)
        for g in groups:
            rows = g["rows"]
            g["right"] = any(r["right"] for r in rows)
            g["gate"] = any(gated(r, top) for r in rows)
            g["f"] = features(rows, top)
        yield q["id"], groups


def features(rows, top):
    best = max(rows, key=lambda r: r["score"])
    out = {"score": best["score"], "ratio": best["score"] / top, "rank": min(r["rank"] for r in rows),
           "support": np.log(len({r["rank"] for r in rows})), "p_reply": max(r["p_reply"] for r in rows)}
    for key in ("p_yes", "p_yes_fresh"):
        out[key] = max(r[key] for r in rows)
    return out


def matrix(groups, names):
    return np.array([[g["f"][n] for n in names] for g in groups]), np.array([g["right"] for g in groups], float)


def fit(x, y, l2=1.0):
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])

    def loss(w):
        p = 1 / (1 + np.exp(-z @ w))
        return -np.sum(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)) + l2 * np.sum(w[:-1] ** 2)

    w = minimize(loss, np.zeros(z.shape[1])).x
    return lambda x2: 1 / (1 + np.exp(-(np.hstack([(x2 - mu) / sd, np.ones((len(x2), 1))]) @ w))), w


train = [g for _, gs in answers(sys.argv[1]) for g in gs]
test = [g for _, gs in answers(sys.argv[2]) for g in gs]
names = sys.argv[3].split(",") if len(sys.argv) > 3 else list(train[0]["f"])
xtr, ytr = matrix(train, names)
xte, yte = matrix(test, names)
model, w = fit(xtr, ytr)
ptr, pte = model(xtr), model(xte)
print(f"features {names}, weights {np.round(w, 2).tolist()}")
print(f"AUC: fitted set {auc(ytr, ptr):.3f}, other set {auc(yte, pte):.3f}; answers {len(test)}, right {int(yte.sum())}")
gate = np.array([g["gate"] for g in test])
print(f"shipped gate: right {int((gate & (yte == 1)).sum())}, wrong {int((gate & (yte == 0)).sum())}")
for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
    keep = pte >= t
    print(f"p >= {t}: right {int((keep & (yte == 1)).sum())}, wrong {int((keep & (yte == 0)).sum())}")
