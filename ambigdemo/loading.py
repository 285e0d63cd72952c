"""Loading a pipeline's parts: which preset and which reader (``resolve_preset``, ``resolve_reader``, each
falling back to the embedded default with a one-line notice), their files checked, then the models.
:meth:`ambigdemo.pipeline.Pipeline.load` assembles what :func:`load_parts` returns."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ambigdemo.config import FALLBACK_READER_MODEL, READER_MODELS, Config, is_gguf_reader, reader_model_of
from ambigdemo.presets.artifacts import BUILD_COMMAND, PresetPaths, check_models_dir, verify
from ambigdemo.presets.gguf_reader import built_reader
from ambigdemo.runtimes.index import PassageIndex
from ambigdemo.runtimes.manifest import ArtifactError, verify_manifest
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.runtimes.onnx import OnnxChatGenerator, OnnxEmbedder
from ambigdemo.stages.answers import HeuristicReader
from ambigdemo.stages.followup import FollowUps
from ambigdemo.stages.reader.configure import configured_reader
from ambigdemo.stages.retrieve import Retriever
from ambigdemo.stages.rewrite import Rewriter
from ambigdemo.stages.summarize import Summarizer

REWRITE_NO_REPEAT = 3  # a rewrite repeats no three tokens of its own (greedy loops otherwise)
QUERY_ENCODER_COMMAND = "python -m ambigdemo train-retriever --out RUN --export DIR"


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
    """The reader's folder, its name (a ``READER_MODELS`` key, or the preset's name for its own reader) and a
    notice: the reader model chosen apart (built under ``readers_dir``), else the preset's own reader, else the
    fallback model.
    A chosen model not built here falls back to the fallback one, with a notice naming the build command."""
    model = config.reader_model or ("" if brings_reader(paths.root.name) else FALLBACK_READER_MODEL)
    if not model:
        return paths.generator, reader_model_of(paths.root.name) or paths.root.name, ""
    readers = config.readers_dir or config.models_dir
    try:
        if is_gguf_reader(model):
            return built_reader(model, readers), model, ""
        folder = PresetPaths(readers / READER_MODELS[model]).generator
        verify_manifest(folder, f"{BUILD_COMMAND} --reader-model {model}")
        return folder, model, ""
    except ArtifactError as exc:
        if model == FALLBACK_READER_MODEL:
            raise
        notice = f"The {model} reader is not built ({exc}); answering with the {FALLBACK_READER_MODEL} reader."
        fallback = PresetPaths(readers / READER_MODELS[FALLBACK_READER_MODEL]).generator
        verify_manifest(fallback, BUILD_COMMAND)
        return fallback, FALLBACK_READER_MODEL, notice


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


def load_parts(config: Config, generator: OnnxChatGenerator | None = None, nlp: Any = None) -> dict[str, Any]:
    """Load and verify every artifact of the configured preset (ArtifactError names a bad file): the
    pipeline's fields. ``generator`` and ``nlp`` are models already serving (a Space switching presets):
    a generator from the same folder, and the spaCy pipeline, are used instead of loading them again."""
    timer = Timer()
    paths, notice = resolve_preset(config)
    generator_dir, reader_model, reader_notice = resolve_reader(config, paths)
    notice = " ".join(n for n in (notice, reader_notice) if n)
    timer.lap("verify")
    embedder = OnnxEmbedder(paths.embedder, config.threads)
    queries = embedder
    if config.query_encoder_dir:
        verify_manifest(config.query_encoder_dir, QUERY_ENCODER_COMMAND)
        queries = OnnxEmbedder(config.query_encoder_dir, config.threads)
    index = PassageIndex.load(config.index_dir or paths.index, rebuild=index_rebuild_command(config.index_dir))
    timer.lap("index")
    if not (config.use_generator or config.reader == "llm"):
        generator = None
    elif generator is None or generator.folder.resolve() != Path(generator_dir).resolve():
        generator = OnnxChatGenerator(generator_dir, config.threads)
    rewrite_model = None
    if config.rewriter_dir:
        verify_manifest(config.rewriter_dir, "python -m ambigdemo train-rewriter --out RUN --export DIR")
        rewrite_model = OnnxChatGenerator(config.rewriter_dir, config.threads, no_repeat_ngram=REWRITE_NO_REPEAT)
    nlp = nlp or load_spacy()
    reader = configured_reader(config, generator, nlp, reader_model)
    timer.lap("models")
    return {
        "config": config,
        "retriever": Retriever(queries, index),
        "heuristic": HeuristicReader(nlp, embedder if config.sentence_similarity else None, max_answers=config.max_answers),
        "rewriter": Rewriter(nlp, rewrite_model),
        "summarizer": Summarizer(generator if config.use_generator else None, config.max_new_tokens),
        "reader": reader,
        "followups": FollowUps(generator),
        "notice": " ".join(n for n in (notice, rules_notice(config, reader, reader_model)) if n),
        "loaded": paths.root.name,
        "reader_model": reader_model,
        "load_ms": timer.laps,
    }


def rules_notice(config: Config, reader: Any, reader_model: str) -> str:
    """A brought reader with no score fitted for it answers by verify's rules: said, with the command that fits one."""
    if reader is None or reader.verifier is not None or config.verifier != "on" or not is_gguf_reader(reader_model):
        return ""
    return (f"No score is fitted for the reader {reader_model}: verify's rules (no model-specific fit) choose its "
            f"answers (fit one: python -m ambigdemo train-verifier --reader-model {reader_model} --out RUN).")


def reader_model(config: Config) -> OnnxChatGenerator:
    """The configured reader's chat model alone (evaluation's fluency judge), resolved as :func:`load_parts` does."""
    return OnnxChatGenerator(resolve_reader(config, resolve_preset(config)[0])[0], config.threads)


class Timer:
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
