"""Leaderboard of pairwise human judgments: ASQA scores, Bradley-Terry strengths, bias and agreement.

Pure analysis on a list of ``Judgment``; no UI, no store access. Scoring rules:

* ``skip`` judgments are excluded everywhere. ``both_bad`` counts as a tie on ``overall`` (neither
  answer is preferred), keeps its ACC ticks and judges neither comprehensiveness nor fluency
  (``Judgment.label``; labels a pre-v2 database stored on it are never read).
* COMP, FLUE, HO (ASQA section 5): per criterion a system scores 1 when preferred, 0.5 on a tie and
  0 otherwise, averaged over the judgments that judged that criterion, as a percentage.
* ACC: ticked interpretations over all interpretations shown for the system's answers, in percent.
* Strengths: Bradley-Terry maximum likelihood on ``overall`` (ties are half a win each way), on an
  Elo-like scale ``1000 + 400 * log10(strength)`` with the mean system at 1000, so a 3:1 win ratio is
  ``400 * log10(3)`` = 190.85 points. A tiny ridge (``l2``) keeps a never-beaten system finite.
  95% intervals come from a bootstrap over judgments, drawn as multinomial counts on the table of
  distinct (pair, outcome) cells and fitted for all rounds at once. An interval always holds its
  estimate: with few judgments a percentile often falls on a round that redrew the judgments as
  they were, and that batched refit can land 1e-11 beside the single fit (matplotlib then refused
  the negative error bar).
* Position bias: the share of non-tie ``overall`` votes won by the system shown on the left.
* Agreement: Cohen's kappa on ``overall`` over every two annotators of one pair (``agreement``
  has alpha, Fleiss' kappa and intervals per criterion).
* Attention-check pairs (``check:`` systems) never enter the leaderboard.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ambigdemo.judging.agreement import is_attention, overall_kappa
from ambigdemo.judging.judgment import CRITERIA, Judgment

ELO_SCALE = 400 / math.log(10)
ELO_ANCHOR = 1000.0
L2 = 1e-4
_POINTS = {"A": 1.0, "tie": 0.5, "B": 0.0}
_STEPS = 0.5 ** np.arange(8)


@dataclass(frozen=True)
class SystemScore:
    """One leaderboard row; percentages are in [0, 100], ``None`` where no judgment gave the
    criterion a label (``acc``: no ACC ticks)."""

    system: str
    n: int
    comp: float | None
    flue: float | None
    ho: float
    acc: float | None
    strength: float
    lower: float
    upper: float


@dataclass(frozen=True)
class Leaderboard:
    """Systems best first, with the pairwise win rates (row beats column) and quality checks."""

    systems: list[SystemScore]
    win_rate: dict[str, dict[str, float | None]]
    position_bias: float | None
    position_bias_n: int
    kappa: float | None
    kappa_n: int
    n_judgments: int
    n_skipped: int
    rounds: int

    def to_dict(self) -> dict:
        return asdict(self)

    def to_markdown(self) -> str:
        lines = [
            "| Rank | System | Strength (95% CI) | HO % | COMP % | FLUE % | ACC % | n |",
            "|---:|---|---|---:|---:|---:|---:|---:|",
        ]
        for rank, s in enumerate(self.systems, start=1):
            comp, flue, acc = ("–" if x is None else f"{x:.1f}" for x in (s.comp, s.flue, s.acc))
            lines.append(
                f"| {rank} | {s.system} | {s.strength:.0f} ({s.lower:.0f}–{s.upper:.0f}) | {s.ho:.1f} "
                f"| {comp} | {flue} | {acc} | {s.n} |"
            )
        lines += ["", f"{self.n_judgments} judgments ({self.n_skipped} skipped, not counted); "
                      f"intervals from {self.rounds} bootstrap rounds.",
                  f"Left side wins {_percent(self.position_bias)} of {self.position_bias_n} decided votes; "
                  f"Cohen's kappa {_fmt(self.kappa)} over {self.kappa_n} doubly judged pairs."]
        if self.systems:
            lines += ["", self._win_rate_markdown()]
        return "\n".join(lines)

    def _win_rate_markdown(self) -> str:
        names = [s.system for s in self.systems]
        rows = ["| row beats column | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for a in names:
            cells = ("" if a == b else _fmt(self.win_rate[a][b]) for b in names)
            rows.append(f"| {a} | " + " | ".join(cells) + " |")
        return "\n".join(rows)


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _percent(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


@dataclass(frozen=True)
class _Table:
    """Counted judgments as arrays: system indices, A's points per criterion (NaN: not judged), sides
    and ACC ticks."""

    systems: list[str]
    a: np.ndarray
    b: np.ndarray
    points: np.ndarray
    left_is_a: np.ndarray
    decided_vote: np.ndarray
    acc: np.ndarray

    @classmethod
    def build(cls, judgments: Sequence[Judgment]) -> "_Table":
        systems = sorted({s for j in judgments for s in (j.system_a, j.system_b)})
        index = {s: i for i, s in enumerate(systems)}
        rows = [
            (index[j.system_a], index[j.system_b], *(_POINTS.get(j.label(c), np.nan) for c in CRITERIA),
             j.left_is == j.system_a, j.verdict == "vote" and j.overall != "tie",
             len(j.acc_a), j.acc_a_total, len(j.acc_b), j.acc_b_total)
            for j in judgments
        ]
        m = np.array(rows, dtype=np.float64).reshape(len(rows), 11)
        return cls(systems, m[:, 0].astype(np.intp), m[:, 1].astype(np.intp), m[:, 2:5],
                   m[:, 5].astype(bool), m[:, 6].astype(bool), m[:, 7:11])

    @property
    def k(self) -> int:
        return len(self.systems)

    def per_system(self, values_a: np.ndarray, values_b: np.ndarray) -> np.ndarray:
        """Sum over judgments of a value credited to side A's and side B's system."""
        return _bincount(self.a, values_a, self.k) + _bincount(self.b, values_b, self.k)

    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (first, second, outcome) cells of ``overall`` with their counts; first < second.

        Outcome 0: first wins, 1: tie, 2: second wins.
        """
        first, second = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        score_first = np.where(self.a < self.b, self.points[:, 2], 1.0 - self.points[:, 2])
        outcome = np.rint(2 * (1.0 - score_first)).astype(np.intp)
        codes, counts = np.unique((first * self.k + second) * 3 + outcome, return_counts=True)
        return codes, counts

    def wins_design(self, codes: np.ndarray) -> np.ndarray:
        """Matrix mapping cell counts to a flattened wins matrix ``W[i, j]`` (ties half to each)."""
        pair, outcome = np.divmod(codes, 3)
        first, second = np.divmod(pair, self.k)
        design = np.zeros((len(codes), self.k * self.k))
        rows = np.arange(len(codes))
        design[rows, first * self.k + second] = 1.0 - outcome / 2.0
        design[rows, second * self.k + first] = outcome / 2.0
        return design


