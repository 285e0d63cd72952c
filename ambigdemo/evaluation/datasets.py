"""Loaders and validators for gold data and prediction files in the official formats.

Every malformed input raises :class:`DataError` with a one-line message that names the file,
the record (index and/or id) and what is wrong, e.g.
``dev.json: record 12 (id 123): 'annotations' missing``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

AnnotationType = Literal["singleAnswer", "multipleQAs"]


class DataError(ValueError):
    """A gold or prediction file that cannot be read or does not have the expected shape."""


@dataclass(frozen=True)
class QAPair:
    """A disambiguated question (``|`` separates equivalent wordings) and its answer aliases."""

    question: str
    answers: list[str]


@dataclass(frozen=True)
class Annotation:
    """One annotator's reading: a single answer (aliases) or several question-answer pairs."""

    type: AnnotationType
    answers: list[str] | None = None
    qa_pairs: list[QAPair] | None = None

    @property
    def is_single(self) -> bool:
        return self.type == "singleAnswer"


@dataclass(frozen=True)
class AmbigExample:
    """An AmbigNQ question with its annotations."""

    id: str
    question: str
    annotations: list[Annotation]

    @property
    def is_multi(self) -> bool:
        """True when no annotator gave a single answer (the official "multi only" subset)."""
        return not any(a.is_single for a in self.annotations)


@dataclass(frozen=True)
class AmbigPrediction:
    """Predicted answers for one question, with a rewrite per answer for the full task."""

    answers: list[str]
    questions: list[str] | None = None


@dataclass(frozen=True)
class NQExample:
    """An NQ-open question; ``id`` is its 0-based line number."""

    id: str
    question: str
    answers: list[str]


@dataclass(frozen=True)
class ASQAExample:
    """An ASQA question: disambiguations with short answers, and reference long answers."""

    id: str
    question: str
    qa_pairs: list[QAPair]
    long_answers: list[str]


def load_ambignq(path: str | Path) -> list[AmbigExample]:
    """AmbigNQ gold: a JSON list of ``{"id", "question", "annotations": [...]}``."""
    src = _Source(path)
    data = src.load_json()
    if not isinstance(data, list):
        raise src.error(f"expected a JSON list of examples, got {_kind(data)}")
    examples = [_ambig_example(src, i, rec) for i, rec in enumerate(data)]
    _check_unique(src, [e.id for e in examples])
    return examples


def load_nq_open(path: str | Path) -> list[NQExample]:
    """NQ-open gold: JSON lines ``{"question", "answer": [...]}``; blank lines are skipped."""
    src = _Source(path)
    examples = []
    for i, line in enumerate(src.read().splitlines()):
        if not line.strip():
            continue
        where = f"line {i}"
        rec = _parse_json(src, line, where)
        rec = _require_dict(src, where, rec, "record")
        examples.append(NQExample(
            id=str(i),
            question=_require_str(src, where, rec, "question"),
            answers=_require_str_list(src, where, rec, "answer"),
        ))
    return examples


def load_asqa(path: str | Path, split: str = "dev") -> list[ASQAExample]:
    """ASQA gold: ``{split: {key: {"ambiguous_question", "qa_pairs", "annotations"}}}``."""
    src = _Source(path)
    data = src.load_json()
    if not isinstance(data, dict) or not isinstance(data.get(split), dict):
        raise src.error(f"expected an object with a {split!r} object of examples")
    return [_asqa_example(src, key, rec) for key, rec in data[split].items()]


def load_ambig_predictions(path: str | Path) -> dict[str, AmbigPrediction]:
    """AmbigQA predictions: ``{id: [{"question", "answer"}, ...]}`` or ``{id: [answer, ...]}``.

    A bare string value counts as a one-answer list, as in the official script. One file must use
    one of the two forms throughout.
    """
    src = _Source(path)
    data = _require_object(src, src.load_json())
    out = {str(k): _ambig_prediction(src, str(k), v) for k, v in data.items()}
    forms = {p.questions is None for p in out.values() if p.answers}
    if len(forms) > 1:
        raise src.error("mixes answers-only lists and question-answer pairs")
    return out


def load_answer_predictions(path: str | Path) -> dict[str, str]:
    """One answer per id: ``{id: answer}`` or ``{id: [answer, ...]}`` (the first one counts).

    Used for NQ-open predictions and for ASQA long answers.
    """
    src = _Source(path)
    data = _require_object(src, src.load_json())
    return {str(k): _single_answer(src, str(k), v) for k, v in data.items()}


