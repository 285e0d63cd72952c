"""Tune the answer finder's weights and thresholds on AmbigNQ train questions the corpus supports.

Reproducible: the supported subset is every train question whose first annotation's gold answers
all occur (normalised) in its top-k retrieved passages; unsupported questions teach the null answer.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import asdict, replace
from pathlib import Path

from tqdm import tqdm

from ambigdemo.datasets import load_ambignq
from ambigdemo.metrics import answer_f1
from ambigdemo.stages.answers import AnswerFinder, Weights, cluster
from ambigdemo.text import normalize_answer


def gold_answers(example) -> list[list[str]]:
    """The first annotation's answers, each a list of aliases."""
    ann = example.annotations[0]
    return [qa.answers for qa in ann.qa_pairs] if ann.qa_pairs else [ann.answers]


def supported(passages, answers: list[list[str]]) -> bool:
    text = f" {normalize_answer(' '.join(p.title + ' ' + p.text for p in passages))} "
    return all(any(f" {normalize_answer(a)} " in text for a in aliases if normalize_answer(a)) for aliases in answers)


def collect(retriever, finder: AnswerFinder, data: Path, k: int, n_null: int, seed: int = 0) -> list[dict]:
    """Candidates with features for supported questions plus ``n_null`` unsupported ones."""
    examples = load_ambignq(data)
    hits = retriever.batch_search([e.question for e in examples], k)
    rows, null = [], []
    for example, passages in zip(examples, hits):
        answers = gold_answers(example)
        (rows if supported(passages, answers) else null).append((example, passages, answers))
    random.Random(seed).shuffle(null)
    chosen = rows + null[:n_null]
    out = []
    for example, passages, answers in tqdm(chosen, desc="candidates"):
        cands = finder.candidates(example.question, passages)
        out.append({"answers": answers, "supported": (example, passages, answers) in rows, "candidates": cands})
    return out


def evaluate(items: list[dict], finder: AnswerFinder) -> dict[str, float]:
    """Answer F1 on supported questions (all / multi-answer), null accuracy on unsupported ones."""
    f1, f1_multi, null_ok, n_pred = [], [], [], []
    for item in items:
        for c in item["candidates"]:
            c.score = finder.weights.score(c.features)
        predicted = [a.text for a in finder.select(cluster(item["candidates"]))]
        if item["supported"]:
            score = answer_f1(item["answers"], predicted)
            f1.append(score)
            n_pred.append(len(predicted))
            if len(item["answers"]) > 1:
                f1_multi.append(score)
        else:
            null_ok.append(float(not predicted))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {"f1": mean(f1), "f1_multi": mean(f1_multi), "null_acc": mean(null_ok), "mean_pred": mean(n_pred)}


def grid(items: list[dict], finder: AnswerFinder) -> tuple[AnswerFinder, dict]:
    """Exhaustive search over a small grid; objective F1 + 0.5 * null accuracy."""
    best, best_obj, best_metrics = finder, -1.0, {}
    steps = [0.0, 0.15, 0.3, 0.45]
    for p, s, o, x, t in tqdm(list(itertools.product(steps, steps, steps, steps, [0.0, 0.15, 0.3])), desc="weights"):
        weights = Weights(p, s, o, x, t)
        for ratio in (0.8, 0.9, 0.95, 1.0):
            for min_score in (0.2, 0.3, 0.4, 0.5, 0.6):
                trial = replace(finder, weights=weights, keep_ratio=ratio, min_score=min_score)
                m = evaluate(items, trial)
                obj = m["f1"] + 0.5 * m["null_acc"]
                if obj > best_obj:
                    best, best_obj, best_metrics = trial, obj, m
    return best, best_metrics


def report(finder: AnswerFinder, metrics: dict) -> str:
    return json.dumps({"weights": asdict(finder.weights), "keep_ratio": finder.keep_ratio,
                       "min_score": finder.min_score, **metrics}, indent=2)
