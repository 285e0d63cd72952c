"""One long-form paragraph that covers every interpretation and cites its passages as [n].

The generator writes one sentence per interpretation from that interpretation's evidence sentence
(streamed token by token), and the citation of its passage is appended to it: every sentence cites
by construction. A sentence is kept only if :func:`check_written` passes (it names its answer, states
no other answer, does not repeat itself); otherwise that interpretation gets its evidence-based
sentence instead. The whole paragraph must then pass :func:`check_paragraph`, else the evidence-based
paragraph of :func:`evidence_paragraph` is shown. Asked for a whole paragraph at once, the 0.5B
reader's model invented facts and looped ("He is the leader of the United States [1]. He is ...").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ambigdemo.runtimes.chat import Chat
from ambigdemo.runtimes.onnx import Generator
from ambigdemo.text import list_items, mentions, names_each, normalize_answer, split_sentences
from ambigdemo.types import Interpretation, Passage

CITATION = re.compile(r"\[(\d+)\]")
QUOTED = re.compile("\u201c[^\u201d]*\u201d")
CONTINUES = re.compile(r"\[\d+\]|[a-z]")
ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b(?:St|Mr|Mrs|Ms|Dr|Jr|Sr|Mt|vs|No))\.$")
MIN_WORDS = 4  # a bare "Pelé [2]." answers nothing as a paragraph


def paragraph_sentences(text: str) -> list[str]:
    """Sentences of a paragraph: a piece that starts with a citation or a lowercase word, or follows
    an initial or "St."-like abbreviation ("L.A. [12].", "St. Pancras"), stays with the one before."""
    merged: list[str] = []
    for piece in split_sentences(text):
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
    asked = normalize_answer(question)
    as_asked = [i for i in interpretations if normalize_answer(i.question) == asked]
    for i in interpretations:
        if i not in as_asked:
            parts.append(f"If the question is \u201c{i.question}\u201d, the answer is {i.answer} {cite(i)}.")
    if as_asked:  # no rewrite tells them apart: one sentence names them, not one "If the question is" each
        named = [f"{i.answer} {cite(i)}" for i in as_asked]
        listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
        parts.append(f"{'Read as asked, the passages also name' if len(as_asked) < len(interpretations) else 'The passages name'} {listed}.")
    return " ".join(parts)


def check_paragraph(text: str, interpretations: list[Interpretation], passages: list[Passage]) -> str | None:
    """Why a generated paragraph may not be shown, or None when it passes."""
    if not text.strip():
        return "empty"
    missing = [i.answer for i in interpretations if not names_each(text, i.answer)]
    if missing:
        return f"does not name {missing[0]!r}"
    sentences = paragraph_sentences(text)
    for sentence in sentences:
        why = check_sentence(sentence, interpretations, passages) or ("repeats itself" if loops(CITATION.sub("", sentence)) else None)
        if why:
            return why
    said = [normalize_answer(CITATION.sub("", s)) for s in sentences]
    return "repeats a sentence" if len(set(said)) < len(said) else None


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
    support = [f"{passages[n - 1].title}. {passages[n - 1].text}" for n in refs]
    said = CITATION.sub(" ", QUOTED.sub(" ", sentence))
    stated = [[a for a in aliases if normalize_answer(a) and mentions(said, a)] for aliases in answers]
    return [normalize_answer(found[0]) for found in stated if found and not any(names_each(t, a) for a in found for t in support)]


def paragraph_checks(text: str, answers: list[list[str]], passages: list[Passage]) -> dict[str, int]:
    """Counts for evaluation: sentences, cited sentences, and answers stated without a cited passage."""
    sentences = paragraph_sentences(text)
    return {
        "sentences": len(sentences),
        "cited": sum(bool(CITATION.search(s)) for s in sentences),
        "uncited_answers": sum(len(uncited_answers(s, answers, passages)) for s in sentences),
    }


@dataclass(frozen=True)
class Draft:
    """The paragraph so far: ``text`` holds checked sentences only, ``pending`` the sentence being
    written (not checked yet: it may still be replaced); ``source`` is set once ``final``."""

    text: str
    final: bool = False
    source: str = ""
    pending: str = ""


WRITE_SYSTEM = (
    "You write one sentence that answers a question with the given answer, using the words of the given "
    "fact. Write only that sentence, and nothing the fact does not say."
)
WRITE_EXAMPLES = (
    ("Pride and Prejudice is a novel by English author Jane Austen, published in 1813.",
     "Who wrote Pride and Prejudice?", "Jane Austen", "Pride and Prejudice is a novel by the English author Jane Austen, published in 1813."),
    ("Batman is a 1989 superhero film directed by Tim Burton. It stars Michael Keaton as Batman.",
     "Who played Batman in the 1989 film?", "Michael Keaton", "Michael Keaton played Batman in the 1989 film directed by Tim Burton."),
)
MAX_SENTENCE_WORDS = 45


def write_turn(chat: Chat, fact: str, question: str, answer: str, first: bool = False) -> str:
    return chat.ask(f"Fact: {fact}\nQuestion: {question}\nAnswer: {answer}", first)


def write_prefix(chat: Chat) -> str:
    """System turn and worked examples of the sentence writer (read once, then forked per sentence)."""
    turns = [chat.system(WRITE_SYSTEM)]
    for n, (fact, question, answer, sentence) in enumerate(WRITE_EXAMPLES):
        turns.append(write_turn(chat, fact, question, answer, first=n == 0) + sentence + chat.closer)
    return "".join(turns)


def loops(text: str) -> bool:
    """Greedy decoding's loop: a run of 2-4 words said again at once or one word later ("the two climbers
    are the two climbers"), or a run of 3 said three times. "President of the United States" said twice
    apart is no loop."""
    tokens = re.findall(r"\w+", text.lower())
    for n in (2, 3, 4):
        grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
        for i, gram in enumerate(grams):
            if gram in (grams[i + n : i + n + 2]):
                return True
        if n == 3 and any(grams.count(g) >= 3 for g in set(grams)):
            return True
    return False


APPOSITIVE_WORDS = 6  # an aside between commas this short adds a name or nothing
NAME_WORD = re.compile(r"\b[A-Z][\w'’-]*")


def without_repeated_names(text: str) -> str:
    """``text`` less each short aside between commas whose names were all said before it ("William
    Shakespeare wrote Hamlet, often shortened to Hamlet, a tragedy ..." -> "William Shakespeare wrote
    Hamlet, a tragedy ..."): the writer copies such asides from its fact, and the paragraph then
    names the question's subject as if it were new. An aside naming something new stays."""
    parts = text.split(",")
    kept = [parts[0]]
    for part in parts[1:-1]:
        names = set(NAME_WORD.findall(part))
        if names and len(part.split()) <= APPOSITIVE_WORDS and names <= set(NAME_WORD.findall(",".join(kept))):
            continue
        kept.append(part)
    return ",".join(kept + parts[-1:]) if len(parts) > 1 else text


def degenerate(text: str) -> str | None:
    """Why a written text is no sentence a person would keep: it repeats itself, runs on, or has placeholders."""
    if len(text.split()) > MAX_SENTENCE_WORDS:
        return "runs on"
    if loops(text):
        return "repeats itself"
    if re.search(r"\[(?!\d+\])[^\]]*\]|\n", text):
        return "has a placeholder or a line break"
    return None


def evidence_sentence(interpretation: Interpretation, passages: list[Passage]) -> str:
    """The sentence of the interpretation's passages that states its answer, or most names of a list answer
    (else its first passage's first)."""
    own = [p for p in passages if p.id in interpretation.passages]
    sentences = [s for p in own for s in split_sentences(p.text)]
    items = list_items(interpretation.answer)

    def states(sentence: str) -> tuple[bool, int]:
        return mentions(sentence, interpretation.answer), sum(mentions(sentence, i) for i in items)

    best = max(sentences, key=states, default="")
    return best if best and any(states(best)) else (sentences[0] if sentences else "")


def check_written(sentence: str, interpretation: Interpretation, interpretations: list[Interpretation], passages: list[Passage]) -> str | None:
    """Why a written sentence (its citation appended) may not stand for its interpretation."""
    if not names_each(sentence, interpretation.answer):
        return f"does not name {interpretation.answer!r}"
    return degenerate(CITATION.sub("", sentence)) or check_sentence(sentence, interpretations, passages)


@dataclass
class Summarizer:
    """Writes the paragraph with a generator when there is one, checked, else from the evidence."""

    generator: Generator | None = None
    max_new_tokens: int = 60
    _prefix: object = field(default=None, repr=False)

    def stream(self, question: str, interpretations: list[Interpretation], passages: list[Passage]) -> Iterator[Draft]:
        """Drafts while writing (finished sentences, then the one being written), then the text to keep."""
        fallback = Draft(evidence_paragraph(question, interpretations, passages), True, "evidence")
        if self.generator is None or not interpretations:
            yield fallback
            return
        numbers = citation_numbers(passages)
        done: list[str] = []
        written = 0
        for interp in interpretations:
            refs = "".join(f"[{numbers[pid]}]" for pid in interp.passages[:2] if pid in numbers)
            fact = evidence_sentence(interp, passages)
            text = ""
            for text in self.write(fact, interp.question, interp.answer):
                yield Draft(" ".join(done), pending=text)
            sentence = f"{without_repeated_names(text.strip()).rstrip('.')} {refs}."
            if refs and check_written(sentence, interp, interpretations, passages) is None:
                written += 1
            else:
                sentence = evidence_paragraph(interp.question, [interp], passages)
            done.append(sentence)
            yield Draft(" ".join(done))
        paragraph = " ".join(done)
        if written == len(interpretations) and check_paragraph(paragraph, interpretations, passages) is None:
            yield Draft(paragraph, True, "generated")
        elif written and check_paragraph(paragraph, interpretations, passages) is None:
            yield Draft(paragraph, True, "mixed")
        else:
            yield fallback

    def write(self, fact: str, question: str, answer: str) -> Iterator[str]:
        """One sentence answering ``question`` with ``answer`` from ``fact``, streamed."""
        if self._prefix is None:
            self._prefix = self.generator.context(write_prefix(self.generator.chat))
        context = self._prefix.fork().extend(write_turn(self.generator.chat, fact, question, answer))
        yield from self.generator.decode(context, self.max_new_tokens, stop=("\n",))
