"""One long-form paragraph that covers every interpretation and cites its passages as [n].

The generator writes it (streamed); the text is shown as final only if :func:`check_paragraph`
passes: every answer named, every sentence cites a passage, no citation points nowhere, and no
answer-like span is stated that its cited passage does not contain. Otherwise the evidence-based
construction of :func:`evidence_paragraph` is shown instead; generation stops at the first
finished sentence that fails, so a hopeless draft costs little.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ambigdemo.corpus import split_sentences as _split
from ambigdemo.runtimes.onnx import Generator, Message
from ambigdemo.text import normalize_answer
from ambigdemo.types import Interpretation, Passage

CITATION = re.compile(r"\[(\d+)\]")
QUOTED = re.compile("\u201c[^\u201d]*\u201d")
CONTINUES = re.compile(r"\[\d+\]|[a-z]")
ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b(?:St|Mr|Mrs|Ms|Dr|Jr|Sr|Mt|vs|No))\.$")
MIN_WORDS = 4  # a bare "Pelé [2]." answers nothing as a paragraph
SYSTEM = "You are a helpful assistant. You write short, factual paragraphs that use only the facts given."


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph: a piece that starts with a citation or a lowercase word, or follows
    an initial or "St."-like abbreviation ("L.A. [12].", "St. Pancras"), stays with the one before."""
    merged: list[str] = []
    for piece in _split(text):
        if merged and (CONTINUES.match(piece) or ABBREVIATION.search(merged[-1])):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged


def citation_numbers(passages: list[Passage]) -> dict[str, int]:
    return {p.id: n for n, p in enumerate(passages, 1)}


def evidence_paragraph(question: str, interpretations: list[Interpretation], passages: list[Passage]) -> str:
    """A faithful paragraph built from the interpretations and their passages, every sentence cited."""
    numbers = citation_numbers(passages)
    if not interpretations:
        return ""

    def cite(i: Interpretation) -> str:
        refs = [numbers[pid] for pid in i.passages if pid in numbers][:2]
        return "".join(f"[{n}]" for n in refs)

    if len(interpretations) == 1:
        i = interpretations[0]
        return f"The answer to \u201c{question.strip()}\u201d is {i.answer} {cite(i)}."
    parts = [f"\u201c{question.strip()}\u201d has {len(interpretations)} plausible answers, depending on what is meant {cite(interpretations[0])}."]
    for i in interpretations:
        parts.append(f"If the question is \u201c{i.question}\u201d, the answer is {i.answer} {cite(i)}.")
    return " ".join(parts)


def check_paragraph(text: str, interpretations: list[Interpretation], passages: list[Passage]) -> str | None:
    """Why a generated paragraph may not be shown, or None when it passes."""
    if not text.strip():
        return "empty"
    norm = normalize_answer(text)
    missing = [i.answer for i in interpretations if normalize_answer(i.answer) not in norm]
    if missing:
        return f"does not name {missing[0]!r}"
    for sentence in split_sentences(text):
        why = check_sentence(sentence, interpretations, passages)
        if why:
            return why
    return None


def check_sentence(sentence: str, interpretations: list[Interpretation], passages: list[Passage]) -> str | None:
    """Why one sentence may not be shown: it cites nothing, is a bare phrase, cites a missing passage, or states
    an uncited answer."""
    refs = [int(n) for n in CITATION.findall(sentence)]
    if not refs:
        return "a sentence cites nothing"
    if len(CITATION.sub(" ", sentence).split()) < MIN_WORDS:
        return "not a sentence"
    if any(n < 1 or n > len(passages) for n in refs):
        return "cites a passage that does not exist"
    uncited = uncited_answers(sentence, [[i.answer] for i in interpretations], passages)
    return f"states {uncited[0]!r} without citing a passage that contains it" if uncited else None


def uncited_answers(sentence: str, answers: list[list[str]], passages: list[Passage]) -> list[str]:
    """The answers (aliases each) that ``sentence`` states, as whole words outside the questions it
    quotes or its citation marks, although no passage it cites contains them."""
    refs = [int(n) for n in CITATION.findall(sentence) if 1 <= int(n) <= len(passages)]
    support = f" {normalize_answer(' '.join(passages[n - 1].text for n in refs))} "
    said = f" {normalize_answer(CITATION.sub(' ', QUOTED.sub(' ', sentence)))} "
    stated = [[k for k in map(normalize_answer, aliases) if k and f" {k} " in said] for aliases in answers]
    return [found[0] for found in stated if found and not any(f" {k} " in support for k in found)]


def paragraph_checks(text: str, answers: list[list[str]], passages: list[Passage]) -> dict[str, int]:
    """Counts for evaluation: sentences, cited sentences, and answers stated without a cited passage."""
    sentences = split_sentences(text)
    return {
        "sentences": len(sentences),
        "cited": sum(bool(CITATION.search(s)) for s in sentences),
        "uncited_answers": sum(len(uncited_answers(s, answers, passages)) for s in sentences),
    }


def finished_sentences(draft: str) -> list[str]:
    """Sentences of a growing draft that are complete: all but the last one, and any line that ended."""
    lines = draft.split("\n")
    done = [s for line in lines[:-1] for s in split_sentences(line)]
    return done + split_sentences(lines[-1])[:-1]


@dataclass(frozen=True)
class Draft:
    """The paragraph so far; ``source`` is ``generated`` or ``evidence`` once ``final``."""

    text: str
    final: bool = False
    source: str = ""


@dataclass
class Summarizer:
    """Writes the paragraph with a generator when there is one, checked, else from the evidence."""

    generator: Generator | None = None
    max_new_tokens: int = 160

    def stream(self, question: str, interpretations: list[Interpretation], passages: list[Passage]) -> Iterator[Draft]:
        """Drafts while generating, then the text to keep.

        Generation stops at the first finished sentence that fails :func:`check_sentence`, so a
        paragraph that cannot pass costs only the tokens up to its first bad sentence.
        """
        fallback = Draft(evidence_paragraph(question, interpretations, passages), True, "evidence")
        if self.generator is None or not interpretations:
            yield fallback
            return
        text = ""
        messages = [Message("system", SYSTEM), Message("user", self.prompt(question, interpretations, passages))]
        for text in self.generator.stream(messages, self.max_new_tokens, stop=("\n\n",)):
            yield Draft(text)
            if any(check_sentence(sentence, interpretations, passages) for sentence in finished_sentences(text)):
                yield fallback
                return
        text = text.strip()
        yield Draft(text, True, "generated") if check_paragraph(text, interpretations, passages) is None else fallback

    def prompt(self, question: str, interpretations: list[Interpretation], passages: list[Passage]) -> str:
        numbers = citation_numbers(passages)
        facts = "\n".join(
            f"- {i.question} Answer: {i.answer} [{numbers.get(i.passages[0], 1)}]" for i in interpretations
        )
        return (
            f"Question: {question}\nFacts:\n{facts}\n"
            "Write one short paragraph that answers the question, mentioning every answer above with what "
            "distinguishes it, and end every sentence with its [number]."
        )
