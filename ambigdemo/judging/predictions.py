"""Bring your own systems: prediction files read into stored systems, and question sets with gold.

Three prediction formats, for one named system:

* ``ambigqa``: AmbigQA's official prediction JSON, ``{id: [{"question", "answer"}, ...]}`` or
  ``{id: [answer, ...]}``. It has no paragraph, so the answer shown is its list, one line per
  reading ("question: answer", or the answers joined by "; ").
* ``asqa``: ASQA-style ``{id: "long answer"}``.
* ``jsonl``: one object per line: ``question`` and ``paragraph`` (``answer`` is accepted for it),
  optional ``id``, ``interpretations`` (``[{"question", "answer"}]``) and ``passages``
  (``[{"title", "text"}]``, cited as ``[n]`` in the paragraph).

The first two name questions by id, so they need a question set: AmbigNQ's JSON list, ASQA's JSON
(``{"dev": {id: ...}}``), or JSONL of ``{"id", "question", "short_answers"?, "long_answers"?}``;
its gold answers feed the automatic metrics beside the human judgments.

Everything is validated before anything is written: an error names the file and the line or id, and
a system file is replaced whole (written beside, then renamed), never half-imported.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ambigdemo.evaluation import datasets
from ambigdemo.files import replace_text
from ambigdemo.judging.systems import (
    MAX_ANSWER_CHARS,
    SpecError,
    SystemAnswer,
    clean_text,
    numbered_lines,
    read_jsonl_answers,
)

FORMATS = ("ambigqa", "asqa", "jsonl")
SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_ERRORS_SHOWN = 5


@dataclass(frozen=True)
class GoldQuestion:
    """A question of a study, with its gold answers when the set has them.

    ``short_answers`` holds one alias list per interpretation (STR-EM's unit) and ``disambiguations``
    the interpretations' questions, when known; ``long_answers`` are reference paragraphs (ASQA).
    """

    id: str
    question: str
    short_answers: list[list[str]] = field(default_factory=list)
    long_answers: list[str] = field(default_factory=list)
    disambiguations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GoldQuestion":
        return cls(str(data["id"]), clean_text(data["question"]),
                   [[str(a) for a in aliases] for aliases in data.get("short_answers") or []],
                   [str(t) for t in data.get("long_answers") or []],
                   [clean_text(q) for q in data.get("disambiguations") or []])


def load_questions(path: str | os.PathLike) -> list[GoldQuestion]:
    """A question set: AmbigNQ JSON list, ASQA JSON object, or JSONL; raises ``SpecError``."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".jsonl":
            return _questions_jsonl(path)
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            return [_ambignq_question(e) for e in datasets.load_ambignq(path)]
        if isinstance(data, dict):
            split = "dev" if "dev" in data else next(iter(data), "dev")
            return [GoldQuestion(e.id, clean_text(e.question), [p.answers for p in e.qa_pairs], e.long_answers,
                                 [clean_text(p.question) for p in e.qa_pairs]) for e in datasets.load_asqa(path, split)]
        raise SpecError(f"{path}: a question set is a JSON list (AmbigNQ), a JSON object (ASQA) or JSONL")
    except datasets.DataError as exc:
        raise SpecError(str(exc)) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise SpecError(f"{path}: not JSON: {exc}") from exc


def _ambignq_question(example: datasets.AmbigExample) -> GoldQuestion:
    """Every annotator's readings, each distinct alias list once, with its question."""
    readings: dict[tuple[str, ...], str] = {}
    for annotation in example.annotations:
        found = ([(example.question, annotation.answers)] if annotation.is_single
                 else [(p.question.split("|")[0], p.answers) for p in annotation.qa_pairs or []])
        for question, answers in found:
            if answers:
                readings.setdefault(tuple(answers), clean_text(question))
    return GoldQuestion(example.id, clean_text(example.question), [list(a) for a in readings],
                        disambiguations=list(readings.values()))


def _questions_jsonl(path: Path) -> list[GoldQuestion]:
    out, seen = [], set()
    for n, line in numbered_lines(path, "question set"):
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or not isinstance(record.get("question"), str) or not clean_text(record["question"]):
                raise ValueError('each line must be an object with a non-empty "question"')
            record.setdefault("id", str(n))
            gold = GoldQuestion.from_dict(record)
        except (ValueError, TypeError) as exc:
            raise SpecError(f"{path}:{n}: {exc}") from exc
        if gold.id in seen:
            raise SpecError(f"{path}:{n}: id {gold.id!r} appears twice")
        seen.add(gold.id)
        out.append(gold)
    if not out:
        raise SpecError(f"{path}: no questions")
    return out


def guess_format(path: str | os.PathLike) -> str:
    """``jsonl`` by suffix; otherwise ``asqa`` when the JSON object's values are strings, else ``ambigqa``."""
    path = Path(path)
    if path.suffix.lower() == ".jsonl":
        return "jsonl"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"{path}: not a JSON file: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise SpecError(f"{path}: predictions are a JSON object {{id: ...}} (or JSONL)")
    return "asqa" if all(isinstance(v, str) for v in data.values()) else "ambigqa"


def read_predictions(path: str | os.PathLike, system: str, fmt: str = "",
                     questions: list[GoldQuestion] | None = None) -> list[SystemAnswer]:
    """Every answer in ``path`` as ``system``'s; ``ambigqa`` and ``asqa`` need ``questions``."""
    path = Path(path)
    fmt = fmt or guess_format(path)
    if fmt not in FORMATS:
        raise SpecError(f"unknown prediction format {fmt!r}; use {', '.join(FORMATS)}")
    if fmt == "jsonl":
        return read_jsonl_answers(path, system)
    if not questions:
        raise SpecError(f"{path}: {fmt} predictions name questions by id; give the question set they answer")
    by_id = {q.id: q for q in questions}
    try:
        if fmt == "ambigqa":
            predictions = datasets.load_ambig_predictions(path)
            raw = {k: _ambigqa_paragraph(p) for k, p in predictions.items()}
            readings = {k: _ambigqa_readings(p) for k, p in predictions.items()}
        else:
            raw = datasets.load_answer_predictions(path)
            readings = {}
    except datasets.DataError as exc:
        raise SpecError(str(exc)) from exc
    unknown = [k for k in raw if k not in by_id]
    if unknown:
        shown = ", ".join(unknown[:MAX_ERRORS_SHOWN]) + (" ..." if len(unknown) > MAX_ERRORS_SHOWN else "")
        raise SpecError(f"{path}: {len(unknown)} ids are not in the question set: {shown}")
    empty = [k for k, text in raw.items() if not text.strip()]
    if empty:
        raise SpecError(f"{path}: id {empty[0]}: the answer is empty")
    return [SystemAnswer(system, by_id[k].question, text.strip()[:MAX_ANSWER_CHARS], readings.get(k, []))
            for k, text in raw.items()]


def _ambigqa_readings(prediction: datasets.AmbigPrediction) -> list[dict[str, str]]:
    if prediction.questions is None:
        return []
    return [{"question": clean_text(q), "answer": clean_text(a)} for q, a in zip(prediction.questions, prediction.answers)]


def _ambigqa_paragraph(prediction: datasets.AmbigPrediction) -> str:
    if prediction.questions is None:
        return "; ".join(clean_text(a) for a in prediction.answers)
    return "\n".join(f"{clean_text(q)}: {clean_text(a)}" for q, a in zip(prediction.questions, prediction.answers))


def check_name(name: str) -> str:
    if not SYSTEM_NAME.match(name or ""):
        raise SpecError(f"system name {name!r}: use letters, digits, '.', '_' or '-' (at most 64)")
    return name


def save_system(name: str, answers: list[SystemAnswer], folder: str | os.PathLike) -> Path:
    """Write ``answers`` as ``folder/NAME.jsonl`` (the ``stored:NAME`` system), replacing it whole."""
    records = ({"question": a.question, "paragraph": a.paragraph, "interpretations": a.interpretations,
                "passages": a.passages} for a in answers)
    return replace_text(Path(folder) / f"{check_name(name)}.jsonl",
                        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
