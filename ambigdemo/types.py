"""Typed, JSON-serialisable results that cross module boundaries."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Passage:
    """One retrieved Wikipedia passage; ``id`` is stable across runs of one index."""

    id: str
    title: str
    text: str
    score: float = 0.0  # its dense retrieval score (cosine) for the question
    lexical: bool = False  # BM25 ranks it first for the question (:class:`~ambigdemo.stages.retrieve.Retriever`)


def passage_title(passage_id: str) -> str:
    """The article title a passage id names ("Eiffel Tower#2" -> "Eiffel Tower")."""
    return passage_id.split("#")[0]


@dataclass(frozen=True)
class Edit:
    """Word-level difference between the prompt question and a rewrite."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Answer:
    """A distinct answer: its surface form, aliases folded into it, and its evidence."""

    text: str
    score: float
    passages: list[str]
    aliases: list[str] = field(default_factory=list)
    context: str = ""
    p: float | None = None  # the score's p(right), when a score chose it


@dataclass(frozen=True)
class Candidate:
    """An answer the reader proposed from one passage, and what verify made of it."""

    passage: str  # the passage's id
    text: str  # the answer as the model replied it
    likeliest: bool = True  # the model's likeliest reply for the passage (else one of its less likely ones)
    rejection: str = ""  # why verify dropped it; "" when it passed
    p: float | None = None  # the verifier's p(right), when a verifier judged it
    features: dict[str, float] = field(default_factory=dict)  # what the verifier read (verifier.FEATURES)
    sibling: bool = False  # not replied: another name of the list a reply's answer is named in
    title: bool = False  # not replied: the passage's subject

    @property
    def branch(self) -> bool:
        """Whether it is one of the model's less likely replies for its passage."""
        return not (self.likeliest or self.sibling or self.title)


@dataclass(frozen=True)
class Interpretation:
    """One reading of the question: a disambiguated rewrite and its answer."""

    question: str
    answer: str
    passages: list[str]
    score: float
    edit: Edit
    source: str = "rule"
    p: float | None = None  # the score's p(right) of its answer, when a score chose it


@dataclass(frozen=True)
class Also:
    """An answer a passage states that scored under the readings' threshold: shown apart, with its sentence."""

    answer: str
    passage: str  # the passage's id
    sentence: str  # the passage's sentence that states it
    p: float


@dataclass(frozen=True)
class Turn:
    """One answered turn of a conversation: the standalone question and the answers shown for it."""

    question: str
    answers: list[str] = field(default_factory=list)


@dataclass
class Result:
    """Everything the pipeline returns for one question."""

    question: str
    interpretations: list[Interpretation] = field(default_factory=list)
    paragraph: str = ""
    paragraph_source: str = ""
    paragraph_pending: str = ""  # while streaming: the sentence being written, not checked yet
    source: str = ""
    passages: list[Passage] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    message: str = ""
    read: list[str] = field(default_factory=list)  # the passages the LLM reader read, by id, in order
    candidates: list[Candidate] = field(default_factory=list)  # every answer it proposed, kept or dropped
    also: list[Also] = field(default_factory=list)  # "Also in the passages": answers scored under the readings
    also_pending: bool = False  # while streaming: more may still come under "also" (from the first reading until its last passage)

    @property
    def ambiguous(self) -> bool:
        return len(self.interpretations) > 1

    @property
    def answered(self) -> bool:
        return bool(self.interpretations)

    def to_dict(self) -> dict:
        return {
            "question": self.question,
            "interpretations": [asdict(i) for i in self.interpretations],
            "paragraph": self.paragraph,
            "paragraph_source": self.paragraph_source,
            "source": self.source,
            "passages": [asdict(p) for p in self.passages],
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "message": self.message,
            "read": self.read,
            "candidates": [asdict(c) for c in self.candidates],
            "also": [asdict(a) for a in self.also],
        }
