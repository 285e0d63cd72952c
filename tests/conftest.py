"""Session fixtures shared by every test: the real embedded preset, one loaded pipeline, a live
Gradio app on a free local port, a headless Chromium, and a folder for screenshots.

Nothing here is mocked: ``preset`` builds ``models/embedded`` if it is missing (minutes, once)
and every other fixture loads the real ONNX models and FAISS index from it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import pytest

from ambigdemo.localhost import free_port, wait_http

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The suite's expected answers are the 0.5B reader's (the fallback, built with the embedded preset); the tests of the
# app's default reader, the 1.5B, name it (``reader_15b``).
os.environ.setdefault("AMBIGDEMO_READER_MODEL", "0.5b")

ROOT = Path(__file__).resolve().parent.parent
EMBEDDED = ROOT / "models" / "embedded"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def preset():
    """The embedded preset, built (or verified) once per session; returns its PresetPaths."""
    from ambigdemo.building.embedded import build_embedded

    return build_embedded(EMBEDDED, progress=False)


@pytest.fixture(scope="session")
def reader_15b(preset):
    """The app's default reader, the 1.5B, built (or verified) once per session: its generator folder."""
    from ambigdemo.config import READER_MODELS
    from ambigdemo.building.embedded import build_embedded

    return build_embedded(ROOT / "models" / READER_MODELS["1.5b"], progress=False, only=("generator",)).generator


@pytest.fixture(scope="session")
def pipeline(preset):
    """One Pipeline over the real embedded models, shared by the whole session."""
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline

    return Pipeline.load(Config.from_env())


@contextlib.contextmanager
def serve(pipeline, data_dir: Path, **overrides):
    """The real Gradio app (ambigdemo.ui.app.build_app) on 127.0.0.1:<free port>, its URL yielded.

    ``AMBIGDEMO_DATA_DIR`` points at ``data_dir`` for the app's lifetime, so judgments and caches
    written through the UI never touch ./data; ``overrides`` go to ``Config.from_env``.
    """
    from ambigdemo.config import Config
    from ambigdemo.ui.app import build_app, launch
    from ambigdemo.ui.workers import Workers

    previous = os.environ.get("AMBIGDEMO_DATA_DIR")
    os.environ["AMBIGDEMO_DATA_DIR"] = str(data_dir)
    demo = workers = None
    try:
        config = Config.from_env(**overrides)
        workers = Workers(config.concurrency)
        demo = build_app(pipeline.with_options(data_dir=config.data_dir), config, workers)
        port = free_port()
        launch(demo, "127.0.0.1", port, prevent_thread_lock=True, quiet=True, inbrowser=False, share=False)
        url = f"http://127.0.0.1:{port}/"
        wait_http(url)
        yield url
    finally:
        if demo is not None:
            demo.close()
        if workers is not None:
            workers.close()  # as the app does: an answer a test's browser left mid-way stops now
        if previous is None:
            os.environ.pop("AMBIGDEMO_DATA_DIR", None)
        else:
            os.environ["AMBIGDEMO_DATA_DIR"] = previous


@pytest.fixture(scope="session")
def app_url(pipeline, tmp_path_factory):
    """The app as a user gets it, shared by the session's browser tests."""
    with serve(pipeline, tmp_path_factory.mktemp("app-data")) as url:
        yield url


def require_or_skip(reason: str) -> None:
    """A missing system tool fails the test in CI (``.ci/run`` installs it) and skips it elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from Debian (/usr/bin/chromium) through Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        require_or_skip(f"the browser tests need {CHROMIUM}: apt-get install chromium (see .ci/run)")

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """ROOT/test-artifacts (git-ignored): screenshots and other files for a human to look at."""
    folder = ROOT / "test-artifacts"
    folder.mkdir(exist_ok=True)
    return folder


def make_tiny_llama(folder: Path, tokenizer_file: Path, tied: bool = False) -> Path:
    """A random 2-layer Llama with the embedded generator's tokenizer: a small generator's shape in seconds."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file), eos_token="<|im_end|>")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, eos_token_id=tokenizer.eos_token_id, tie_word_embeddings=tied,
    )
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return Path(folder)


def stored_rows(db: Path) -> list[dict]:
    """Every judgment as the SQLite file holds it, in insertion order (not as the store reads it back)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM judgments ORDER BY rowid")]
