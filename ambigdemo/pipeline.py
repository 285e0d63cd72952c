"""The answer path, from question to result: retrieve -> read -> rewrite -> summarize, streamed.

Loading its parts is :mod:`ambigdemo.loading`; the settings where answers are given (AmbigQA's gold
answers, ASQA's gold rewrites) are :mod:`ambigdemo.evaluation.gold`."""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ambigdemo.config import MAX_QUESTION_CHARS, Config
from ambigdemo.loading import Timer, load_parts
from ambigdemo.runtimes.onnx import OnnxChatGenerator
from ambigdemo.stages.answers import HeuristicReader
from ambigdemo.stages.followup import FollowUps, Standalone
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader import LlmReader, MalformedOutput, ReaderRun
from ambigdemo.stages.reader.configure import configured_reader
from ambigdemo.stages.retrieve import Retriever
from ambigdemo.stages.rewrite import Rewriter
from ambigdemo.stages.summarize import Summarizer
from ambigdemo.text import visible
from ambigdemo.types import Answer, Edit, Interpretation, Result, Turn

log = logging.getLogger(__name__)
NO_ANSWER = "No answer found: the retrieved passages do not support an answer to this question."
CANNOT_ANSWER = "The passages cannot answer this follow-up (QuAC's CANNOTANSWER). Try asking it differently, or start over."


class QuestionError(ValueError):
    """The question cannot be answered as typed (empty, too long); the message says why."""


WHAT_IT_ANSWERS = (
    "ambigdemo answers questions in English about topics of its Wikipedia passages, such as "
    "“What is the capital of South Africa?” or “Who wrote Harry Potter?”."
)


def clean_question(question: str | None) -> str:
    """Trimmed question without control or bidi-override characters, or QuestionError saying what to ask."""
    text = " ".join(visible(question or "").split())
    if not text:
        raise QuestionError("Please type a question.")
    if len(text) > MAX_QUESTION_CHARS:
        raise QuestionError(f"Questions are limited to {MAX_QUESTION_CHARS} characters; yours has {len(text)}.")
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and _latin_share(letters) >= 0.5:
        return text
    if len(letters) < 3:
        raise QuestionError(f"“{text}” is not a question in words. {WHAT_IT_ANSWERS}")
    raise QuestionError(f"This looks like a question in another language. {WHAT_IT_ANSWERS}")


def _latin_share(letters: list[str]) -> float:
    return sum(c.isascii() or "LATIN" in unicodedata.name(c, "") for c in letters) / len(letters)


