"""One function from question to result: retrieve -> answers -> rewrite -> summarize."""

from __future__ import annotations

import json
import logging
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from ambigdemo.presets.artifacts import BUILD_COMMAND, PresetPaths, check_models_dir, verify
from ambigdemo.config import FALLBACK_READER_MODEL, MAX_QUESTION_CHARS, READER_MODELS, Config, fitted_verifier
from ambigdemo.runtimes.manifest import ArtifactError, verify_manifest
from ambigdemo.runtimes.index import PassageIndex
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.runtimes.onnx import OnnxChatGenerator, OnnxEmbedder
from ambigdemo.stages.answers import AnswerFinder
from ambigdemo.stages.followup import FollowUps, Standalone
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader import LlmReader, MalformedOutput
from ambigdemo.stages.reader.verifier import Verifier
from ambigdemo.stages.retrieve import Retriever
from ambigdemo.stages.rewrite import Rewriter, edit_of, ground
from ambigdemo.stages.summarize import Summarizer
from ambigdemo.text import states_any, visible
from ambigdemo.types import Answer, Edit, Interpretation, Passage, Result, Turn

log = logging.getLogger(__name__)
REWRITE_NO_REPEAT = 3  # a rewrite repeats no three tokens of its own (greedy loops otherwise)
QUERY_ENCODER_COMMAND = "python -m ambigdemo train-retriever --out RUN --export DIR"
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


def preset_command(name: str) -> str:
    """The command that makes preset ``name`` (built here from PyPI, or downloaded)."""
    from ambigdemo.presets.catalog import get_preset

    try:
        return get_preset(name).command
    except ValueError:
        return f"python -m ambigdemo download {name}"


def brings_reader(preset: str) -> bool:
    """Whether preset ``preset`` has a reader of its own (a built one, or a downloaded generator)."""
    from ambigdemo.presets.catalog import PRESETS

    known = PRESETS.get(preset)
    return known is None or "generator" in known.parts


def resolve_preset(config: Config) -> tuple[PresetPaths, str]:
    """The preset to load and a notice; an absent or incomplete non-default preset falls back to embedded.
    Its generator is checked only when it is the reader (no reader model chosen apart, one of its own)."""
    check_models_dir(config.models_dir)
    paths = PresetPaths(config.preset_dir)
    own = not config.reader_model and brings_reader(config.preset)
    parts = ("embedder", "generator", "index") if own else ("embedder", "index")
    if config.preset == "embedded":
        verify(paths, parts=parts)
        return paths, ""
    try:
        verify(paths, rebuild=preset_command(config.preset), parts=parts)
        return paths, ""
    except ArtifactError as exc:
        notice = f"Preset {config.preset!r} is incomplete ({exc}); using the embedded default."
        embedded = PresetPaths(config.models_dir / "embedded")
        verify(embedded, parts=parts)
        return embedded, notice


def resolve_reader(config: Config, paths: PresetPaths) -> tuple[Path, str, str]:
    """The reader's folder, the name its settings are keyed by (``READER_BRANCHES``) and a notice: the reader
    model chosen apart (built under ``readers_dir``), else the preset's own reader, else the fallback model.
    A chosen model not built here falls back to the fallback one, with a notice naming the build command."""
    model = config.reader_model or ("" if brings_reader(paths.root.name) else FALLBACK_READER_MODEL)
    if not model:
        return paths.generator, paths.root.name, ""
    readers = config.readers_dir or config.models_dir
    folder = PresetPaths(readers / READER_MODELS[model]).generator
    try:
        verify_manifest(folder, f"{BUILD_COMMAND} --reader-model {model}")
        return folder, READER_MODELS[model], ""
    except ArtifactError as exc:
        if model == FALLBACK_READER_MODEL:
            raise
        notice = f"The {model} reader is not built ({exc}); answering with the {FALLBACK_READER_MODEL} reader."
        fallback = PresetPaths(readers / READER_MODELS[FALLBACK_READER_MODEL]).generator
        verify_manifest(fallback, BUILD_COMMAND)
        return fallback, READER_MODELS[FALLBACK_READER_MODEL], notice


def index_rebuild_command(index_dir: Path | None) -> str:
    """The command that rebuilds an index: ``build`` for the preset's own, ``build-index`` for a custom one."""
    if index_dir is None:
        return BUILD_COMMAND
    try:
        source = json.loads((Path(index_dir) / "manifest.json").read_text(encoding="utf-8")).get("source") or ""
    except (OSError, ValueError):
        source = ""
    name = source.split(" (")[0]  # the manifest's source reads "passages.tsv (1234 bytes)"
    passages = name if Path(name).suffix in (".tsv", ".jsonl") else "PASSAGES.tsv"  # what build-index reads
    return f"python -m ambigdemo build-index {passages} --out {index_dir}"


