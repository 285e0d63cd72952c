"""Disambiguated questions: a minimal edit of the prompt whose answer is unambiguously one answer.

The edit words come from the answer's own evidence sentence, so a rewrite is grounded: first a
modifier that the evidence puts before a question word ("capital" -> "constitutional capital"),
or the name the evidence gives what is asked ("capital" -> "seat of government"), else a qualifier
phrase from the evidence ("in 1945", "in Europe"), else the passage's title.
A generator may propose a rewrite first; it is shown only if it passes :func:`check_rewrite`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ambigdemo.runtimes.onnx import Generator, Message
from ambigdemo.stages.answers import YEARISH
from ambigdemo.stages.question import STOPWORDS, Question, content_words, stem
from ambigdemo.text import normalize_answer, split_sentences, word_diff, words
from ambigdemo.types import Answer, Edit, Interpretation, Passage, passage_title

MODIFIER_POS = {"ADJ", "NOUN", "PROPN", "NUM"}
QUALIFIER_LABELS = ("DATE", "EVENT", "GPE", "LOC", "ORG", "WORK_OF_ART", "FAC", "PRODUCT", "LAW")
MAX_ADDED, MAX_REMOVED = 6, 3
GOLD_MAX_ADDED, GOLD_MAX_REMOVED = 10, 4  # 95% of AmbigNQ train's rewrites fit; 6 and 3 fit 80%
Proposer = Callable[[Answer], str]  # "Who won?" -> "Which team won?" names the answer's type
# What passages also call an asked noun (keyed by its 5-letter stem): La Paz "is the seat of government
# of Bolivia", one of its capitals in AmbigNQ
NOUN_ALIASES = {"capit": ("seat of government",)}
REWRITE_SYSTEM = (
    "You rewrite ambiguous questions. Change as few words as possible so that the question has only the "
    "given answer, and never include that answer. Reply with the question only."
)


def edit_of(prompt: str, rewrite: str) -> Edit:
    ops = word_diff(prompt, rewrite)
    return Edit(added=[w for op, w in ops if op == "+"], removed=[w for op, w in ops if op == "-"])


def rewrite_messages(question: str, answer: str, others: list[str]) -> list[Message]:
    """The rewriter's chat prompt: the same in training (``train-rewriter``) and in :class:`Rewriter`."""
    other = "; ".join(others) if others else "none"
    return [Message("system", REWRITE_SYSTEM), Message("user", f"Question: {question}\nAnswer: {answer}\nOther answers: {other}")]


def check_rewrite(prompt: Question | str, rewrite: str, answer: Answer, evidence: str | None) -> str | None:
    """Why a proposed rewrite may not be shown, or None when it passes every check.

    ``evidence`` None skips the grounding check (gold answers given, as in AmbigQA's QD setting),
    and then an edit may be as long as 95% of AmbigNQ's gold rewrites (``GOLD_MAX_*``).
    """
    prompt = Question.of(prompt)
    rewrite = rewrite.strip()
    edit = edit_of(prompt.text, rewrite)
    added_content = content_words(" ".join(edit.added))
    if not rewrite.endswith("?") or "\n" in rewrite:
        return "not a single question"
    if normalize_answer(rewrite) == prompt.normalized:
        return "same as the prompt"
    if not prompt.asks_as(rewrite):
        return "question word changed"
    max_added, max_removed = (GOLD_MAX_ADDED, GOLD_MAX_REMOVED) if evidence is None else (MAX_ADDED, MAX_REMOVED)
    if len(edit.added) > max_added or len(edit.removed) > max_removed:
        return "edit not minimal"
    if added_content & (content_words(answer.text) - prompt.words):
        return "gives the answer away"
    if evidence is not None and not added_content <= content_words(evidence):
        return "adds words the evidence does not support"
    if re.search(r"\b(\w+) \1\b", rewrite.lower()):
        return "repeated word"
    return None


