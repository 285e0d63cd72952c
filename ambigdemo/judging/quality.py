"""Quality control of annotators: attention checks, reading time, side bias, and outlier votes.

Per annotator, from their counted judgments:

* attention checks passed: the full answer preferred on comprehensiveness over its cut copy, which
  lists fewer interpretations (a tie fails; :mod:`ambigdemo.judging.study`);
* median reading time: seconds from the pair being shown (``started_at``) to the verdict;
* left share: how often their decided ``overall`` vote went to the left side;
* outlier p-value, as Chatbot Arena flags anomalous users (Chiang et al. 2024, section 5.3): each
  decided vote's p-value is the share of *other* annotators' votes on the same two systems whose
  outcome was at most as likely (add-one smoothed), and Fisher's method combines them; a tiny value
  means this annotator keeps choosing what others rarely choose.

Flags name what failed; the leaderboard can leave flagged annotators out.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime

from ambigdemo.judging.agreement import is_attention, label
from ambigdemo.judging.study import CHECK_CRITERION, FULL
from ambigdemo.judging.judgment import Judgment

MIN_ATTENTION_PASS = 0.8
MIN_SIDE_VOTES = 10
MAX_LEFT_SHARE = 0.9
OUTLIER_P = 0.01
MIN_OUTLIER_VOTES = 5


@dataclass(frozen=True)
class AnnotatorReport:
    annotator: str
    judgments: int
    attention_passed: int
    attention_total: int
    median_read_s: float | None
    left_share: float | None
    outlier_p: float | None
    flags: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def seconds(j: Judgment) -> float | None:
    """Seconds from the pair being shown to the verdict; ``None`` when the start is unknown."""
    if not j.started_at:
        return None
    return (datetime.fromisoformat(j.created_at) - datetime.fromisoformat(j.started_at)).total_seconds()


def _winner(j: Judgment, criterion: str = "overall") -> str | None:
    """The system ``j`` prefers on ``criterion``; ``None`` for a tie or a verdict that is no vote."""
    choice = getattr(j, criterion) if j.verdict == "vote" else None
    if choice not in ("A", "B"):
        return None
    return j.system_a if choice == "A" else j.system_b


def _outlier_p(mine: list[Judgment], others: list[Judgment]) -> float | None:
    from scipy.stats import chi2

    outcomes: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for j in others:
        outcomes[tuple(sorted((j.system_a, j.system_b)))][label(j, "overall")] += 1
    logs = []
    for j in mine:
        seen = outcomes.get(tuple(sorted((j.system_a, j.system_b))))
        if not seen:
            continue
        total = sum(seen.values()) + 3
        likely = {o: (seen[o] + 1) / total for o in (-1, 0, 1)}
        p = sum(v for v in likely.values() if v <= likely[label(j, "overall")])
        logs.append(-2 * math.log(p))
    if len(logs) < MIN_OUTLIER_VOTES:
        return None
    return float(chi2.sf(sum(logs), 2 * len(logs)))


def annotator_reports(judgments: Iterable[Judgment], min_read_s: float = 0.0) -> list[AnnotatorReport]:
    """One report per annotator with counted judgments, most judgments first."""
    counted = [j for j in judgments if j.counted]
    by_annotator: dict[str, list[Judgment]] = defaultdict(list)
    for j in counted:
        by_annotator[j.annotator].append(j)
    real = [j for j in counted if not is_attention(j)]
    out = []
    for annotator, theirs in by_annotator.items():
        checks = [j for j in theirs if is_attention(j)]
        passed = sum(_winner(j, CHECK_CRITERION) == FULL for j in checks)
        times = [s for s in map(seconds, theirs) if s is not None]
        decided = [j for j in theirs if not is_attention(j) and _winner(j)]
        left = sum(_winner(j) == j.left_is for j in decided) / len(decided) if decided else None
        p = _outlier_p(decided, [j for j in real if j.annotator != annotator])
        median = statistics.median(times) if times else None
        flags = []
        if checks and passed / len(checks) < MIN_ATTENTION_PASS:
            flags.append(f"failed {len(checks) - passed} of {len(checks)} attention checks")
        if median is not None and min_read_s and median < min_read_s:
            flags.append(f"median reading time {median:.0f} s is under {min_read_s:.0f} s")
        if left is not None and len(decided) >= MIN_SIDE_VOTES and max(left, 1 - left) > MAX_LEFT_SHARE:
            flags.append(f"chose the {'left' if left > 0.5 else 'right'} side in {100 * max(left, 1 - left):.0f}% of votes")
        if p is not None and p < OUTLIER_P:
            flags.append(f"votes unlike other annotators' (p = {p:.2g})")
        out.append(AnnotatorReport(annotator, len(theirs), passed, len(checks), median, left, p, flags))
    return sorted(out, key=lambda r: (-r.judgments, r.annotator))


def flagged(judgments: Iterable[Judgment], min_read_s: float = 0.0) -> set[str]:
    """Annotators with at least one flag."""
    return {r.annotator for r in annotator_reports(judgments, min_read_s) if r.flags}
