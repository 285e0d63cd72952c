"""Tune the heuristic reader's weights and thresholds on AmbigNQ train questions the corpus supports.

Reproducible: the supported subset is every train question whose first annotation's gold answers
all occur (normalised) in its top-k retrieved passages; a seeded sample of the unsupported ones
teaches the null answer. Candidates and their clusters are computed once; the search
then only re-weights features (coordinate ascent from the shipped weights).
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from tqdm import tqdm

from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.evaluation.metrics import answer_f1
from ambigdemo.stages.answers import HeuristicReader, Cluster, Weights, cluster
from ambigdemo.text import passages_text, phrase_keys

STEPS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0)
GRIDS = {
    "keep_ratio": (0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0),
    "min_score": tuple(round(0.3 + 0.05 * i, 2) for i in range(21)),
}


@dataclass
class Item:
    """One tuning question: gold answers, whether the corpus supports them, and its clusters."""

    question: str
    answers: list[list[str]]
    supported: bool
    clusters: list[Cluster]


def gold_answers(example) -> list[list[str]]:
    """The first annotation's answers, each a list of aliases."""
    ann = example.annotations[0]
    return [qa.answers for qa in ann.qa_pairs] if ann.qa_pairs else [ann.answers]


def supported(passages, answers: list[list[str]]) -> bool:
    text = passages_text(passages)
    return all(any(k in text for k in phrase_keys(aliases)) for aliases in answers)


def collect(retriever, heuristic: HeuristicReader, data: Path, k: int, n_supported: int, n_null: int, seed: int = 0) -> list[Item]:
    """Scored candidate clusters for a seeded sample of questions.

    All multi-answer supported questions are kept; single-answer supported ones and unsupported
    ones are sampled up to ``n_supported`` and ``n_null``.
    """
    examples = load_ambignq(data)
    hits = retriever.batch_search([e.question for e in examples], k)
    multi, single, null = [], [], []
    for example, passages in zip(examples, hits):
        answers = gold_answers(example)
        bucket = (multi if len(answers) > 1 else single) if supported(passages, answers) else null
        bucket.append((example, passages, answers))
    rng = random.Random(seed)
    rng.shuffle(single)
    rng.shuffle(null)
    chosen = [(x, True) for x in multi + single[: max(0, n_supported - len(multi))]] + [(x, False) for x in null[:n_null]]
    items = []
    for (example, passages, answers), is_supported in tqdm(chosen, desc="candidates"):
        items.append(Item(example.question, answers, is_supported, cluster(heuristic.mentions(example.question, passages))))
    return items


def evaluate(items: list[Item], heuristic: HeuristicReader) -> dict[str, float]:
    """Answer F1 on supported questions (all / multi-answer), null accuracy on unsupported ones."""
    f1, f1_multi, null_ok, n_pred, n_gold = [], [], [], [], []
    for item in items:
        for c in item.clusters:
            for m in c.mentions:
                m.score = heuristic.weights.score(m.features)
        predicted = [a.text for a in heuristic.select(sorted(item.clusters, key=lambda c: -c.score))]
        if item.supported:
            score = answer_f1(item.answers, predicted)
            f1.append(score)
            n_pred.append(len(predicted))
            n_gold.append(len(item.answers))
            if len(item.answers) > 1:
                f1_multi.append(score)
        else:
            null_ok.append(float(not predicted))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {
        "f1": mean(f1),
        "f1_multi": mean(f1_multi),
        "null_acc": mean(null_ok),
        "mean_pred": mean(n_pred),
        "mean_gold": mean(n_gold),
        "n_supported": len(f1),
        "n_multi": len(f1_multi),
        "n_null": len(null_ok),
    }


def objective(m: dict[str, float]) -> float:
    """F1 over supported questions, multi-answer F1 counted again at half weight, plus null accuracy at half weight."""
    return m["f1"] + 0.5 * m["f1_multi"] + 0.5 * m["null_acc"]


def search(items: list[Item], heuristic: HeuristicReader, rounds: int = 3) -> tuple[HeuristicReader, dict]:
    """Coordinate ascent over each weight (``STEPS``) and threshold (``GRIDS``), ``rounds`` passes."""
    best, best_metrics = heuristic, evaluate(items, heuristic)
    weight_names = [f.name for f in fields(Weights)]
    for _ in tqdm(range(rounds), desc="search"):
        for name in weight_names + list(GRIDS):
            for value in GRIDS.get(name, STEPS):
                trial = _with(best, name, value)
                m = evaluate(items, trial)
                if objective(m) > objective(best_metrics) + 1e-9:
                    best, best_metrics = trial, m
    return best, best_metrics


def _with(heuristic: HeuristicReader, name: str, value: float) -> HeuristicReader:
    if name in ("keep_ratio", "min_score"):
        return replace(heuristic, **{name: value})
    return replace(heuristic, weights=replace(heuristic.weights, **{name: value}))


def report(heuristic: HeuristicReader, metrics: dict, baseline: dict) -> str:
    return json.dumps(
        {
            "weights": asdict(heuristic.weights),
            "keep_ratio": heuristic.keep_ratio,
            "min_score": heuristic.min_score,
            "tuned": metrics,
            "shipped": baseline,
        },
        indent=2,
    )


THRESHOLDS = tuple(round(0.3 + 0.025 * i, 3) for i in range(41))


def threshold_baseline(retriever, heuristic: HeuristicReader, data: Path, k: int) -> tuple[HeuristicReader, dict]:
    """AmbigQA's thresholding baseline: every reader answer above one score threshold (no relative
    cut), the threshold chosen for answer F1 on the supported multi-answer subset of ``data``
    (:func:`ambigdemo.evaluation.support.supported_subset`). Returns the heuristic and what the search saw."""
    from ambigdemo.evaluation.support import SupportIndex, supported_subset

    subset = supported_subset(load_ambignq(data), SupportIndex(retriever.index.passages))
    hits = retriever.batch_search([s.question for s in subset], k)
    items = [
        Item(s.question, s.answers, True, cluster(heuristic.mentions(s.question, passages)))
        for s, passages in zip(tqdm(subset, desc="threshold baseline: train candidates"), hits)
    ]
    trials = {t: evaluate(items, replace(heuristic, keep_ratio=0.0, min_score=t)) for t in THRESHOLDS}
    best = max(THRESHOLDS, key=lambda t: (trials[t]["f1"], -t))
    return replace(heuristic, keep_ratio=0.0, min_score=best), {"data": str(data), "threshold": best, "train": trials[best]}