@dataclass
class Rewriter:
    """Writes one disambiguated question per answer."""

    nlp: object
    generator: Generator | None = None
    max_new_tokens: int = 40

    def rewrite(
        self, question: Question | str, answers: list[Answer], propose: Proposer | None = None, keep_all: bool = False
    ) -> list[Interpretation]:
        """One interpretation per answer that a grounded, checked edit can single out; with ``keep_all``
        (answers a score chose, best first) one per answer in their order, those no checked edit singles out
        shown under the question as asked, marked ``source="as asked"``.

        ``propose`` (the LLM reader's rewrite from the answer's own passage) is tried first, instead
        of the configured generator; the rule-built edits remain the fallback.

        The best answer is the one the most passages support (the reader's first among equals): one
        passage misread ("the fourth-largest planet" read as the largest) is outvoted by two that
        agree. An answer no checked edit distinguishes is dropped rather than shown with an invented
        question. If the best answer is one of those, or only one answer remains, the best answer
        answers the prompt question as asked: weaker answers never displace it.
        """
        question = Question.of(question)
        if not keep_all:
            answers = sorted(answers, key=lambda a: -len(set(a.passages)))
        chosen = self._disambiguate(question, answers, propose=propose) if len(answers) > 1 else []
        if keep_all and len(answers) > 1:
            return [c or _as_asked(question.text, a, "as asked") for a, c in zip(answers, chosen)]
        readings = [i for i in chosen if i is not None]
        if len(readings) > 1 and chosen[0] is not None:
            return readings
        return [_as_asked(question.text, answers[0])] if answers else []

    def rewrite_gold(
        self, question: Question | str, answers: list[str], passages: list[Passage], propose: Proposer | None = None
    ) -> list[Interpretation]:
        """One interpretation per given answer, in order (AmbigQA's "gold answers given" setting).

        Each answer is grounded in the passages that mention it (:func:`ground`); its rewrite is the
        best checked edit (``propose``'s first, as in :meth:`rewrite`), else the prompt question itself.
        """
        question = Question.of(question)
        grounded = [ground(text, question, passages) for text in answers]
        chosen = self._disambiguate(question, grounded, gold=True, propose=propose)
        return [c or _as_asked(question.text, a) for a, c in zip(grounded, chosen)]

    def _disambiguate(
        self, question: Question, answers: list[Answer], gold: bool = False, propose: Proposer | None = None
    ) -> list[Interpretation | None]:
        """Per answer, its first checked rewrite not already taken by an earlier answer, or None."""
        proposals = [self._options(question, a, [o for o in answers if o is not a], gold, propose) for a in answers]
        chosen: list[Interpretation | None] = []
        seen = {question.normalized}
        for answer, options in zip(answers, proposals):
            text, source = next(((t, s) for t, s in options if normalize_answer(t) not in seen), (None, None))
            if text is None:
                chosen.append(None)
                continue
            seen.add(normalize_answer(text))
            chosen.append(Interpretation(text, answer.text, answer.passages, answer.score, edit_of(question.text, text), source, answer.p))
        return chosen

    def _options(
        self, question: Question, answer: Answer, others: list[Answer], gold: bool = False, propose: Proposer | None = None
    ) -> list[tuple[str, str]]:
        """Candidate rewrites, best first: the generator's (if it passes), modifiers, qualifiers, title.

        With ``propose`` (the LLM reader) in the app only its proposal and modifiers: a date or title
        qualifier ("... in 2023?") passes the checks but rarely names what tells the readings apart.
        Given gold answers, every option stays: a qualifier still beats the prompt question unchanged.

        For given (``gold``) answers, as in AmbigQA's QD setting, the generator's proposal passes on
        form alone (:func:`check_rewrite` without evidence): most gold answers are in no passage of
        the embedded corpus. In the app every proposal must be grounded in its answer's evidence.
        """
        evidence = f"{answer.context} {_title(answer)}"
        generated = []
        if propose is not None or self.generator is not None:
            proposal, source = (propose(answer), "llm") if propose is not None else (self._generate(question.text, answer, others), "generator")
            if proposal and check_rewrite(question, proposal, answer, None if gold else evidence) is None:
                if not any(normalize_answer(o.text) in normalize_answer(proposal) for o in others):
                    generated.append((proposal, source))
        options = []
        shared = set().union(*(content_words(o.context) for o in others)) if others else set()
        doc = self.nlp(answer.context)
        options += [(t, "modifier") for t in _modifier_rewrites(question, doc, answer, shared)]
        options += [(t, "alias") for t in _alias_rewrites(question, answer)]
        if propose is None or gold:  # in the app an LLM reader's answer gets only its own or a modifier edit
            options += [(t, "qualifier") for t in _qualifier_rewrites(question, doc, answer, shared)]
            title = _title(answer)
            if title and not content_words(title) <= question.words:
                options.append((f"{question.text.rstrip(' ?')} in the context of {title}?", "title"))
        return generated + [(t, s) for t, s in options if check_rewrite(question, t, answer, evidence + " context") is None]

    def _generate(self, question: str, answer: Answer, others: list[Answer]) -> str:
        messages = rewrite_messages(question, answer.text, [o.text for o in others])
        return self.generator.generate(messages, self.max_new_tokens, stop=("\n",)).strip().strip('"')


def ground(text: str, question: Question | str, passages: list[Passage]) -> Answer:
    """An answer given as text, with the passages that mention it as evidence (the context's first).

    Its context is the mentioning sentence that shares most words with the question (ties: the
    better retrieved passage); an answer no passage mentions has no passages and no context.
    """
    key = normalize_answer(text)
    qwords = Question.of(question).words
    mentions = [
        (len(qwords & content_words(sentence)), p.score, p.id, sentence)
        for p in sorted(passages, key=lambda p: -p.score)
        for sentence in split_sentences(p.text)
        if key and f" {key} " in f" {normalize_answer(sentence)} "
    ]
    if not mentions:
        return Answer(text=text, score=0.0, passages=[])
    _, score, best, context = max(mentions, key=lambda m: m[:2])
    ids = list(dict.fromkeys([best] + [m[2] for m in mentions]))
    return Answer(text=text, score=round(score, 4), passages=ids, context=context)


