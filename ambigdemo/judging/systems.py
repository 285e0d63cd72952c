"""Named systems for pairwise human evaluation (ASQA section 5), the question pool, and pair selection.

A *system* turns a question into a :class:`SystemAnswer`. Pipeline variants share one loaded
:class:`~ambigdemo.pipeline.Pipeline` (``with_options`` reuses its models):

* ``full``: the configured pipeline, with the generator writing the paragraph;
* ``evidence``: no generator; the evidence-built paragraph over the same interpretations;
* ``top-passage``: retrieval only; the top passage's text is the answer, with no interpretations;
* ``k4``: the full pipeline over the top 4 passages instead of ``top_k``.

``stored:NAME`` systems answer from a JSONL file of ``{"question", "paragraph", "interpretations"?, "passages"?}``
records (for example human references), and cover only the questions in that file.

Selection: :meth:`Arena.next_pair` draws, uniformly at random, a (question, two systems) pair that
the annotator has not given a verdict on (``JudgmentStore.judged_pairs``) and that both systems
cover, then randomises which system is shown on the left. ``Pair.system_a`` is always the left one
(the store's convention: ``left_is == system_a``), and ``Pair.swapped`` records whether that is the
reverse of the canonical (sorted) order.

Configuration: ``AMBIGDEMO_COMPARE_SYSTEMS`` (comma list, e.g. ``full,evidence,stored:human=refs.jsonl``)
and ``AMBIGDEMO_COMPARE_POOL`` (a file: one question per line, a JSON list, or JSONL with ``question``),
or the matching arguments.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ambigdemo.config import MAX_QUESTION_CHARS, ROOT
from ambigdemo.judging.judgment import pair_id

if TYPE_CHECKING:
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.judging.store import JudgmentStore

POOL_FILE = ROOT / "assets" / "compare_questions.json"
DEFAULT_SYSTEMS = ("full", "evidence", "top-passage", "k4")
STORED_PREFIX = "stored:"
MAX_ANSWER_CHARS = 5000
_STORED_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class SpecError(ValueError):
    """A system spec, stored-answers file or pool file is invalid; the message says where and why."""


def question_key(question: str) -> str:
    """Whitespace- and case-insensitive key of a question (the store's ``pair_id`` uses the same)."""
    return " ".join(question.split()).casefold()


def clean_text(question: str) -> str:
    return " ".join(str(question).split())


@dataclass(frozen=True)
class SystemAnswer:
    """One system's answer to one question; JSON-serialisable (``to_dict`` / ``from_dict``).

    ``interpretations`` are ``{"question", "answer"}`` dicts; ``passages`` are ``{"title", "text"}``
    dicts in citation order (``[n]`` in the paragraph cites ``passages[n - 1]``).
    """

    system: str
    question: str
    paragraph: str
    interpretations: list[dict[str, str]] = field(default_factory=list)
    passages: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SystemAnswer":
        return cls(
            system=str(data["system"]),
            question=str(data["question"]),
            paragraph=str(data.get("paragraph", "")),
            interpretations=[{"question": str(i["question"]), "answer": str(i["answer"])}
                             for i in data.get("interpretations") or []],
            passages=[{"title": str(p.get("title", "")), "text": str(p.get("text", ""))}
                      for p in data.get("passages") or []],
        )


class System(Protocol):
    """Anything with a name that answers the questions it covers."""

    name: str
    description: str

    def covers(self, question: str) -> bool: ...

    def answer(self, question: str) -> SystemAnswer: ...


@dataclass
class PipelineSystem:
    """A pipeline variant; ``top_passage`` answers with the first retrieved passage only."""

    name: str
    pipeline: "Pipeline"
    description: str = ""
    top_passage: bool = False

    def covers(self, question: str) -> bool:
        return True

    def answer(self, question: str) -> SystemAnswer:
        from ambigdemo.pipeline import NO_ANSWER, clean_question

        question = clean_question(question)
        if self.top_passage:
            top = self.pipeline.retriever.search(question, 1)[:1]
            paragraph = top[0].text if top else NO_ANSWER
            return SystemAnswer(self.name, question, paragraph, [],
                                [{"title": p.title, "text": p.text} for p in top])
        result = self.pipeline.ask(question)
        return SystemAnswer(
            system=self.name,
            question=question,
            paragraph=result.paragraph or result.message or NO_ANSWER,
            interpretations=[{"question": i.question, "answer": i.answer} for i in result.interpretations],
            passages=[{"title": p.title, "text": p.text} for p in result.passages],
        )


@dataclass
class StoredSystem:
    """Answers read from a JSONL file; covers exactly the questions in it."""

    name: str
    answers: dict[str, SystemAnswer]
    description: str = ""

    def covers(self, question: str) -> bool:
        return question_key(question) in self.answers

    def answer(self, question: str) -> SystemAnswer:
        try:
            return self.answers[question_key(question)]
        except KeyError:
            raise KeyError(f"{self.name} has no answer to {question!r}") from None

    @property
    def questions(self) -> list[str]:
        return [a.question for a in self.answers.values()]

    @classmethod
    def load(cls, name: str, path: str | os.PathLike) -> "StoredSystem":
        """``stored:NAME`` from ``path``; a malformed line raises ``SpecError`` naming it."""
        if not _STORED_NAME.match(name):
            raise SpecError(f"stored system name {name!r}: use letters, digits, '.', '_' or '-' (at most 64)")
        answers = read_jsonl_answers(path, STORED_PREFIX + name)
        return cls(STORED_PREFIX + name, {question_key(a.question): a for a in answers},
                   f"answers stored in {Path(path).name}")


def read_jsonl_answers(path: str | os.PathLike, system: str) -> list[SystemAnswer]:
    """``system``'s answers, one JSON object per line; ``SpecError`` names a bad line or a repeat."""
    path = Path(path)
    out: dict[str, SystemAnswer] = {}
    for n, line in numbered_lines(path, system):
        try:
            answer = jsonl_answer(system, json.loads(line))
        except (ValueError, TypeError, KeyError) as exc:
            raise SpecError(f"{path}:{n}: {exc}") from exc
        if question_key(answer.question) in out:
            raise SpecError(f"{path}:{n}: the question {answer.question!r} is answered twice")
        out[question_key(answer.question)] = answer
    if not out:
        raise SpecError(f"{path}: no answers")
    return list(out.values())


def numbered_lines(path: Path, what: str) -> list[tuple[int, str]]:
    """The non-blank lines of ``path`` with their 1-based numbers; ``SpecError`` if it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{what}: cannot read {path}: {exc}") from exc
    return [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def jsonl_answer(system: str, record: Any) -> SystemAnswer:
    """One JSONL record as ``system``'s answer: ``question``, ``paragraph`` (or ``answer``), optional
    ``interpretations`` and ``passages``; raises ``ValueError`` saying what is wrong."""
    if not isinstance(record, dict):
        raise ValueError("each line must be a JSON object")
    question = record.get("question")
    paragraph = record.get("paragraph", record.get("answer"))
    if not isinstance(question, str) or not clean_text(question):
        raise ValueError('"question" must be a non-empty string')
    if not isinstance(paragraph, str) or not paragraph.strip():
        raise ValueError('"paragraph" must be a non-empty string')
    interpretations = record.get("interpretations") or []
    if not isinstance(interpretations, list):
        raise ValueError('"interpretations" must be a list of {"question", "answer"}')
    cleaned = []
    for i in interpretations:
        if not (isinstance(i, dict) and isinstance(i.get("question"), str) and isinstance(i.get("answer"), str)):
            raise ValueError('each interpretation must be {"question": str, "answer": str}')
        cleaned.append({"question": clean_text(i["question"]), "answer": clean_text(i["answer"])})
    passages = record.get("passages") or []
    if not isinstance(passages, list) or not all(isinstance(p, dict) for p in passages):
        raise ValueError('"passages" must be a list of {"title", "text"}')
    return SystemAnswer(
        system=system, question=clean_text(question), paragraph=paragraph.strip()[:MAX_ANSWER_CHARS],
        interpretations=cleaned,
        passages=[{"title": str(p.get("title", "")), "text": str(p.get("text", ""))} for p in passages],
    )


# name -> (description, options for Pipeline.with_options, top passage only)
VARIANTS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "full": ("the generator writes the paragraph (the Ask tab)", {"use_generator": True}, False),
    "evidence": ("no generator: the evidence-built paragraph", {"use_generator": False}, False),
    "top-passage": ("retrieval only: the top passage, no interpretations", {}, True),
    "k4": ("the full pipeline over the top 4 passages", {"top_k": 4, "use_generator": True}, False),
}


def parse_specs(specs: str | Sequence[str] | None) -> list[str]:
    """System specs from a comma list or a sequence; ``None`` or "": the default systems."""
    if not specs:
        specs = ",".join(DEFAULT_SYSTEMS)
    if isinstance(specs, str):
        specs = specs.split(",")
    out: list[str] = []
    for s in (s.strip() for s in specs):
        if s and s not in out:
            out.append(s)
    return out


def stored_path(name: str, data_dir: str | os.PathLike | None = None) -> Path:
    """Where ``stored:NAME`` without ``=PATH`` is read: ``<data_dir>/systems/NAME.jsonl``, else ``assets/systems``."""
    candidates = ([Path(data_dir) / "systems" / f"{name}.jsonl"] if data_dir else []) + [
        ROOT / "assets" / "systems" / f"{name}.jsonl"
    ]
    for path in candidates:
        if path.is_file():
            return path
    raise SpecError(f"{STORED_PREFIX}{name}: no file; looked for {', '.join(map(str, candidates))} "
                    f"(or give one: {STORED_PREFIX}{name}=PATH)")


def known_systems(data_dir: str | os.PathLike | None = None) -> list[str]:
    """Every system a study can name: the pipeline variants, then each ``stored:NAME`` with a file."""
    folders = ([Path(data_dir) / "systems"] if data_dir else []) + [ROOT / "assets" / "systems"]
    stored = sorted({p.stem for folder in folders if folder.is_dir() for p in folder.glob("*.jsonl")})
    return [*VARIANTS, *(f"{STORED_PREFIX}{name}" for name in stored)]


def check_specs(specs: Sequence[str], data_dir: str | os.PathLike | None = None) -> None:
    """Raise :class:`SpecError` naming the systems that exist if a spec names none of them (checked
    without loading the pipeline or the answers)."""
    for spec in specs:
        if spec.startswith(STORED_PREFIX):
            name, _, path = spec[len(STORED_PREFIX):].partition("=")
            if path.strip() and Path(path.strip()).is_file():
                continue
            if not path.strip() and name.strip() and _STORED_NAME.match(name.strip()):
                try:
                    stored_path(name.strip(), data_dir)
                    continue
                except SpecError:
                    pass
        elif spec in VARIANTS:
            continue
        raise SpecError(f"unknown system {spec!r}; the systems are: {', '.join(known_systems(data_dir))} "
                        f"(import your own with `judgments systems add NAME FILE`)")


def load_systems(pipeline: "Pipeline | None", specs: str | Sequence[str] | None = None,
                 data_dir: str | os.PathLike | None = None) -> dict[str, System]:
    """Systems by name, in spec order. Needs at least two; pipeline variants need ``pipeline``."""
    systems: dict[str, System] = {}
    for spec in parse_specs(specs):
        if spec.startswith(STORED_PREFIX):
            name, _, path = spec[len(STORED_PREFIX):].partition("=")
            name = name.strip()
            system = StoredSystem.load(name, path.strip() or stored_path(name, data_dir))
        elif spec in VARIANTS:
            if pipeline is None:
                raise SpecError(f"system {spec!r} needs the loaded pipeline")
            description, options, top = VARIANTS[spec]
            if not pipeline.config.use_generator and options.get("use_generator"):
                description += " (generator disabled in this app: evidence paragraph)"
                options = {k: v for k, v in options.items() if k != "use_generator"}
            system = PipelineSystem(spec, pipeline.with_options(**options) if options else pipeline, description, top)
        else:
            raise SpecError(f"unknown system {spec!r}; use {', '.join(VARIANTS)} or {STORED_PREFIX}NAME[=PATH]")
        systems[system.name] = system
    if len(systems) < 2:
        raise SpecError(f"pairwise comparison needs at least two systems; got {list(systems)}")
    return systems


@dataclass(frozen=True)
class Pool:
    """The questions offered for comparison, in file order, without duplicates."""

    questions: tuple[str, ...]
    source: str = ""

    @classmethod
    def from_questions(cls, questions: Iterable[str], source: str = "") -> "Pool":
        seen: dict[str, str] = {}
        for q in questions:
            q = clean_text(q)
            if q and len(q) <= MAX_QUESTION_CHARS:
                seen.setdefault(question_key(q), q)
        if not seen:
            raise SpecError(f"question pool {source or '(given)'} is empty")
        return cls(tuple(seen.values()), source)

    @classmethod
    def load(cls, path: str | os.PathLike | None = None) -> "Pool":
        """``path`` (``Config.compare_pool``), else ``assets/compare_questions.json``.

        ``.json``: a list of strings or of ``{"question": ...}``; ``.jsonl``: objects with ``question``
        (a stored system's file works); anything else: one question per line, ``#`` starts a comment.
        """
        path = Path(path or POOL_FILE)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(f"cannot read the question pool {path}: {exc}") from exc
        try:
            if path.suffix.lower() == ".json":
                items = json.loads(text)
                if not isinstance(items, list):
                    raise ValueError("a JSON pool must be a list")
                questions = [i["question"] if isinstance(i, dict) else i for i in items]
            elif path.suffix.lower() == ".jsonl":
                questions = [json.loads(line)["question"] for line in text.splitlines() if line.strip()]
            else:
                questions = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            if not all(isinstance(q, str) for q in questions):
                raise ValueError("every question must be a string")
        except (ValueError, KeyError, TypeError) as exc:
            raise SpecError(f"question pool {path}: {exc}") from exc
        return cls.from_questions(questions, str(path))


@dataclass(frozen=True)
class Pair:
    """A question and two systems as shown: ``system_a`` on the left, ``system_b`` on the right.

    ``swapped`` is True when the left system is the later one in sorted order, i.e. the real
    (canonical) order is ``(system_b, system_a)``.
    """

    question: str
    system_a: str
    system_b: str
    swapped: bool

    @property
    def left_is(self) -> str:
        return self.system_a

    @property
    def canonical(self) -> tuple[str, str]:
        return (self.system_b, self.system_a) if self.swapped else (self.system_a, self.system_b)

    @property
    def pair_id(self) -> str:
        return pair_id(self.question, self.system_a, self.system_b)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def candidate_pairs(questions: Iterable[str], systems: Mapping[str, System],
                    excluded: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, str, str]]:
    """Every (question, x, y) with x < y covering the question and ``pair_id`` not in ``excluded``."""
    names = sorted(systems)
    out = []
    for q in questions:
        covering = [n for n in names if systems[n].covers(q)]
        for x, y in combinations(covering, 2):
            if pair_id(q, x, y) not in excluded:
                out.append((q, x, y))
    return out


def same_words(a: SystemAnswer, b: SystemAnswer) -> bool:
    """Two answers a reader cannot tell apart: the same paragraph and readings, word for word."""
    def words_of(x: SystemAnswer) -> tuple:
        return (" ".join(x.paragraph.split()).casefold(), tuple((i["question"], i["answer"]) for i in x.interpretations))

    return words_of(a) == words_of(b)


def next_pair(annotator: str, store: "JudgmentStore", rng: random.Random, *, questions: Iterable[str],
              systems: Mapping[str, System], exclude: Iterable[str] = ()) -> Pair | None:
    """A random pair the annotator has not judged (nor in ``exclude``), sides randomised; None when done."""
    excluded = set(store.judged_pairs(annotator)) | set(exclude)
    candidates = candidate_pairs(questions, systems, excluded)
    if not candidates:
        return None
    question, x, y = rng.choice(candidates)
    swapped = rng.random() < 0.5
    left, right = (y, x) if swapped else (x, y)
    return Pair(question, left, right, swapped)
