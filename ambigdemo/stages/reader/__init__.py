"""The LLM reader: a small instruction-tuned model reads each relevant passage and says what answer it
states, then rewrites the question for that answer from the same passage (one KV cache per passage).

One path, a module per step, sharing one analysed :class:`~ambigdemo.stages.question.Question`:

1. **recall** (:mod:`.recall`, prompts in :mod:`.prompts`): the passages within ``relevance`` of the
   best retrieval score (above ``min_score``, at most ``max_passages``) are read one at a time; the
   model replies with the answer the passage states, or "none"; for the first ``branch_passages``
   its less likely replies that reach ``branch_min`` are read too (tuned on the dev questions); with
   ``siblings``, so are the other names of the list a reply's answer is named in ("bordered by Italy to the south,
   France to the west, ..."), and with ``titles`` the passage's subject, each scored by the model as if replied
   (with ``also_titles`` the subject is scored after the readings, for "also in the passages" only, and with
   ``also_branches`` so are the less likely replies that reach ``branch_min`` of the passages the readings come from);
   then ``further_passages`` more, whose answers must be stated beside ``further_coverage`` of the question's words,
   and with ``lexical`` the passage BM25 ranks first when the dense scores left it unread;
2. **verify** (:mod:`.verify`): the answer must be stated by its passage, and pass the two checks on
   the question that measurably lower wrong readings;
3. **select** (:mod:`.select`): shown as its article names it, with the names listed beside it, and
   folded into an earlier answer it is an alias of;
4. **disambiguate** (:mod:`.disambiguate`): the model's rewrite for the answer continues its passage's
   cache; :class:`~ambigdemo.stages.rewrite.Rewriter` checks it.

Why one passage at a time: asked to list every answer over several passages at once, the 0.5B and 1.5B
models list each passage's subject or give one answer (docs/reader.md); asked of one passage, they
answer well, a different passage can give a different answer (AmbigQA's multi-answer questions), and
the first answer streams after one passage. If no passage gets a readable reply at all,
:class:`MalformedOutput` tells the pipeline to answer with the heuristic reader instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ambigdemo.runtimes.onnx import Context, Generator
from ambigdemo.stages.answers import names_subject, repeats
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.disambiguate import ask_rewrite
from ambigdemo.stages.reader.prompts import closed_book_question, closed_book_system, example_prefix, passage_turn
from ambigdemo.stages.reader.recall import beyond, parse_reply, relevant
from ambigdemo.stages.reader.select import add, other_names, shown_as, subject_named
from ambigdemo.stages.reader.verifier import Clue, Verifier, features, position, relate, tiers
from ambigdemo.stages.reader.verify import evidence, in_own_words, rejection
from ambigdemo.types import Also, Answer, Candidate, Passage

__all__ = ["HOW", "LlmReader", "MalformedOutput", "ReaderRun", "ask_rewrite", "relevant"]

# How a candidate came: the model's likeliest reply for its passage, one of its less likely replies, another name
# of the list the likeliest reply's answer is named in, or the passage's subject
HOW = ("reply", "branch", "sibling", "title")


class MalformedOutput(ValueError):
    """No reply of the model could be read as an answer or "none"; the message quotes one."""


@dataclass
class ReaderRun:
    """One run of the reader over one question's passages: the answers found so far, each with the cache of the
    passage it came from (a *reading* is what the user is shown: an interpretation)."""

    reader: "LlmReader"
    question: Question
    passages: list[Passage]
    replies: dict[str, str] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)  # the passages read so far, by id
    candidates: list[Candidate] = field(default_factory=list)  # every answer replied, and verify's verdict
    found: list[Answer] = field(default_factory=list)
    readable: int = 0  # replies that read as an answer or "none"
    also: list[Also] = field(default_factory=list)  # answers scored under the readings, over ``verifier.also``
    _contexts: dict[str, Context] = field(default_factory=dict, repr=False)
    _replied: dict[tuple[str, str], Context] = field(default_factory=dict, repr=False)  # (passage, candidate): its reply's context
    _priors: dict[str, float] = field(default_factory=dict, repr=False)
    _shown: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)  # (passage, candidate): as select shows it
    _closed: Context | None = field(default=None, repr=False)
    _also_only: set[str] = field(default_factory=set, repr=False)  # passages read for "also" only (:meth:`read_for_also`)
    _own: dict[int, dict[str, float]] = field(default_factory=dict, repr=False)  # a candidate's features from its passage alone
    _later: list[tuple[Passage, Context]] = field(default_factory=list, repr=False)  # passages whose subject or less likely replies are read for "also" only

    @property
    def dropped(self) -> list[str]:
        """The answers replied that verify rejected, in order."""
        return [c.text for c in self.candidates if c.rejection]

    def answers(self) -> Iterator[Answer]:
        """Verified, distinct answers, one passage at a time in retrieval order; a later passage that
        states an answer already found adds itself to that answer's passages (yielded again, updated).
        With a score (``verifier``) the answers are chosen again after each passage, every candidate so far
        compared with every other (:meth:`decide`): the best-scored first. ``found`` holds the answers so far."""
        reader = self.reader
        for rank, (passage, least) in enumerate(self.to_read()):
            self.read.append(passage.id)
            for reply, context, logp, how in self._replies(rank, passage):
                answer = self.take(passage, reply, how, least_coverage=least, logp=logp, context=context)
                if answer is None:
                    continue
                self._contexts.setdefault(answer.text, context)
                yield answer
                if len(self.found) >= reader.max_answers:
                    break
            if reader.verifier is not None:
                before = list(self.found)
                self.decide()
                if self.found and self.found != before:
                    yield self.found[0]
            elif len(self.found) >= reader.max_answers:
                break
        if self.replies and not self.readable:
            raise MalformedOutput(f"no reply reads as an answer: {next(iter(self.replies.values()))[:200]!r}")

    def found_so_far(self) -> Iterator[list[Answer]]:
        """The verified answers found so far, after each answer :meth:`answers` yields, and once more at the end
        when the last decision changed them (a later passage can leave no candidate at a reading's bar)."""
        shown: list[Answer] = []
        for _ in self.answers():
            shown = list(self.found)
            yield shown
        if self.found != shown:
            yield list(self.found)

    def read_for_also(self) -> Iterator[list[Also]]:
        """After the readings: the subjects and less likely replies of the passages read (``also_titles``,
        ``also_branches``), then up to ``also_passages`` more of the retrieved passages (over ``min_score``, in retrieval
        order), ``also`` after each, for the "also" tier only. None of them becomes a reading, so the readings, their
        rewrites and the paragraph are what they were; one shows under "Also in the passages" when its p reaches its bar
        (:meth:`decide`)."""
        if not self.reads_for_also:
            return
        if self._later:
            self._take_later()
            self.decide()
            yield list(self.also)
        for passage in self._further():
            self.read.append(passage.id)
            self._also_only.add(passage.id)
            for reply, context, logp, how in self._replies(len(self.passages), passage):
                self.take(passage, reply, how, logp=logp, context=context)
            self._take_later()
            self.decide()
            yield list(self.also)

    @property
    def reads_for_also(self) -> bool:
        """Whether :meth:`read_for_also` has anything to read."""
        return self.reader.verifier is not None and bool(self._later or self._further())

    def _further(self) -> list[Passage]:
        """The passages read for "also" only: up to ``also_passages`` of those not read yet, over ``min_score``."""
        read = set(self.read)
        done = [p for p in self.passages if p.id in read]
        return beyond(self.passages, done, self.reader.min_score, self.reader.also_passages)

    def _take_later(self) -> None:
        """For the passages read so far, scored for the "also" tier only: with ``also_titles`` their subjects, then with
        ``also_branches`` the model's less likely replies that reach ``branch_min`` (of the passages the readings were
        chosen from; those read for "also" only give none)."""
        reader = self.reader
        while self._later:
            passage, start = self._later.pop(0)
            if reader.also_titles and not reader.titles:
                for subject, context, logp, how in self._subject(passage, start):
                    self.take(passage, subject, how, logp=logp, context=context)
            if reader.also_branches and passage.id not in self._also_only:
                for text, p, branch in start.alternatives(reader.branch_tokens, reader.max_answer_tokens, ("\n",), reader.branch_min):
                    if p >= reader.branch_min:
                        self.take(passage, text, "branch", logp=math.log(p), context=branch)

    @property
    def chosen_by_verifier(self) -> bool:
        """Whether a learned verifier, not verify's rules, chose the answers."""
        return self.reader.verifier is not None

    def to_read(self) -> list[tuple[Passage, float]]:
        """The passages read, in order, each with the share of the question's words a sentence stating its
        answer must hold: none for those within ``relevance`` of the best, ``further_coverage`` for the
        ``further_passages`` read after them; then, with ``lexical``, the passage BM25 ranks first when it is not
        among them (none)."""
        reader = self.reader
        gated = relevant(self.passages, reader.relevance, reader.min_score, reader.max_passages)
        later = beyond(self.passages, gated, reader.min_score, reader.further_passages) if gated else []
        ids = {p.id for p in gated + later}
        lexical = [p for p in self.passages if p.lexical and p.id not in ids][:1] if reader.lexical else []
        return [(p, 0.0) for p in gated] + [(p, reader.further_coverage) for p in later] + [(p, 0.0) for p in lexical]

    def _replies(self, rank: int, passage: Passage) -> Iterator[tuple[str, Context, float, str]]:
        """The model's likeliest reply for the ``rank``-th passage read, then, for the first
        ``branch_passages``, its less likely replies that reach ``branch_min`` (computed only after the
        likeliest one's answer is shown), then, with ``siblings``, the other names of the list its answer is
        named in (:func:`~.select.other_names`), then, with ``titles``, the passage's subject when none of those named
        it (:func:`~.select.subject_named`), each as if the model had replied it; each with the context that ends
        with it, its log probability, and how it came (:data:`HOW`)."""
        reader = self.reader
        start = reader.start(self.question.text, passage)
        context, logps = start.fork(), []
        reply = context.complete(reader.max_answer_tokens, stop=("\n",), logps=logps)
        yield reply, context, sum(logps), "reply"
        if rank < reader.branch_passages:
            for text, p, branch in start.alternatives(reader.branch_tokens, reader.max_answer_tokens, stop=("\n",)):
                if p >= reader.branch_min:
                    yield text, branch, math.log(p), "branch"
        answer = parse_reply(reply, names=self.question.asks_person)
        if reader.siblings and answer:
            for name in other_names(self.question, in_own_words(answer, passage), passage, reader.nlp):
                branch = start.fork()
                yield name, branch, branch.follow(name), "sibling"
        if reader.titles:
            yield from self._subject(passage, start)
        if (reader.also_titles and not reader.titles) or reader.also_branches:
            self._later.append((passage, start))

    def _subject(self, passage: Passage, start: Context) -> Iterator[tuple[str, Context, float, str]]:
        """The passage's subject as if the model had replied it from ``start``, when it reads as an answer that
        nothing read from the passage named (:func:`~.select.subject_named`)."""
        subject = subject_named(self.question, passage, [c.text for c in self.candidates if c.passage == passage.id])
        if subject:
            branch = start.fork()
            yield subject, branch, branch.follow(subject), "title"

    def take(self, passage: Passage, reply: str, how: str = "reply", least_coverage: float = 0.0,
             logp: float = 0.0, context: Context | None = None) -> Answer | None:
        """The model's ``reply`` for ``passage`` through verify and select: the new or updated answer in
        ``found``, or None when the reply is "none", unreadable or rejected (with why, in ``candidates``).
        Only the likeliest reply (``how``, :data:`HOW`) is recorded as the passage's reply.
        With a score (``verifier``) a grounded reply is only recorded as a candidate with its features (``logp``,
        the reply's log probability, is one), and :meth:`decide` chooses among all of them."""
        text = parse_reply(reply, names=self.question.asks_person)
        alternative = how != "reply"
        if not alternative:
            self.replies[passage.id] = reply
            self.readable += text is not None
        if not text:
            return None
        text = in_own_words(text, passage)
        if self.reader.verifier is None:
            why = rejection(self.question, text, passage, least_coverage)
            self.candidates.append(Candidate(passage.id, text, not alternative, why or "", sibling=how == "sibling", title=how == "title"))
            return None if why else add(self.found, shown_as(self.question, text, passage, self.reader.nlp), passage)
        why = rejection(self.question, text, passage)
        named = {}
        if why is None:
            earlier = [c.text for c in self.candidates if c.features and not self._apart(c)]  # the answers before it that verify's rules passed
            clue = Clue(self.question, text, passage, self.passages, logp, not alternative, position(text, earlier), self.prior(text),
                        how == "sibling", how == "title")
            named = features(clue, self.reader.nlp)
            self._own[len(self.candidates)] = named
            if context is not None:
                self._replied[(passage.id, text)] = context
        self.candidates.append(Candidate(passage.id, text, not alternative, why or "", None, named, how == "sibling", how == "title"))
        return None

    def prior(self, text: str) -> float:
        """The log probability of ``text`` as the model's reply to the question asked with no passage."""
        if text not in self._priors:
            if self._closed is None:
                self._closed = self.reader.closed_book(self.question.text)
            self._priors[text] = self._closed.logp(text)
        return self._priors[text]

    def decide(self) -> None:
        """Choose the readings and the "also" tier among every grounded candidate so far: each scored once
        (its features beside the others', :func:`relate`), then taken best first: a reading while its p(right)
        reaches what the next reading needs (:meth:`Verifier.needs`, at most ``max_answers``; ``verifier.listed`` for
        another name of a list that gave a reading: a passage's reply and the names listed with it), else "also in the
        passages" from ``verifier.also`` (beside a reading from ``verifier.also_beside``); a candidate naming an answer
        already taken only adds its passage, and an "also" answer naming a reading's passage's subject as the reading
        does is not listed (:meth:`_names_reading`)."""
        verifier = self.reader.verifier
        scored = [i for i, c in enumerate(self.candidates) if c.features]
        replied = [i for i in scored if not self._apart(self.candidates[i])]
        grounded = [i for i in replied if self.candidates[i].passage not in self._also_only]
        # the readings' candidates compared among themselves (what is read for "also" only never moves a reading), the
        # "also"-only passages' with every reply, and the subjects read for "also" with every candidate (they move none)
        for group in (scored, replied, grounded):
            rows = relate([dict(self._own[i]) for i in group], [self.candidates[i].text for i in group])
            for i, row in zip(group, rows):
                self.candidates[i] = replace(self.candidates[i], features=row, p=round(verifier.p(row), 4))
        by_id = {p.id: p for p in self.passages}
        shown = [self._shown_as(self.candidates[i], by_id[self.candidates[i].passage]) for i in grounded]
        listing = {self.candidates[i].passage for i in grounded if self.candidates[i].sibling}
        lists = [c.passage if c.passage in listing and (c.sibling or c.likeliest) else None
                 for c in (self.candidates[i] for i in grounded)]
        chosen = tiers(shown, [self.candidates[i].p for i in grounded], verifier, self.reader.max_answers, lists)
        found: list[Answer] = []
        also: list[Also] = []
        for j in sorted(range(len(grounded)), key=lambda j: (chosen[j] != "reading", -self.candidates[grounded[j]].p, j)):
            c, text, passage = self.candidates[grounded[j]], shown[j], by_id[self.candidates[grounded[j]].passage]
            if chosen[j] == "same":
                add(found, text, passage)
            elif chosen[j] == "reading":
                add(found, text, passage)
                found[-1] = replace(found[-1], p=c.p)
                self._contexts[text] = self._replied.get((c.passage, c.text))
            elif chosen[j] == "also":
                also.append(Also(text, passage.id, evidence(text, passage), c.p))
        further = sorted((i for i in scored if self._for_also(self.candidates[i])), key=lambda i: -self.candidates[i].p)
        for i in further:
            c, passage = self.candidates[i], by_id[self.candidates[i].passage]
            text = self._shown_as(c, passage)
            bar = (verifier.also_titles if c.title else verifier.also_branches) if self._apart(c) else verifier.also_further
            if c.p >= verifier.also_bar(bar, len(found)) and not repeats(text, [a.text for a in found] + [a.answer for a in also]):
                also.append(Also(text, passage.id, evidence(text, passage), c.p))
        self.found = found
        self.also = [a for a in also if not self._names_reading(a.answer, by_id[a.passage], found)]

    def record(self) -> dict:
        """What :meth:`decide` chose from, as JSON: the question, the passages read, and every candidate with the
        features it was read with (before :func:`relate`) and as select showed it, and which passages were read for
        "also" only. The reading does not depend on the score, so :meth:`replay` decides again from it exactly as a run
        under another score would."""
        read = set(self.read)
        return {
            "question": self.question.text,
            "passages": [asdict(p) for p in self.passages if p.id in read],
            "candidates": [{**asdict(c), "own": self._own.get(i), "shown": self._shown.get((c.passage, c.text))}
                           for i, c in enumerate(self.candidates)],
            "also_only": sorted(self._also_only),
        }

    @classmethod
    def replay(cls, reader: "LlmReader", record: dict) -> "ReaderRun":
        """The run ``record`` (:meth:`record`) was made from, decided again by ``reader``'s score: ``found`` and
        ``also`` are what that score would show, with no model call."""
        passages = [Passage(**p) for p in record["passages"]]
        run = cls(reader, Question.of(record["question"]), passages, read=[p.id for p in passages])
        for i, c in enumerate(record["candidates"]):
            kept = {k: v for k, v in c.items() if k not in ("own", "shown")}
            run.candidates.append(Candidate(**kept))
            if c["own"] is not None:
                run._own[i] = c["own"]
            if c["shown"] is not None:
                run._shown[(c["passage"], c["text"])] = c["shown"]
        run._also_only = set(record["also_only"])
        run.decide()
        return run

    @staticmethod
    def _names_reading(text: str, passage: Passage, found: list[Answer]) -> bool:
        """Whether ``text``, an answer of ``passage``, names its subject as a reading from that passage does: the same
        answer in another of the article's names ("Constantine the Great" beside "Constantine I")."""
        return names_subject(text, passage) and any(passage.id in a.passages and names_subject(a.text, passage) for a in found)

    def _for_also(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` is read for the "also" tier only: from a further passage, or a subject read after the
        readings."""
        return candidate.passage in self._also_only or self._apart(candidate)

    def _apart(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` is a passage's subject or a less likely reply read after the readings (``also_titles``,
        ``also_branches``): it moves no other candidate's features."""
        return (candidate.title and self.reader.also_titles) or (candidate.branch and self.reader.also_branches)

    def _shown_as(self, candidate: Candidate, passage: Passage) -> str:
        """The candidate as select shows it, computed once per run (:meth:`decide` runs after every passage)."""
        key = (candidate.passage, candidate.text)
        if key not in self._shown:
            self._shown[key] = shown_as(self.question, candidate.text, passage, self.reader.nlp)
        return self._shown[key]

    def propose_rewrite(self, answer: Answer) -> str:
        """The model's rewrite of the question for ``answer``, continuing its passage's cache ("" if none)."""
        context = self._contexts.get(answer.text)
        return "" if context is None else ask_rewrite(context, answer.text, self.reader.max_rewrite_tokens)


@dataclass
class LlmReader:
    """Reads passages with one chat generator (ChatML); the examples' cache is computed once, on first use."""

    generator: Generator
    relevance: float = 0.9
    min_score: float = 0.45
    max_passages: int = 4
    passage_words: int = 100
    max_answers: int = 5
    max_answer_tokens: int = 16
    max_rewrite_tokens: int = 32
    branch_passages: int = 0  # of the passages read, how many are also asked for less likely replies
    branch_min: float = 1.0  # the probability a less likely reply needs to be read as an answer
    branch_tokens: int = 5  # the replies starting with the 2nd to 5th likeliest first token
    also_passages: int = 0  # passages read after the readings for the "also" tier only (:meth:`ReaderRun.read_for_also`)
    siblings: bool = False  # the other names of a list a reply's answer is named in are read as less likely replies
    titles: bool = False  # each passage's subject is read as a less likely reply when nothing read from it named it
    also_titles: bool = False  # ... or, without ``titles``, after the readings, for the "also" tier only
    also_branches: bool = False  # the readings' passages' less likely replies (from ``branch_min``), later, for "also" only
    lexical: bool = False  # the passage BM25 ranks first is read too, last, wherever the dense scores put it
    further_passages: int = 0  # passages read after those within ``relevance`` (above ``min_score``)
    further_coverage: float = 1.0  # the share of the question's words their answer's sentence must hold
    nlp: Any = None  # a spaCy pipeline with NER: an answer listed with others is shown with them (``listed_with``)
    verifier: Verifier | None = None  # chooses the answers kept (verifier.py); None: verify's rules
    _prefix: Context | None = field(default=None, repr=False)
    _closed_prefix: Context | None = field(default=None, repr=False)

    def adopt_prefix(self, other: "LlmReader") -> None:
        """Use ``other``'s computed caches (a reader of the same model with other settings)."""
        if other.generator is self.generator:
            self._prefix, self._closed_prefix = other._prefix, other._closed_prefix

    def prefix(self) -> Context:
        if self._prefix is None:
            self._prefix = self.generator.context(example_prefix(self.generator.chat))
        return self._prefix

    def closed_book(self, question: str) -> Context:
        """The context that ends where the model's reply to ``question`` asked with no passage begins (its system
        turn's cache computed once, on first use: half the prior's cost)."""
        if self._closed_prefix is None:
            self._closed_prefix = self.generator.context(closed_book_system(self.generator.chat))
        return self._closed_prefix.fork().extend(closed_book_question(self.generator.chat, question))

    def start(self, question: str, passage: Passage) -> Context:
        """The context that ends where the model's reply for one passage begins."""
        return self.prefix().fork().extend(passage_turn(self.generator.chat, passage.title, passage.text, question, self.passage_words))

    def reply(self, question: str, passage: Passage) -> tuple[str, Context]:
        """The model's raw reply for one passage, and the context that ends with it (for the rewrite)."""
        context = self.start(question, passage)
        return context.complete(self.max_answer_tokens, stop=("\n",)), context

    def read(self, question: Question | str, passages: list[Passage]) -> ReaderRun:
        return ReaderRun(self, Question.of(question), passages)

    def answer(self, question: str, context: str) -> str:
        """A short answer to ``question`` from ``context`` alone ("" when it reads none): ASQA's
        Disambig-F1 reader role (``metrics.Reader``), played by the app's model instead of RoBERTa."""
        turn = passage_turn(self.generator.chat, "Answer", context, question, self.passage_words * 3)
        reply = self.prefix().fork().extend(turn).complete(self.max_answer_tokens, stop=("\n",))
        return parse_reply(reply, names=False) or ""

    def rewrite_for(self, question: str, passage: Passage, answer: str) -> str:
        """The rewrite for a given answer (AmbigQA's gold-answers setting), as if the model had
        replied ``answer`` from ``passage``: the same turns the app's rewrite continues."""
        turn = passage_turn(self.generator.chat, passage.title, passage.text, question, self.passage_words)
        return ask_rewrite(self.prefix().fork().extend(turn + answer), answer, self.max_rewrite_tokens)
