"""Agreement between annotators, and between annotators and automatic metrics.

An *item* is one pair (question, two systems) judged on one criterion. Each annotator's label is
oriented to the pair's canonical (sorted) system order, as an ordinal value: -1 the first system is
better, 0 tie, +1 the second one is better; ``both_bad`` is a tie on ``overall`` and judges no
other criterion. Only each
annotator's earliest counted judgment of a pair is used, and attention-check pairs are left out.

* Krippendorff's alpha, ordinal (``krippendorff``), over every item with two or more labels.
* Fleiss' kappa (``statsmodels``), nominal, over the items with the most common number of labels
  (it needs the same number of raters per item).
* Cohen's kappa over every two annotators of one item (the earlier one is rater 1).
* 95% intervals: a bootstrap over items (percentiles of ``rounds`` resamples), always holding the
  estimate.
* With automatic scores per (system, question), the share of decided ``overall`` votes where the
  human winner is also the system the metric scores higher (pairs the metric ties are left out).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from ambigdemo.judging.judgment import CRITERIA, Judgment

if TYPE_CHECKING:
    from ambigdemo.judging.predictions import GoldQuestion
    from ambigdemo.evaluation.metrics import Reader
    from ambigdemo.judging.systems import SystemAnswer

ATTENTION_PREFIX = "check:"
_ORIENTED = {"A": -1, "tie": 0, "B": 1}


@dataclass(frozen=True)
class Estimate:
    """A statistic, its 95% bootstrap interval and the number of items it was computed on."""

    value: float | None
    lower: float | None
    upper: float | None
    n: int


@dataclass(frozen=True)
class CriterionAgreement:
    criterion: str
    alpha: Estimate
    fleiss: Estimate
    cohen: Estimate
    raters_per_item: int

    def to_dict(self) -> dict:
        return asdict(self)


def is_attention(j: Judgment) -> bool:
    """Whether ``j`` judged an attention-check pair (not a real system comparison)."""
    return j.system_a.startswith(ATTENTION_PREFIX) or j.system_b.startswith(ATTENTION_PREFIX)


def label(j: Judgment, criterion: str) -> int | None:
    """``j``'s ordinal label on ``criterion``, oriented to the sorted system order; ``None`` if not judged."""
    value = j.label(criterion)
    if value is None:
        return None
    oriented = _ORIENTED[value]
    return oriented if j.system_a < j.system_b else -oriented


def items(judgments: Iterable[Judgment], criterion: str) -> list[list[int]]:
    """Labels per item (two or more annotators), each annotator's earliest counted judgment; a
    judgment that did not judge ``criterion`` (a both-bad verdict's fluency) gives no label."""
    first: dict[str, dict[str, Judgment]] = defaultdict(dict)
    for j in sorted(judgments, key=lambda j: (j.created_at, j.id)):
        if j.counted and not is_attention(j):
            first[j.pair_id].setdefault(j.annotator, j)
    rows = [[x for x in (label(j, criterion) for j in by_annotator.values()) if x is not None]
            for by_annotator in first.values()]
    return [r for r in rows if len(r) >= 2]