def _bincount(index: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(index, weights=weights, minlength=k)


def compute_leaderboard(judgments: Iterable[Judgment], rounds: int = 1000, seed: int = 0,
                        l2: float = L2, exclude: Iterable[str] = ()) -> Leaderboard:
    """The full leaderboard; ``rounds=0`` skips the bootstrap (intervals collapse to the estimate).

    Attention-check judgments never count; ``exclude`` names annotators left out (e.g. flagged ones).
    """
    exclude = set(exclude)
    judgments = [j for j in judgments if not is_attention(j) and j.annotator not in exclude]
    counted = [j for j in judgments if j.verdict != "skip"]
    n_skipped = len(judgments) - len(counted)
    if not counted:
        return Leaderboard([], {}, None, 0, None, 0, 0, n_skipped, rounds)
    table = _Table.build(counted)
    strength, lower, upper = _strengths(table, rounds, np.random.default_rng(seed), l2)
    rows = _system_rows(table, strength, lower, upper)
    bias, bias_n = position_bias(table)
    kappa, kappa_n = overall_kappa(counted)
    return Leaderboard(rows, _win_rates(table), bias, bias_n, kappa, kappa_n, len(counted), n_skipped, rounds)


def _system_rows(table: _Table, strength: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> list[SystemScore]:
    ones = np.ones(len(table.a))
    n = table.per_system(ones, ones)
    judged = ~np.isnan(table.points)
    points = np.where(judged, table.points, 0.0)
    scores = np.stack([table.per_system(points[:, c], judged[:, c] - points[:, c]) for c in range(3)], axis=1)
    counts = np.stack([table.per_system(judged[:, c], judged[:, c]) for c in range(3)], axis=1)
    scores = 100 * np.divide(scores, counts, out=np.full_like(scores, np.nan), where=counts > 0)
    ticked = table.per_system(table.acc[:, 0], table.acc[:, 2])
    shown = table.per_system(table.acc[:, 1], table.acc[:, 3])
    rows = [
        SystemScore(name, int(n[i]), *(None if np.isnan(x) else float(x) for x in scores[i]),
                    float(100 * ticked[i] / shown[i]) if shown[i] else None,
                    float(strength[i]), float(lower[i]), float(upper[i]))
        for i, name in enumerate(table.systems)
    ]
    return sorted(rows, key=lambda r: (-r.strength, r.system))


def _strengths(table: _Table, rounds: int, rng: np.random.Generator, l2: float) -> tuple[np.ndarray, ...]:
    """Elo-scale Bradley-Terry estimate and 95% bootstrap interval per system."""
    codes, counts = table.cells()
    design = table.wins_design(codes)
    k = table.k
    estimate = to_elo(fit_bradley_terry((counts @ design).reshape(k, k), l2))
    if rounds <= 0:
        return estimate, estimate, estimate
    boot_counts = rng.multinomial(counts.sum(), counts / counts.sum(), size=rounds).astype(np.float64)
    boot = to_elo(fit_bradley_terry((boot_counts @ design).reshape(rounds, k, k), l2))
    lower, upper = np.percentile(boot, [2.5, 97.5], axis=0)
    return estimate, np.minimum(lower, estimate), np.maximum(upper, estimate)


def to_elo(theta: np.ndarray) -> np.ndarray:
    """Natural-log strengths to the Elo-like scale, the mean system at ``ELO_ANCHOR``."""
    return ELO_ANCHOR + ELO_SCALE * (theta - theta.mean(axis=-1, keepdims=True))


def fit_bradley_terry(wins: np.ndarray, l2: float = L2, max_iter: int = 100, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry log-strengths maximising the likelihood of ``wins[..., i, j]`` (i beat j).

    Damped Newton on the concave log-likelihood, batched over leading axes: each iteration tries the
    step sizes 1, 1/2, ... 1/128 and keeps the largest that does not lower the objective. A penalty
    on the sum pins the mean at 0; ``l2 > 0`` keeps strengths finite when a system never loses and
    ties disconnected groups of systems together (``l2=0`` gives the exact MLE when it exists).
    """
    wins = np.asarray(wins, dtype=np.float64)
    theta = np.zeros(wins.shape[:-1])
    games = wins + np.swapaxes(wins, -1, -2)
    for _ in range(max_iter):
        step = _newton_step(theta, wins, games, l2)
        candidates = theta[..., None, :] + _STEPS[:, None] * step[..., None, :]
        gain = _objective(candidates, wins[..., None, :, :], l2) >= _objective(theta, wins, l2)[..., None]
        size = np.where(gain.any(axis=-1), _STEPS[np.argmax(gain, axis=-1)], 0.0)
        move = size[..., None] * step
        theta = theta + move
        if np.abs(move).max() < tol:
            break
    return theta


def _newton_step(theta: np.ndarray, wins: np.ndarray, games: np.ndarray, l2: float) -> np.ndarray:
    p = _sigmoid(theta[..., :, None] - theta[..., None, :])
    total = theta.sum(axis=-1, keepdims=True)
    grad = (wins - games * p).sum(axis=-1) - l2 * theta - total
    k = theta.shape[-1]
    curvature = games * p * np.swapaxes(p, -1, -2)
    neg_hessian = -curvature + np.eye(k) * (curvature.sum(axis=-1)[..., None] + l2) + 1.0
    return np.linalg.solve(neg_hessian, grad[..., None])[..., 0]


def _objective(theta: np.ndarray, wins: np.ndarray, l2: float) -> np.ndarray:
    diff = theta[..., :, None] - theta[..., None, :]
    loglik = -(wins * np.logaddexp(0.0, -diff)).sum(axis=(-1, -2))
    return loglik - 0.5 * l2 * (theta**2).sum(axis=-1) - 0.5 * theta.sum(axis=-1) ** 2


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _win_rates(table: _Table) -> dict[str, dict[str, float | None]]:
    codes, counts = table.cells()
    wins = (counts @ table.wins_design(codes)).reshape(table.k, table.k)
    games = wins + wins.T
    return {
        a: {b: float(wins[i, j] / games[i, j]) if games[i, j] else None
            for j, b in enumerate(table.systems) if j != i}
        for i, a in enumerate(table.systems)
    }


def position_bias(table: _Table) -> tuple[float | None, int]:
    """Share of decided ``overall`` votes (no tie, no both_bad) won by the left side, and their number."""
    decided = table.decided_vote
    n = int(decided.sum())
    if not n:
        return None, 0
    a_won = table.points[decided, 2] == 1.0
    return float(np.mean(a_won == table.left_is_a[decided])), n


def plot_strengths(leaderboard: Leaderboard, path: str | Path) -> Path:
    """PNG of each system's strength with its 95% interval as error bars, best first."""
    from matplotlib.figure import Figure

    rows = leaderboard.systems
    fig = Figure(figsize=(max(4.0, 1.1 * len(rows) + 2), 4), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(rows))
    values = np.array([r.strength for r in rows])
    errors = np.array([[r.strength - r.lower for r in rows], [r.upper - r.strength for r in rows]])
    ax.errorbar(x, values, yerr=errors, fmt="o", capsize=4)
    ax.set_xticks(x, [r.system for r in rows], rotation=30, ha="right")
    ax.axhline(ELO_ANCHOR, color="grey", lw=0.8, ls="--")
    ax.set_ylabel("Bradley-Terry strength (Elo scale)")
    ax.set_title(f"{leaderboard.n_judgments} judgments, 95% bootstrap intervals")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path