@dataclass
class Pipeline:
    config: Config
    retriever: Retriever
    heuristic: HeuristicReader
    rewriter: Rewriter
    summarizer: Summarizer
    reader: LlmReader | None = None
    followups: FollowUps = field(default_factory=FollowUps)
    notice: str = ""
    loaded: str = "embedded"  # the preset whose passages were loaded (the embedded default after a fallback)
    reader_model: str = "0.5b"  # the reader loaded: a READER_MODELS key, or the preset's name for its own reader
    load_ms: dict[str, float] = field(default_factory=dict)

    @classmethod
    def load(cls, config: Config | None = None, share: "Pipeline | None" = None) -> "Pipeline":
        """Load and verify every artifact of the configured preset (:func:`ambigdemo.loading.load_parts`);
        ArtifactError names a bad file. Models that ``share`` (a pipeline already serving) holds from the
        same folder are used, not loaded again: a Space that switches presets keeps one session of its reader."""
        held = (share.generator, share.heuristic.nlp) if share else (None, None)
        return cls(**load_parts(config or Config.from_env(), *held))

    @property
    def generator(self) -> OnnxChatGenerator | None:
        """The chat model session that the reader and the paragraph share (None when neither loads one)."""
        return (self.reader.generator if self.reader else None) or self.summarizer.generator

    @property
    def credit(self) -> str:
        """The attribution of the passages this pipeline shows (its index's licence)."""
        return self.retriever.index.credit

    def with_options(self, **options) -> "Pipeline":
        """A view of this pipeline with other knobs (``top_k``, ``use_generator``, ``reader``), sharing the models."""
        config = replace(self.config, **options)
        generator = self.generator
        if not config.use_generator or generator is None:
            summarizer = Summarizer(None)
        else:
            summarizer = self.summarizer if self.summarizer.generator is not None else Summarizer(generator, config.max_new_tokens)
        reader = configured_reader(config, generator, self.heuristic.nlp, self.reader_model, like=self.reader)
        return replace(self, config=config, summarizer=summarizer, reader=reader)

    def stream(self, question: str, follow_up: bool = False) -> Iterator[Result]:
        """Partial results as they become available: passages, interpretations, then the paragraph.
        ``follow_up``: the question is a conversation's rewritten follow-up (no answer says CANNOTANSWER)."""
        question = clean_question(question)
        timer = Timer()
        result = Result(question=question)
        result.passages = self.retriever.search(question, self.config.top_k)
        timer.lap("retrieve")
        analysed = Question.of(question)
        reading = self.reader.read(analysed, result.passages) if self.reader else None
        answers: list[Answer] = []
        if reading is not None:
            result.also_pending = reading.reads_for_also  # from the first reading on, so no page looks finished early
            try:
                for answers in reading.found_so_far():
                    if not result.interpretations:
                        result.timings_ms = {**timer.laps, "first_interpretation": timer.total}
                    result.interpretations = [Interpretation(question, a.text, a.passages, a.score, Edit(), "pending", a.p) for a in answers]
                    yield result
                result.source = "llm"
                result.read, result.candidates, result.also = reading.read, reading.candidates, reading.also
                result.also_pending = reading.reads_for_also  # now that the readings' passages are read
            except MalformedOutput as exc:
                log.warning("LLM reader output unreadable, answering with the heuristic reader: %s", exc)
                reading, result.source = None, f"heuristic (the LLM's reply was unreadable: {exc})"
                answers = self.heuristic.find(analysed, result.passages)
        else:
            result.source = "heuristic"
            answers = self.heuristic.find(analysed, result.passages)
        timer.lap("answers")
        verified = reading is not None and reading.chosen_by_verifier and self.config.show_unrewritten
        result.interpretations = self.rewriter.rewrite(
            analysed, answers, propose=reading.propose_rewrite if reading else None, keep_all=verified)
        timer.lap("rewrite")
        first = result.timings_ms.get("first_interpretation", timer.total)
        result.timings_ms = dict(timer.laps, first_interpretation=first)
        if not result.interpretations:
            result.message = CANNOT_ANSWER if follow_up else NO_ANSWER
            result.timings_ms["total"] = timer.total
            yield result
        else:
            yield result
            for draft in self.summarizer.stream(question, result.interpretations, result.passages):
                result.paragraph, result.paragraph_source, result.paragraph_pending = draft.text, draft.source, draft.pending
                if (draft.text or draft.pending) and "paragraph_start" not in result.timings_ms:
                    result.timings_ms["paragraph_start"] = timer.total
                if draft.final:
                    timer.lap("summarize")
                    result.timings_ms.update(summarize=timer.laps["summarize"], total=timer.total)
                yield result
        if reading is not None:
            yield from self._also(reading, result, timer)

    @staticmethod
    def _also(reading: ReaderRun, result: Result, timer: Timer) -> Iterator[Result]:
        """The "also" tier's further reading, once the readings and the paragraph are done: ``also_pending`` until it
        ends (set from the first reading on, so the page says more may come), ``also_done`` when the last was read."""
        if not result.also_pending:
            return
        for also in reading.read_for_also():
            result.also = also
            yield result
        result.also_pending = False
        timer.lap("also")
        result.timings_ms.update(also=timer.laps["also"], also_done=timer.total)
        yield result

    def standalone(self, asked: str, history: list[Turn]) -> Standalone:
        """A follow-up as a question that reads on its own, given the conversation so far (QuAC)."""
        return self.followups.standalone(clean_question(asked), history)

    def ask(self, question: str, follow_up: bool = False) -> Result:
        result = None
        for result in self.stream(question, follow_up):
            pass
        return result
