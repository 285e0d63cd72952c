"""The LLM reader as a :class:`~ambigdemo.config.Config` asks for it: its passage gate, its less likely
replies, and the score that chooses its answers (verify's rules with ``verifier="off"``)."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from ambigdemo.config import Config, fitted_verifier, is_gguf_reader
from ambigdemo.presets.gguf_reader import own_score
from ambigdemo.runtimes.onnx import Generator
from ambigdemo.stages.reader import LlmReader
from ambigdemo.stages.reader.verifier import Verifier

log = logging.getLogger(__name__)


def configured_reader(config: Config, generator: Generator | None, nlp: Any, reader_model: str,
                      like: LlmReader | None = None) -> LlmReader | None:
    """The reader ``config`` asks for (None: the heuristic reader, or no generator); ``reader_model`` (the
    reader loaded) keys its settings; ``like``, a reader of the same model, lends its computed examples' cache."""
    if config.reader != "llm" or generator is None:
        return None
    branch_passages, branch_min = config.reader_branches(reader_model)
    reader = LlmReader(
        generator, config.reader_relevance, config.reader_min_score, config.reader_passages, nlp=nlp,
        branch_passages=branch_passages, branch_min=branch_min,
        further_passages=config.reader_further_passages, further_coverage=config.reader_further_coverage,
    )
    verifier = configured_verifier(config, reader_model)
    if verifier is not None:
        reader = reading_with(reader, verifier)
    if like is not None:
        reader.adopt_prefix(like)
    return reader


def reading_with(reader: LlmReader, verifier: Verifier) -> LlmReader:
    """``reader`` choosing by ``verifier``, and reading as the score was tuned to (its passages, less likely replies,
    lists, subjects, "also" passages and BM25's passage; less likely replies read for "also" only read none before)."""
    branches = verifier.also_branches < 1.0
    return replace(reader, verifier=verifier, relevance=verifier.relevance, max_passages=verifier.passages,
                   branch_passages=0 if branches else verifier.branch_passages, branch_min=verifier.branch_min,
                   further_passages=0, also_passages=verifier.also_passages, siblings=verifier.siblings,
                   titles=verifier.titles, also_titles=verifier.also_titles < 1.0, also_branches=branches,
                   lexical=verifier.lexical)


def configured_verifier(config: Config, reader_model: str) -> Verifier | None:
    """The configured score (its threshold overridden if asked): None when off, or when on and no score is fitted for
    the reader loaded (``reader_model``: a preset's own reader; verify's rules choose, as ``off``); the file named
    otherwise, a missing or broken one an error that names it."""
    if config.verifier == "off":
        return None
    path = fitted_score(config, reader_model) if config.verifier == "on" else Path(config.verifier)
    if path is None:
        log.info("no score is fitted for the %r reader: verify's rules choose its answers", reader_model)
        return None
    verifier = Verifier.load(path)
    return verifier if config.verifier_threshold is None else replace(verifier, threshold=config.verifier_threshold)


def score_file(config: Config, reader_model: str) -> Path | None:
    """Where the score of ``reader_model`` is kept (``train-verifier`` writes it there): a built-in reader's in
    ``config.VERIFIERS``, a GGUF reader's beside it; None: nowhere (a preset's own reader)."""
    if not is_gguf_reader(reader_model):
        return fitted_verifier(reader_model)
    return own_score(reader_model, config.readers_dir or config.models_dir)


def fitted_score(config: Config, reader_model: str) -> Path | None:
    """The score fitted for ``reader_model``: a built-in reader's file (a missing one an error when loaded), a GGUF
    reader's when one was fitted (None: none, or the reader's file is gone)."""
    try:
        path = score_file(config, reader_model)
    except OSError:  # a GGUF reader whose file is gone: the reader could not load either
        return None
    return None if path is None or (is_gguf_reader(reader_model) and not path.is_file()) else path