def _as_asked(question: str, answer: Answer, source: str = "prompt") -> Interpretation:
    """``answer`` under the question as asked: the prompt's own answer, or (``source="as asked"``) a reading
    no checked edit singles out, which its passage's title tells apart."""
    return Interpretation(question, answer.text, answer.passages, answer.score, Edit(), source=source, p=answer.p)


def _title(answer: Answer) -> str:
    return passage_title(answer.passages[0]) if answer.passages else ""


def _modifier_rewrites(question: Question, doc, answer: Answer, shared: set[str]) -> list[str]:
    """Insert the words the evidence puts right before a question word, if they distinguish this answer."""
    qtokens = words(question.text)
    qwords = question.words
    answer_words = content_words(answer.text)
    results = []
    for i, qtok in enumerate(qtokens):
        if qtok.lower() in STOPWORDS or not content_words(qtok) or _inside_name(qtokens, i):
            continue
        after = qtokens[i + 1] if i + 1 < len(qtokens) else ""
        for tok in doc:
            if tok.lower_ != qtok.lower():
                continue
            if after[:1].isupper() and (tok.i + 1 >= len(doc) or doc[tok.i + 1].lower_ != after.lower()):
                continue  # "Eiffel" of "Gustave Eiffel" is not the "Eiffel" of "Eiffel Tower"
            mods = []
            j = tok.i - 1
            while j >= 0 and len(mods) < 2 and doc[j].pos_ in MODIFIER_POS:
                w = doc[j].text
                if not content_words(w) or content_words(w) & (qwords | answer_words) or doc[j].ent_type_ in ("DATE", "CARDINAL", "ORDINAL"):
                    break
                mods.insert(0, w)
                j -= 1
            if mods and not content_words(" ".join(mods)) <= shared:
                before = qtokens[:i]
                if before and before[-1].lower() in ("a", "an"):
                    before = before[:-1] + [_article(before[-1], mods[0])]
                results.append(" ".join(before + mods + qtokens[i:]))
    return [_detokenize(r) for r in results]


def _alias_rewrites(question: Question, answer: Answer) -> list[str]:
    """The question asking for its noun by the name the evidence gives this answer ("What is the seat of
    government of Bolivia?" where it says "La Paz, officially ..., is the seat of government of Bolivia")."""
    tokens, text, name = words(question.text), answer.context.lower(), re.escape(answer.text.lower())
    results = []
    for i, token in enumerate(tokens):
        for alias in NOUN_ALIASES.get(stem(token.lower())[:5], ()):
            said = rf"{name}(?:,[^.]*?,)? (?:is|was) the {alias}\b|\bthe {alias} (?:is|was) {name}\b"
            if re.search(said, text):
                results.append(_detokenize(" ".join(tokens[:i] + alias.split() + tokens[i + 1 :])))
    return results


def _inside_name(tokens: list[str], i: int) -> bool:
    """Whether token ``i`` continues a capitalised name ("Tower" of "Eiffel Tower"): nothing goes before it."""
    return i > 1 and tokens[i][:1].isupper() and tokens[i - 1][:1].isupper()


def _qualifier_rewrites(question: Question, doc, answer: Answer, shared: set[str]) -> list[str]:
    """Append an entity from the evidence ("in 1945", "in Europe") that the other answers' evidence lacks.

    Never one of the type the question asks for ("When ... in 1964?"): that is another answer, not a qualifier.
    """
    qwords = question.words
    answer_key = normalize_answer(answer.text)
    answer_like = {label for label, prior in question.type.labels.items() if prior >= 1.0}
    ranked = sorted(doc.ents, key=lambda e: QUALIFIER_LABELS.index(e.label_) if e.label_ in QUALIFIER_LABELS else 99)
    results = []
    for ent in ranked:
        words_ = content_words(ent.text)
        key = normalize_answer(ent.text)
        if ent.label_ not in QUALIFIER_LABELS or ent.label_ in answer_like or not words_ or words_ <= qwords:
            continue
        if key in answer_key or answer_key in key or (ent.label_ == "DATE" and not YEARISH.search(ent.text)):
            continue
        if words_ <= shared:
            continue
        phrase = ent.text.strip(" ,.;:")
        preposition = "in" if ent.label_ in ("DATE", "EVENT", "GPE", "LOC", "FAC") else "according to" if ent.label_ == "ORG" else "in"
        results.append(f"{question.text.rstrip(' ?')} {preposition} {phrase}?")
    return results


def _article(article: str, following: str) -> str:
    """'a' or 'an' for the word that now follows it, keeping the article's capitalisation."""
    fixed = "an" if following[:1].lower() in "aeiou" else "a"
    return fixed.capitalize() if article[:1].isupper() else fixed


def _detokenize(text: str) -> str:
    return re.sub(r"\s+([?.!,;:'’])", r"\1", text).replace(" - ", "-")