def label_counts(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """Items x (-1, 0, +1): how many annotators gave each label to each item."""
    counts = np.zeros((len(rows), 3))
    for i, r in enumerate(rows):
        np.add.at(counts[i], np.asarray(r, dtype=np.intp) + 1, 1)
    return counts


def pair_tables(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """Items x 3 x 3: for every two annotators of an item (earlier first), their two labels."""
    tables = np.zeros((len(rows), 3, 3))
    for i, r in enumerate(rows):
        for x, y in combinations(r, 2):
            tables[i, x + 1, y + 1] += 1
    return tables


def _varied(counts: np.ndarray) -> bool:
    return int((counts.sum(axis=0) > 0).sum()) >= 2


def _alpha(counts: np.ndarray) -> float | None:
    import krippendorff

    if not len(counts) or not _varied(counts):
        return None
    return float(krippendorff.alpha(value_counts=counts, level_of_measurement="ordinal", value_domain=[-1, 0, 1]))


def _fleiss(counts: np.ndarray) -> float | None:
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    if not len(counts) or not _varied(counts):
        return None
    return float(statsmodels_fleiss(counts))


def _cohen(tables: np.ndarray) -> float | None:
    table = tables.sum(axis=0)
    n = table.sum()
    if not n:
        return None
    chance = float(table.sum(axis=1) @ table.sum(axis=0)) / n**2
    if chance >= 1.0:
        return None
    return (float(np.trace(table)) / n - chance) / (1.0 - chance)


def krippendorff_alpha(rows: Sequence[Sequence[int]]) -> float | None:
    """Ordinal alpha of items given as label lists; ``None`` when undefined (no variation)."""
    return _alpha(label_counts(rows))


def fleiss_kappa(rows: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa of items that all have the same number of labels; ``None`` when undefined."""
    return _fleiss(label_counts(rows))


def cohen_kappa(pairs: Sequence[tuple[object, object]]) -> float | None:
    """Cohen's kappa of (rater 1, rater 2) labels; ``None`` when undefined (no items or chance = 1)."""
    values = {v: i for i, v in enumerate(sorted({str(v) for pair in pairs for v in pair}))}
    table = np.zeros((1, len(values), len(values)))
    for x, y in pairs:
        table[0, values[str(x)], values[str(y)]] += 1
    return _cohen(table)


def overall_kappa(judgments: Iterable[Judgment]) -> tuple[float | None, int]:
    """Cohen's kappa on ``overall`` over every two annotators of a pair, and how many such pairs."""
    tables = pair_tables(items(judgments, "overall"))
    return _cohen(tables), int(tables.sum())


def _bootstrap(data: np.ndarray, statistic: Callable[[np.ndarray], float | None], rounds: int,
               rng: np.random.Generator, n: int) -> Estimate:
    """``statistic`` of the items in ``data`` and a percentile interval over items drawn with replacement."""
    value = statistic(data)
    if value is None or rounds <= 0:
        return Estimate(value, value, value, n)
    draws = [statistic(data[rng.integers(0, len(data), len(data))]) for _ in range(rounds)]
    draws = np.array([d for d in draws if d is not None])
    if not len(draws):
        return Estimate(value, value, value, n)
    lower, upper = np.percentile(draws, [2.5, 97.5])
    return Estimate(value, float(min(lower, value)), float(max(upper, value)), n)


def agreement(judgments: Iterable[Judgment], rounds: int = 1000, seed: int = 0) -> list[CriterionAgreement]:
    """Alpha, Fleiss' kappa and Cohen's kappa per criterion, with bootstrap intervals."""
    judgments = list(judgments)
    rng = np.random.default_rng(seed)
    out = []
    for criterion in CRITERIA:
        rows = items(judgments, criterion)
        counts, tables = label_counts(rows), pair_tables(rows)
        sizes = counts.sum(axis=1)
        values, freq = np.unique(sizes, return_counts=True)
        modal = int(values[np.argmax(freq)]) if len(values) else 0  # np.unique sorts: ties go to fewer raters
        even = counts[sizes == modal]
        out.append(CriterionAgreement(
            criterion,
            _bootstrap(counts, _alpha, rounds, rng, len(rows)),
            _bootstrap(even, _fleiss, rounds, rng, len(even)),
            _bootstrap(tables, _cohen, rounds, rng, int(tables.sum())),
            modal,
        ))
    return out


@dataclass(frozen=True)
class MetricAgreement:
    """How often the annotators' ``overall`` winner is the system a metric scores higher."""

    metric: str
    agree: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None


def metric_agreement(judgments: Iterable[Judgment], metric: str,
                     scores: Mapping[tuple[str, str], float], key: Callable[[str], str]) -> MetricAgreement:
    """Decided ``overall`` votes whose winner the metric also ranks higher; ``scores[(system, key(question))]``."""
    agree = n = 0
    for j in judgments:
        if j.verdict != "vote" or j.overall == "tie" or is_attention(j):
            continue
        a, b = scores.get((j.system_a, key(j.question))), scores.get((j.system_b, key(j.question)))
        if a is None or b is None or a == b:
            continue
        n += 1
        agree += (a > b) == (j.overall == "A")
    return MetricAgreement(metric, agree, n)


def metric_scores(answers: Iterable["SystemAnswer"], gold: Mapping[str, "GoldQuestion"],
                  key: Callable[[str], str], reader: "Reader | None" = None) -> dict[str, dict[tuple[str, str], float]]:
    """ASQA's STR-EM (gold short answers in the paragraph), ROUGE-L (against reference paragraphs) and,
    with a ``reader``, DR (``sqrt(Disambig-F1 * ROUGE-L)``) of each answer whose question has that
    gold, as ``{metric: {(system, key(question)): score}}``."""
    from ambigdemo.evaluation.datasets import QAPair
    from ambigdemo.evaluation.metrics import disambig_f1, rouge_l, str_em

    out: dict[str, dict[tuple[str, str], float]] = {"STR-EM": {}, "ROUGE-L": {}, "DR": {}}
    for a in answers:
        g, where = gold.get(key(a.question)), (a.system, key(a.question))
        if g is None:
            continue
        if g.short_answers:
            out["STR-EM"][where] = str_em(g.short_answers, a.paragraph)
        if g.long_answers:
            out["ROUGE-L"][where] = rouge_l(a.paragraph, g.long_answers)
            if reader is not None and len(g.disambiguations) == len(g.short_answers) > 0:
                pairs = [QAPair(q, s) for q, s in zip(g.disambiguations, g.short_answers)]
                out["DR"][where] = math.sqrt(disambig_f1(pairs, a.paragraph, reader) * out["ROUGE-L"][where])
    return {metric: scores for metric, scores in out.items() if scores or metric != "DR"}
