"""One pairwise judgment, as clicked: the record the store keeps and the exports write.

A ``vote`` carries a label (A, B or tie) on each of the three criteria. ``skip`` and ``both_bad``
carry none: the annotator gave no preference, so nothing is stored (``None``). :meth:`Judgment.label`
is what analyses read: the stored label of a vote, ``tie`` on ``overall`` for ``both_bad`` (neither
answer is preferred), and ``None`` where the criterion was not judged.

Databases written before schema v2 may hold skips and both-bad verdicts with labels on them (the
Compare tab carried earlier pairs' choices over, and filled the rest with ``tie``): such a record
still loads, :meth:`Judgment.problems` names what is wrong with it, analyses never read those
labels, and the store refuses to add a new one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

CRITERIA = ("comprehensiveness", "fluency", "overall")
CRITERIA_LABELS = ("A", "B", "tie")
VERDICTS = ("vote", "skip", "both_bad")


def utc_now() -> str:
    """Current time as the store's timestamp format: ISO 8601, UTC, microseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def pair_id(question: str, system_x: str, system_y: str) -> str:
    """Stable id of (question, unordered pair of systems): whitespace- and case-insensitive."""
    key = json.dumps([" ".join(question.split()).casefold(), sorted([system_x, system_y])])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class Judgment:
    """One pairwise judgment, with everything needed to reproduce it.

    ``A``/``B`` in ``comprehensiveness``/``fluency``/``overall`` always mean ``system_a``/``system_b``;
    ``left_is`` names the system that was displayed on the left (the UI shows ``system_a`` there).
    ``answer_a``/``answer_b`` are the full answers as JSON text. ``acc_a`` lists the indices of the
    interpretations the annotator ticked as correctly answered by A, out of ``acc_a_total`` (ASQA ACC).
    """

    id: str
    client_key: str
    question: str
    pair_id: str
    system_a: str
    system_b: str
    answer_a: str
    answer_b: str
    left_is: str
    annotator: str
    acc_a: list[int] = field(default_factory=list)
    acc_a_total: int = 0
    acc_b: list[int] = field(default_factory=list)
    acc_b_total: int = 0
    comprehensiveness: str | None = None
    fluency: str | None = None
    overall: str | None = None
    verdict: str = "vote"
    comment: str = ""
    created_at: str = ""
    started_at: str = ""
    app_version: str = ""

    def __post_init__(self) -> None:
        _check(bool(self.id and self.client_key and self.annotator), "id, client_key and annotator are required")
        _check(self.system_a != self.system_b, "system_a and system_b must differ")
        _check(self.left_is in (self.system_a, self.system_b), "left_is must be system_a or system_b")
        _check(self.verdict in VERDICTS, f"verdict must be one of {VERDICTS}")
        for name in CRITERIA:
            value = getattr(self, name)
            _check(value is None or value in CRITERIA_LABELS, f"{name} must be one of {CRITERIA_LABELS} or empty")
            _check(value is not None or self.verdict != "vote", f"a vote needs a label on {name}")
        for ticked, total in ((self.acc_a, self.acc_a_total), (self.acc_b, self.acc_b_total)):
            _check(all(0 <= i < total for i in ticked) and len(set(ticked)) == len(ticked),
                   "acc indices must be distinct and below their total")
        _check(self.pair_id == pair_id(self.question, self.system_a, self.system_b), "pair_id does not match")

    @classmethod
    def new(cls, *, question: str, system_a: str, system_b: str, answer_a: Any, answer_b: Any,
            annotator: str, client_key: str = "", left_is: str = "", **fields: Any) -> "Judgment":
        """A fresh judgment: new id, ``pair_id`` and ``created_at``; answers may be dicts (JSON-encoded)."""
        new_id = str(uuid.uuid4())
        fields.setdefault("created_at", utc_now())
        return cls(
            id=new_id, client_key=client_key or new_id, question=question,
            pair_id=pair_id(question, system_a, system_b), system_a=system_a, system_b=system_b,
            answer_a=_json_text(answer_a), answer_b=_json_text(answer_b), left_is=left_is or system_a,
            annotator=annotator, **fields,
        )

    @property
    def counted(self) -> bool:
        """Whether the judgment carries a verdict (``vote`` or ``both_bad``), as opposed to ``skip``."""
        return self.verdict != "skip"

    def label(self, criterion: str) -> str | None:
        """The label analyses read on ``criterion``: ``None`` where this verdict judges no such thing."""
        if self.verdict == "vote":
            return getattr(self, criterion)
        return "tie" if self.verdict == "both_bad" and criterion == "overall" else None

    def problems(self) -> list[str]:
        """What is inconsistent in the stored record: labels on a verdict that collects none."""
        stored = [c for c in CRITERIA if getattr(self, c) is not None]
        if self.verdict == "vote" or not stored:
            return []
        return [f"a {self.verdict} stores {', '.join(f'{c}={getattr(self, c)}' for c in stored)}"]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_row(self) -> dict[str, str | int | None]:
        """Flat form for SQLite and CSV: lists become JSON text."""
        return {k: json.dumps(v) if isinstance(v, list) else v for k, v in self.to_dict().items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Judgment":
        """Inverse of ``to_dict`` and ``to_row``: accepts JSON text or lists, strings or ints; an
        empty criterion (``None`` or ``""``, as CSV writes it) is no label."""
        missing = [f.name for f in FIELDS if f.name not in data]
        _check(not missing, f"missing fields: {missing}")
        return cls(**{f.name: _coerce(f.type, data[f.name]) for f in FIELDS})


FIELDS = dataclasses.fields(Judgment)
COLUMNS = tuple(f.name for f in FIELDS)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _coerce(kind: str, value: Any) -> Any:
    if kind == "list[int]":
        return [int(i) for i in (json.loads(value) if isinstance(value, str) else value)]
    if kind == "int":
        return int(value)
    if kind == "str | None":
        return None if value in (None, "") else str(value)
    return str(value)