class _Source:
    """A file being loaded: reads it and formats errors that name it."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def error(self, what: str, where: str = "") -> DataError:
        return DataError(f"{self.path}: {where + ': ' if where else ''}{what}")

    def read(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise self.error("file not found") from None
        except UnicodeDecodeError as exc:
            raise self.error(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except OSError as exc:
            raise self.error(f"cannot read ({exc.strerror or exc})") from None

    def load_json(self) -> Any:
        return _parse_json(self, self.read(), "")


def _parse_json(src: _Source, text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise src.error(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})", where) from None


def _kind(value: Any) -> str:
    if isinstance(value, list) and not value:
        return "an empty list"
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _require_object(src: _Source, data: Any) -> dict:
    if not isinstance(data, dict):
        raise src.error(f"expected a JSON object keyed by question id, got {_kind(data)}")
    return data


def _require_dict(src: _Source, where: str, value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise src.error(f"{what} must be an object, got {_kind(value)}", where)
    return value


def _require(src: _Source, where: str, rec: dict, key: str) -> Any:
    if key not in rec:
        raise src.error(f"{key!r} missing", where)
    return rec[key]


def _require_str(src: _Source, where: str, rec: dict, key: str) -> str:
    value = _require(src, where, rec, key)
    if not isinstance(value, str):
        raise src.error(f"{key!r} must be a string, got {_kind(value)}", where)
    return value


def _require_list(src: _Source, where: str, rec: dict, key: str) -> list:
    value = _require(src, where, rec, key)
    if not isinstance(value, list) or not value:
        raise src.error(f"{key!r} must be a non-empty list, got {_kind(value)}", where)
    return value


def _require_str_list(src: _Source, where: str, rec: dict, key: str) -> list[str]:
    value = _require_list(src, where, rec, key)
    if not all(isinstance(v, str) for v in value):
        raise src.error(f"{key!r} must be a list of strings", where)
    return value


def _ambig_example(src: _Source, index: int, rec: Any) -> AmbigExample:
    where = f"record {index}"
    rec = _require_dict(src, where, rec, "record")
    raw_id = _require(src, where, rec, "id")
    if not isinstance(raw_id, (str, int)) or isinstance(raw_id, bool):
        raise src.error(f"'id' must be a string, got {_kind(raw_id)}", where)
    where = f"record {index} (id {raw_id})"
    question = _require_str(src, where, rec, "question")
    annotations = [
        _annotation(src, f"{where}: annotation {j}", ann)
        for j, ann in enumerate(_require_list(src, where, rec, "annotations"))
    ]
    return AmbigExample(id=str(raw_id), question=question, annotations=annotations)


def _annotation(src: _Source, where: str, ann: Any) -> Annotation:
    ann = _require_dict(src, where, ann, "annotation")
    kind = _require(src, where, ann, "type")
    if kind == "singleAnswer":
        return Annotation(type=kind, answers=_require_str_list(src, where, ann, "answer"))
    if kind == "multipleQAs":
        pairs = [
            _qa_pair(src, f"{where}, qaPair {k}", pair, "answer")
            for k, pair in enumerate(_require_list(src, where, ann, "qaPairs"))
        ]
        return Annotation(type=kind, qa_pairs=pairs)
    raise src.error(f"'type' must be 'singleAnswer' or 'multipleQAs', got {kind!r}", where)


def _qa_pair(src: _Source, where: str, pair: Any, answers_key: str) -> QAPair:
    pair = _require_dict(src, where, pair, "qaPair")
    question = _require_str(src, where, pair, "question")
    if not any(alt.strip() for alt in question.split("|")):
        raise src.error("'question' is empty", where)
    return QAPair(question=question, answers=_require_str_list(src, where, pair, answers_key))


def _asqa_example(src: _Source, key: str, rec: Any) -> ASQAExample:
    where = f"id {key}"
    rec = _require_dict(src, where, rec, "record")
    pairs = [
        _qa_pair(src, f"{where}: qa_pair {k}", pair, "short_answers")
        for k, pair in enumerate(_require_list(src, where, rec, "qa_pairs"))
    ]
    long_answers = [
        _require_str(src, f"{where}: annotation {j}", _require_dict(src, f"{where}: annotation {j}", ann, "annotation"), "long_answer")
        for j, ann in enumerate(_require_list(src, where, rec, "annotations"))
    ]
    question = _require_str(src, where, rec, "ambiguous_question")
    return ASQAExample(id=key, question=question, qa_pairs=pairs, long_answers=long_answers)


def _ambig_prediction(src: _Source, key: str, value: Any) -> AmbigPrediction:
    where = f"id {key}"
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise src.error(f"prediction must be a list, got {_kind(value)}", where)
    if all(isinstance(v, str) for v in value):
        return AmbigPrediction(answers=list(value))
    pairs = [_predicted_pair(src, f"{where}: item {j}", item) for j, item in enumerate(value)]
    return AmbigPrediction(answers=[a for _, a in pairs], questions=[q for q, _ in pairs])


def _predicted_pair(src: _Source, where: str, item: Any) -> tuple[str, str]:
    if not isinstance(item, dict):
        raise src.error(f"expected a string or a {{'question', 'answer'}} object, got {_kind(item)}", where)
    return _require_str(src, where, item, "question"), _require_str(src, where, item, "answer")


def _single_answer(src: _Source, key: str, value: Any) -> str:
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise src.error("answer list must hold strings", f"id {key}")
        return value[0] if value else ""
    if not isinstance(value, str):
        raise src.error(f"answer must be a string or a list of strings, got {_kind(value)}", f"id {key}")
    return value


def _check_unique(src: _Source, ids: list[str]) -> None:
    seen: dict[str, int] = {}
    for i, key in enumerate(ids):
        if key in seen:
            raise src.error(f"duplicate id (first at record {seen[key]})", f"record {i} (id {key})")
        seen[key] = i
