"""ROC AUC of each score in a probe output (1.0: every right answer above every wrong one; 0.5: chance),
over all candidates and over those from passages below the top one.

    python docs/results/reader-verifier/auc.py docs/results/reader-verifier/dev.jsonl
"""
import json
import sys


def auc(labels, scores) -> float:
    """The share of (right, wrong) pairs the score orders right, ties counting half."""
    pos = [s for label, s in zip(labels, scores) if label]
    neg = [s for label, s in zip(labels, scores) if not label]
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


if __name__ == "__main__":
    rows = [r for line in open(sys.argv[1], encoding="utf-8") for r in json.loads(line)["candidates"]]
    keys = [k for k in rows[0] if k.startswith("p_")] + ["score"]
    for name, part in (("all", rows), ("rank > 0", [r for r in rows if r["rank"] > 0])):
        labels = [r["right"] for r in part]
        aucs = {k: round(auc(labels, [r[k] for r in part]), 3) for k in keys}
        print(f"{name}: {len(part)} candidates, {sum(labels)} right; AUC {aucs}")
