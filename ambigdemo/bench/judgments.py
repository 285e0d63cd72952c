"""Benchmark of the judgment store and the leaderboard, plus the synthetic judgments both use."""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ambigdemo.judging.agreement import agreement
from ambigdemo.judging.rating import compute_leaderboard
from ambigdemo.judging.judgment import Judgment, pair_id
from ambigdemo.judging.store import JudgmentStore

LABELS = ("A", "tie", "B")


def synthetic_judgments(n: int, strengths: Sequence[float], seed: int = 0, tie_rate: float = 0.1,
                        annotators: int = 50, prefix: str = "") -> list[Judgment]:
    """``n`` judgments of systems ``s0, s1, ...`` whose Bradley-Terry log-strengths are ``strengths``.

    Each judgment draws two systems at random (random left side); ``overall`` is a tie with
    probability ``tie_rate``, else A wins with probability ``sigmoid(strength_a - strength_b)``.
    """
    rng = np.random.default_rng(seed)
    theta = np.asarray(strengths, dtype=np.float64)
    k = len(theta)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p_a = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
    u = rng.random(n)
    outcome = np.where(u < tie_rate, 1, np.where(rng.random(n) < p_a, 0, 2))
    fluency = rng.integers(0, 3, n)
    judgments = []
    for i in range(n):
        sa, sb, question = f"s{a[i]}", f"s{b[i]}", f"question {i}"
        key = f"{prefix}{seed}-{i}"
        judgments.append(Judgment(
            id=key, client_key=key, question=question, pair_id=pair_id(question, sa, sb),
            system_a=sa, system_b=sb, answer_a="{}", answer_b="{}", left_is=sa,
            annotator=f"annotator-{i % annotators}", acc_a=[0], acc_a_total=2, acc_b=[], acc_b_total=2,
            comprehensiveness=LABELS[outcome[i]], fluency=LABELS[fluency[i]], overall=LABELS[outcome[i]],
            created_at="2024-01-01T00:00:00.000000+00:00",
        ))
    return judgments


def write_concurrently(store: JudgmentStore, judgments: Sequence[Judgment], n_writers: int) -> float:
    """Store ``judgments`` from ``n_writers`` threads (one connection each); returns seconds taken."""
    shares = [judgments[w::n_writers] for w in range(n_writers)]
    threads = [threading.Thread(target=lambda s=share: [store.add(j) for j in s]) for share in shares]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def _write_rate(n_writers: int, n_judgments: int, seed: int) -> float:
    judgments = synthetic_judgments(n_judgments, [0.0, 0.5, 1.0], seed=seed, annotators=n_judgments)
    with tempfile.TemporaryDirectory() as tmp:
        store = JudgmentStore(Path(tmp) / "bench.sqlite")
        seconds = write_concurrently(store, judgments, n_writers)
        assert store.count() == n_judgments
        store.close()
    return n_judgments / seconds


def _leaderboard_seconds(judgments: list[Judgment], rounds: int) -> float:
    start = time.perf_counter()
    compute_leaderboard(judgments, rounds=rounds)
    return time.perf_counter() - start


def _agreement_seconds(n_pairs: int, rounds: int) -> float:
    """Agreement on ``n_pairs`` pairs judged by two annotators each (two synthetic populations' votes)."""
    first = synthetic_judgments(n_pairs, [0.0, 0.3, 0.6, 1.0, 1.5], seed=1)
    second = synthetic_judgments(n_pairs, [0.0, 0.3, 0.6, 1.0, 1.5], seed=2)
    twice = first + [Judgment.new(question=a.question, system_a=a.system_a, system_b=a.system_b, answer_a="{}",
                                  answer_b="{}", annotator=a.annotator + "-2",
                                  comprehensiveness=b.comprehensiveness, fluency=b.fluency, overall=b.overall)
                     for a, b in zip(first, second)]
    start = time.perf_counter()
    agreement(twice, rounds=rounds)
    return time.perf_counter() - start


def run(n_writers: int = 8, n_judgments: int = 1_000, leaderboard_n: int = 100_000, rounds: int = 1000,
        repeats: int = 3, agreement_pairs: int = 20_000, agreement_rounds: int = 200) -> dict:
    """Median over ``repeats`` runs of the store's write rate and the leaderboard's and agreement's compute times."""
    rates = [_write_rate(n_writers, n_judgments, seed) for seed in range(repeats)]
    population = synthetic_judgments(leaderboard_n, [0.0, 0.3, 0.6, 1.0, 1.5])
    seconds = [_leaderboard_seconds(population, rounds) for _ in range(repeats)]
    agreeing = [_agreement_seconds(agreement_pairs, agreement_rounds) for _ in range(repeats)]
    return {
        "store_writers": n_writers,
        "store_judgments": n_judgments,
        "store_judgments_per_s": round(statistics.median(rates), 1),
        "store_synchronous": "FULL",
        "leaderboard_judgments": leaderboard_n,
        "leaderboard_systems": 5,
        "leaderboard_rounds": rounds,
        "leaderboard_s": round(statistics.median(seconds), 3),
        "agreement_pairs": agreement_pairs,
        "agreement_rounds": agreement_rounds,
        "agreement_s": round(statistics.median(agreeing), 3),
    }
