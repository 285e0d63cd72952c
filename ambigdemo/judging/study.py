"""A study: which systems, which questions, how many judgments per pair, and its quality checks.

A study is one JSON file, ``<data_dir>/studies/NAME.json``, holding its question set with the gold
answers (so automatic metrics can sit beside the human judgments) and its parameters:

* ``per_pair``: the target number of judgments per (question, two systems) pair; 2 or more gives
  the overlap that agreement needs. Assignment fills the least-judged pairs first.
* ``attention_share``: the share of assignments that are attention checks: one of the study's
  answers that lists two or more interpretations, beside a copy that keeps only its first
  interpretation and the paragraph's sentences naming none of the others. The copy is clearly
  worse on comprehensiveness (it covers fewer interpretations), so the check is passed by
  preferring the full answer there; a tie, or preferring the copy, fails. A check looks like any
  other pair: the copy ends on a whole sentence, and the reveal names the answer's system on both
  sides.
* ``min_read_s``: seconds between both answers being shown and a verdict being accepted.

Assignment (:func:`assign`) gives an annotator only pairs they have not judged, never shows other
annotators' votes (it reads counts only), puts on the left the system this annotator has seen
there least, and draws among equally needed pairs at random.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ambigdemo.files import replace_text
from ambigdemo.judging.agreement import ATTENTION_PREFIX
from ambigdemo.judging.predictions import GoldQuestion, check_name
from ambigdemo.judging.judgment import pair_id, utc_now
from ambigdemo.judging.systems import Pair, SpecError, System, SystemAnswer, candidate_pairs, question_key
from ambigdemo.text import mentions, split_sentences

if TYPE_CHECKING:
    from ambigdemo.judging.store import JudgmentStore

FULL = ATTENTION_PREFIX + "full"
SHORT = ATTENTION_PREFIX + "short"
MIN_CHECK_WORDS = 12
CHECK_CRITERION = "comprehensiveness"  # the criterion on which a check's cut copy is clearly worse


@dataclass(frozen=True)
class Study:
    name: str
    systems: list[str]
    questions: list[GoldQuestion]
    per_pair: int = 2
    attention_share: float = 0.1
    min_read_s: float = 10.0
    created_at: str = field(default_factory=utc_now)

    def __post_init__(self) -> None:
        check_name(self.name)
        if len(set(self.systems)) < 2:
            raise SpecError(f"study {self.name}: needs two or more systems, got {self.systems}")
        if self.per_pair < 1:
            raise SpecError(f"study {self.name}: per_pair must be 1 or more")
        if not 0 <= self.attention_share < 1:
            raise SpecError(f"study {self.name}: attention_share must be in [0, 1)")
        if not self.questions:
            raise SpecError(f"study {self.name}: no questions")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "systems": self.systems, "per_pair": self.per_pair,
                "attention_share": self.attention_share, "min_read_s": self.min_read_s,
                "created_at": self.created_at, "questions": [q.to_dict() for q in self.questions]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Study":
        return cls(str(data["name"]), [str(s) for s in data["systems"]],
                   [GoldQuestion.from_dict(q) for q in data["questions"]], int(data["per_pair"]),
                   float(data["attention_share"]), float(data["min_read_s"]), str(data["created_at"]))

    def save(self, folder: str | os.PathLike) -> Path:
        """Write ``folder/NAME.json`` whole (beside, then renamed)."""
        return replace_text(study_path(self.name, folder), json.dumps(self.to_dict(), ensure_ascii=False, indent=1))

    @classmethod
    def load(cls, name: str, folder: str | os.PathLike) -> "Study":
        path = study_path(name, folder)
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise SpecError(f"no study {name!r} ({path}); create it with `python -m ambigdemo judgments study create`") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise SpecError(f"{path}: not a study file: {exc}") from exc

    def gold(self) -> dict[str, GoldQuestion]:
        return {question_key(q.question): q for q in self.questions}


def study_path(name: str, folder: str | os.PathLike) -> Path:
    return Path(folder) / f"{check_name(name)}.json"


def shortened(answer: SystemAnswer) -> SystemAnswer:
    """The attention check's worse side: the first interpretation only, and the paragraph's sentences
    that name none of the others (its first sentence if every one does)."""
    dropped = [i["answer"] for i in answer.interpretations[1:]]
    sentences = split_sentences(answer.paragraph)
    kept = [s for s in sentences if not any(mentions(s, a) for a in dropped)] or sentences[:1]
    return SystemAnswer(SHORT, answer.question, " ".join(kept), answer.interpretations[:1], answer.passages)


def check_base(question: str, systems: Mapping[str, System]) -> str | None:
    """The system whose answer an attention check on ``question`` shows (first covering one by name)."""
    return next((name for name in sorted(systems) if systems[name].covers(question)), None)


def assign(annotator: str, store: "JudgmentStore", rng: random.Random, *, questions: Iterable[str],
           systems: Mapping[str, System], per_pair: int, attention_share: float = 0.0,
           eligible_checks: Iterable[str] = (), exclude: Iterable[str] = ()) -> Pair | None:
    """The next pair for ``annotator`` in a study; ``None`` when nothing is left for them.

    ``eligible_checks``: questions whose answer is long enough for an attention check.
    """
    judged = store.judged_pairs(annotator) | set(exclude)
    checks = [q for q in eligible_checks if pair_id(q, FULL, SHORT) not in judged]
    if checks and rng.random() < attention_share:
        return _oriented(rng.choice(checks), FULL, SHORT, {}, rng)
    counts = store.pair_counts()
    needed = [(q, x, y) for q, x, y in candidate_pairs(questions, systems, judged)
              if counts.get(pair_id(q, x, y), 0) < per_pair]
    if not needed:
        return None
    fewest = min(counts.get(pair_id(*c), 0) for c in needed)
    question, x, y = rng.choice([c for c in needed if counts.get(pair_id(*c), 0) == fewest])
    return _oriented(question, x, y, store.left_counts(annotator), rng)


def _oriented(question: str, x: str, y: str, left: Mapping[str, int], rng: random.Random) -> Pair:
    """``x`` < ``y``; the side this annotator has seen on the left less often goes left (ties at random)."""
    lx, ly = left.get(x, 0), left.get(y, 0)
    swapped = ly < lx or (lx == ly and rng.random() < 0.5)
    return Pair(question, y, x, True) if swapped else Pair(question, x, y, False)


def eligible_for_check(answer: SystemAnswer) -> bool:
    """Whether the cut copy of ``answer`` is clearly worse on comprehensiveness, so that a tie or
    preferring it fails: the answer is long enough and lists two or more interpretations, and the copy
    names only the first. A one-interpretation answer is no check: both sides tick the same reading,
    and a tie is fair."""
    if len(answer.paragraph.split()) < MIN_CHECK_WORDS or len(answer.interpretations) < 2:
        return False
    short = shortened(answer)
    return not any(mentions(short.paragraph, i["answer"]) for i in answer.interpretations[1:])
