"""Which gold answers a passage collection supports: the rule behind the corpus-supported subset.

An answer is *supported* when one of its aliases occurs, as whole words after SQuAD normalisation,
in a passage (title and text) that shares at least ``MIN_SHARED`` content word with the question. A multi-answer question is in the subset when
every answer of its first multipleQAs annotation is supported. The rule reads only the passages and
the gold data, never a system's output, so the subset is the same for every system compared on it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ambigdemo.evaluation.datasets import AmbigExample
from ambigdemo.stages.question import Question, content_words
from ambigdemo.text import passages_text, phrase_keys
from ambigdemo.types import Passage

MIN_SHARED = 1


@dataclass(frozen=True)
class SupportedQuestion:
    """A subset question: its gold answers (aliases each) and, per answer, the passages supporting it."""

    id: str
    question: str
    answers: list[list[str]]
    evidence: list[list[str]]


class SupportIndex:
    """Normalised passages with an inverted index of their content words."""

    def __init__(self, passages: Sequence[Passage]):
        self.passages = list(passages)
        self.texts = [passages_text([p]) for p in self.passages]
        self.words = [content_words(f"{p.title} {p.text}") for p in self.passages]
        self.postings: dict[str, list[int]] = defaultdict(list)
        for n, ws in enumerate(self.words):
            for w in ws:
                self.postings[w].append(n)

    def related(self, question: str) -> list[int]:
        """Passages sharing ``MIN_SHARED`` content words with the question (all of them, if it has fewer).

        On AmbigNQ dev_light, 1 keeps 73 multi-answer questions and 2 keeps 24 (train_light: 475, 172).
        """
        qwords = Question.of(question).words
        need = min(MIN_SHARED, len(qwords))
        if need == 0:
            return []
        counts: dict[int, int] = defaultdict(int)
        for w in qwords:
            for n in self.postings.get(w, ()):
                counts[n] += 1
        return sorted(n for n, c in counts.items() if c >= need)

    def evidence(self, question: str, aliases: Sequence[str], related: list[int] | None = None) -> list[str]:
        """Ids of the related passages that contain one of ``aliases``."""
        keys = phrase_keys(aliases)
        related = self.related(question) if related is None else related
        return [self.passages[n].id for n in related if any(k in self.texts[n] for k in keys)]


def first_multi_answers(example: AmbigExample) -> list[list[str]]:
    """The answers (aliases each) of the first multipleQAs annotation with two or more, or []."""
    ann = next((a for a in example.annotations if not a.is_single and len(a.qa_pairs) > 1), None)
    return [qa.answers for qa in ann.qa_pairs] if ann else []


def supported_subset(examples: Sequence[AmbigExample], index: SupportIndex) -> list[SupportedQuestion]:
    """The multi-answer questions every one of whose gold answers the passages support, in file order."""
    chosen = []
    for example in examples:
        answers = first_multi_answers(example)
        if not answers:
            continue
        related = index.related(example.question)
        evidence = [index.evidence(example.question, aliases, related) for aliases in answers]
        if all(evidence):
            chosen.append(SupportedQuestion(example.id, example.question, answers, evidence))
    return chosen