@dataclass
class Pipeline:
    config: Config
    retriever: Retriever
    finder: AnswerFinder
    rewriter: Rewriter
    summarizer: Summarizer
    reader: LlmReader | None = None
    followups: FollowUps = field(default_factory=FollowUps)
    notice: str = ""
    loaded: str = "embedded"  # the preset whose passages were loaded (the embedded default after a fallback)
    reader_name: str = "embedded"  # the preset folder whose reader was loaded (READER_MODELS' values, or a hub preset)
    load_ms: dict[str, float] = field(default_factory=dict)

    @classmethod
    def load(cls, config: Config | None = None, share: "Pipeline | None" = None) -> "Pipeline":
        """Load and verify every artifact of the configured preset; ArtifactError names a bad file. Models that
        ``share`` (a pipeline already serving) holds from the same folder are used, not loaded again: a Space
        that switches presets keeps one session of its reader."""
        config = config or Config.from_env()
        timer = _Timer()
        paths, notice = resolve_preset(config)
        generator_dir, reader_name, reader_notice = resolve_reader(config, paths)
        notice = " ".join(n for n in (notice, reader_notice) if n)
        timer.lap("verify")
        embedder = OnnxEmbedder(paths.embedder, config.threads)
        queries = embedder
        if config.query_encoder_dir:
            verify_manifest(config.query_encoder_dir, QUERY_ENCODER_COMMAND)
            queries = OnnxEmbedder(config.query_encoder_dir, config.threads)
        index = PassageIndex.load(config.index_dir or paths.index, rebuild=index_rebuild_command(config.index_dir))
        timer.lap("index")
        needs_generator = config.use_generator or config.reader == "llm"
        held = share.generator if share else None
        if not needs_generator:
            generator = None
        elif held is not None and held.folder.resolve() == Path(generator_dir).resolve():
            generator = held
        else:
            generator = OnnxChatGenerator(generator_dir, config.threads)
        rewrite_model = None
        if config.rewriter_dir:
            verify_manifest(config.rewriter_dir, "python -m ambigdemo train-rewriter --out RUN --export DIR")
            rewrite_model = OnnxChatGenerator(config.rewriter_dir, config.threads, no_repeat_ngram=REWRITE_NO_REPEAT)
        nlp = share.finder.nlp if share else load_spacy()
        timer.lap("models")
        return cls(
            config=config,
            retriever=Retriever(queries, index),
            finder=AnswerFinder(nlp, embedder if config.sentence_similarity else None, max_answers=config.max_answers),
            rewriter=Rewriter(nlp, rewrite_model),
            summarizer=Summarizer(generator if config.use_generator else None, config.max_new_tokens),
            reader=cls._reader(config, generator, nlp, reader_name),
            followups=FollowUps(generator),
            notice=notice,
            loaded=paths.root.name,
            reader_name=reader_name,
            load_ms=timer.laps,
        )

    @staticmethod
    def _reader(config: Config, generator: OnnxChatGenerator | None, nlp, reader_name: str) -> LlmReader | None:
        if config.reader != "llm" or generator is None:
            return None
        branch_passages, branch_min = config.reader_branches(reader_name)
        reader = LlmReader(
            generator, config.reader_relevance, config.reader_min_score, config.reader_passages, nlp=nlp,
            branch_passages=branch_passages, branch_min=branch_min,
            further_passages=config.reader_further_passages, further_coverage=config.reader_further_coverage,
        )
        verifier = Pipeline._verifier(config, reader_name)
        if verifier is None:
            return reader
        return replace(reader, verifier=verifier, relevance=verifier.relevance, max_passages=verifier.passages,
                       branch_passages=verifier.branch_passages, branch_min=verifier.branch_min, further_passages=0)

    @staticmethod
    def _verifier(config: Config, reader_name: str) -> Verifier | None:
        """The configured verifier (its threshold overridden if asked): None when off, the one fitted for the reader
        loaded (``reader_name``, its folder) when on, else the file named; a missing or broken file is an error that
        names it."""
        if config.verifier == "off":
            return None
        path = fitted_verifier(reader_name) if config.verifier == "on" else Path(config.verifier)
        if path is None:
            raise ValueError(f"no verifier is fitted for the {reader_name!r} preset's own reader: set AMBIGDEMO_VERIFIER to a file train-verifier wrote")
        verifier = Verifier.load(path)
        return verifier if config.verifier_threshold is None else replace(verifier, threshold=config.verifier_threshold)

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
        reader = self._reader(config, generator, self.finder.nlp, self.reader_name)
        if reader is not None and self.reader is not None:
            reader._prefix = self.reader._prefix
        return replace(self, config=config, summarizer=summarizer, reader=reader)

    def stream(self, question: str, follow_up: bool = False) -> Iterator[Result]:
        """Partial results as they become available: passages, interpretations, then the paragraph.
        ``follow_up``: the question is a conversation's rewritten follow-up (no answer says CANNOTANSWER)."""
        question = clean_question(question)
        timer = _Timer()
        result = Result(question=question)
        result.passages = self.retriever.search(question, self.config.top_k)
        timer.lap("retrieve")
        analysed = Question.of(question)
        reading = self.reader.read(analysed, result.passages) if self.reader else None
        answers: list[Answer] = []
        if reading is not None:
            try:
                for _ in reading.answers():
                    answers = list(reading.found)
                    if not result.interpretations:
                        result.timings_ms = {**timer.laps, "first_interpretation": timer.total}
                    result.interpretations = [Interpretation(question, a.text, a.passages, a.score, Edit(), "pending") for a in answers]
                    yield result
                result.source = "llm"
                result.read, result.candidates = reading.read, reading.candidates
            except MalformedOutput as exc:
                log.warning("LLM reader output unreadable, answering with the heuristic reader: %s", exc)
                reading, result.source = None, f"heuristic (the LLM's reply was unreadable: {exc})"
                answers = self.finder.find(analysed, result.passages)
        else:
            result.source = "heuristic"
            answers = self.finder.find(analysed, result.passages)
        timer.lap("answers")
        verified = reading is not None and reading.reader.verifier is not None and self.config.show_unrewritten
        result.interpretations = self.rewriter.rewrite(
            analysed, answers, propose=reading.propose_rewrite if reading else None, keep_all=verified)
        timer.lap("rewrite")
        first = result.timings_ms.get("first_interpretation", timer.total)
        result.timings_ms = dict(timer.laps, first_interpretation=first)
        if not result.interpretations:
            result.message = CANNOT_ANSWER if follow_up else NO_ANSWER
            result.timings_ms["total"] = timer.total
            yield result
            return
        yield result
        for draft in self.summarizer.stream(question, result.interpretations, result.passages):
            result.paragraph, result.paragraph_source, result.paragraph_pending = draft.text, draft.source, draft.pending
            if (draft.text or draft.pending) and "paragraph_start" not in result.timings_ms:
                result.timings_ms["paragraph_start"] = timer.total
            if draft.final:
                timer.lap("summarize")
                result.timings_ms.update(summarize=timer.laps["summarize"], total=timer.total)
            yield result

    def disambiguate(self, question: str, answers: list[str]) -> list[Interpretation]:
        """One rewrite per given answer, in order, from the retrieved passages that mention it (the LLM
        reader's rewrite first, when it reads); the prompt question itself where no checked edit
        singles the answer out (AmbigQA with gold answers)."""
        question = clean_question(question)
        passages = self.retriever.search(question, self.config.top_k)
        reader = self.reader
        by_id = {p.id: p for p in passages}

        def propose(answer: Answer) -> str:
            """The LLM's rewrite from the answer's best passage (the top one if none mentions it)."""
            passage = by_id[answer.passages[0]] if answer.passages else passages[0]
            return reader.rewrite_for(question, passage, answer.text)

        return self.rewriter.rewrite_gold(question, answers, passages, propose if reader is not None and passages else None)

    def summarize_gold(self, question: str, rewrites: list[str], answers: list[list[str]], evidence_k: int = 2, depth: int = 1000) -> Result:
        """The paragraph for given rewrites and answers (aliases each): ASQA's setting on AmbigQA's gold.

        Passages: the prompt's top-k, then for each rewrite the best ``evidence_k`` of the top
        ``depth`` passages for the rewrite with its answer that contain one of its aliases. An answer
        is stated only if a passage contains it (it is then cited); the others are left out rather
        than stated without evidence.
        """
        question = clean_question(question)
        pairs = [(r, a) for r, a in zip(rewrites, answers) if a]
        hits = self.retriever.batch_search([question] + [f"{r} {a[0]}" for r, a in pairs], max(self.config.top_k, depth))
        ranked = hits[0][: self.config.top_k]
        for (_, aliases), found in zip(pairs, hits[1:]):
            ranked += [p for p in found if states_any([p], aliases)][:evidence_k]
        unique: dict[str, Passage] = {}
        for p in ranked:
            unique.setdefault(p.id, p)
        passages = list(unique.values())
        result = Result(question=question, passages=passages)
        for rewrite, aliases in zip(rewrites, answers):
            grounded = next((g for g in (ground(a, rewrite, passages) for a in aliases) if g.passages), None)
            if grounded is not None:
                result.interpretations.append(
                    Interpretation(rewrite, grounded.text, grounded.passages, grounded.score, edit_of(question, rewrite), "gold")
                )
        draft = None
        for draft in self.summarizer.stream(question, result.interpretations, passages):
            pass
        if draft is not None:
            result.paragraph, result.paragraph_source = draft.text, draft.source
        return result

    def standalone(self, asked: str, history: list[Turn]) -> Standalone:
        """A follow-up as a question that reads on its own, given the conversation so far (QuAC)."""
        return self.followups.standalone(clean_question(asked), history)

    def ask(self, question: str, follow_up: bool = False) -> Result:
        result = None
        for result in self.stream(question, follow_up):
            pass
        return result


class _Timer:
    """Milliseconds per stage, measured with a monotonic clock."""

    def __init__(self):
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = (now - self.last) * 1000
        self.last = now

    @property
    def total(self) -> float:
        return (time.perf_counter() - self.start) * 1000
