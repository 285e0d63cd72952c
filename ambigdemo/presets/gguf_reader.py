"""A reader brought as a GGUF file: named by a path or a pinned hub file, checked before anything is built,
and built into its own folder, named from the file's sha256, under the models folder.

``READER`` names it: ``/path/to/model.gguf`` (llama.cpp, Ollama's blob, LM Studio) or
``hf:OWNER/REPO/FILE.gguf@REVISION``. :func:`inspect` reads the file's header (no weights) and refuses, in one
line (:class:`ReaderFileError`), a file that is not GGUF, is cut short, has an architecture the export does not
support, or has no chat template the readers can use turn by turn.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ambigdemo.files import replace_text
from ambigdemo.runtimes.chat import Chat, TemplateError
from ambigdemo.runtimes.manifest import ArtifactError, sha256, verify_manifest

from ambigdemo.config import GGUF_READER_HUB as HUB_PREFIX

# transformers' GGUF loader (its model and its tokenizer) and optimum's ONNX export (text-generation-with-past) all
# support these; tests export a tiny file of each and compare its logits with transformers'. Mistral's files are
# written as "llama" by llama.cpp; one labelled "mistral" is refused: transformers 4.57 cannot convert its tokenizer.
ARCHITECTURES = ("qwen2", "qwen3", "llama", "gemma2", "gemma3", "phi3")
FOLDER_PREFIX = "gguf-"
CONTROL = 3  # a GGUF token type: a control token (a turn's marker, BOS, EOS)
HASHES = "cache/gguf-sha256.json"  # under the models folder: a file's sha256 by path, size and time (hashed once)
# The lean export's peak memory: a fixed part (torch, transformers, the traced graph), the file's int4 weights held
# once, and about 3.7 copies of the largest float tensor (de-quantized, transposed, quantized); fitted on the two
# builds measured here (docs/benchmarks.md: 0.5B 4.24 GB, 1.5B 6.26 GB), so the figure is expected, not measured.
PEAK_FIXED, PEAK_PER_LARGEST = 1.83e9, 3.69


class ReaderFileError(ValueError):
    """A reader file that cannot be built; the message is one line naming the file and what is wrong."""


@dataclass(frozen=True)
class HubFile:
    """``hf:OWNER/REPO/PATH@REVISION``: one pinned file of a hub model repository."""

    repo_id: str
    filename: str
    revision: str

    @classmethod
    def parse(cls, name: str) -> "HubFile":
        body = name[len(HUB_PREFIX):]
        where, _, revision = body.rpartition("@")
        parts = where.split("/")
        if not where or not revision or len(parts) < 3 or not all(parts):
            raise ReaderFileError(f"{name}: name a pinned hub file as hf:OWNER/REPO/FILE.gguf@REVISION (a commit or tag)")
        return cls("/".join(parts[:2]), "/".join(parts[2:]), revision)

    def __str__(self) -> str:
        return f"{HUB_PREFIX}{self.repo_id}/{self.filename}@{self.revision}"


@dataclass(frozen=True)
class GgufInfo:
    """What the build needs from a GGUF header."""

    path: Path
    architecture: str
    name: str
    chat_template: str
    bos_token: str
    eos_token: str
    add_bos: bool
    end_ids: tuple[int, ...]  # eos, end-of-turn and end-of-message ids the header names
    control_tokens: tuple[str, ...]  # the vocabulary's control tokens (turn markers, BOS, EOS): kept whole by the export
    context_length: int
    bytes: int
    largest_tensor: int  # elements of the largest tensor (the embedding table, mostly)

    @property
    def expected_peak_bytes(self) -> int:
        return int(PEAK_FIXED + self.bytes + PEAK_PER_LARGEST * 4 * self.largest_tensor)

    def chat(self) -> Chat:
        return Chat.from_template(self.chat_template, self.bos_token, self.eos_token, self.add_bos)


def inspect(path: Path) -> GgufInfo:
    """The header of a GGUF reader (ReaderFileError, one line: missing, not GGUF, cut short, an architecture or
    chat template the readers cannot use)."""
    path = Path(path)
    if not path.is_file():
        raise ReaderFileError(f"{path}: no such file")
    with open(path, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise ReaderFileError(f"{path}: not a GGUF file (it does not start with the GGUF magic)")
    from gguf import GGUFReader

    try:
        reader = GGUFReader(str(path))
    except (ValueError, OSError, IndexError, KeyError) as exc:
        raise ReaderFileError(f"{path}: a broken or cut-short GGUF file ({' '.join(str(exc).split())[:120]})") from exc
    end = max((int(t.data_offset) + int(t.n_bytes) for t in reader.tensors), default=0)
    size = path.stat().st_size
    if not reader.tensors or end > size:
        raise ReaderFileError(f"{path}: a cut-short GGUF file ({size} bytes, its tensors need {end})")
    field = _fields(reader)
    arch = str(field.get("general.architecture", ""))
    if arch not in ARCHITECTURES:
        raise ReaderFileError(f"{path}: architecture {arch or 'unknown'!r} is not supported (supported: {', '.join(ARCHITECTURES)})")
    tokens = reader.fields.get("tokenizer.ggml.tokens")

    def token(key: str) -> str:
        at = field.get(key)
        return str(tokens.contents(int(at))) if tokens is not None and at is not None else ""

    ends = tuple(sorted({int(field[k]) for k in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id",
                                                  "tokenizer.ggml.eom_token_id") if k in field}))
    info = GgufInfo(
        path=path, architecture=arch, name=str(field.get("general.name", path.stem)),
        chat_template=str(field.get("tokenizer.chat_template", "")),
        bos_token=token("tokenizer.ggml.bos_token_id"), eos_token=token("tokenizer.ggml.eos_token_id"),
        add_bos=bool(field.get("tokenizer.ggml.add_bos_token", False)), end_ids=ends,
        control_tokens=_control_tokens(reader),
        context_length=int(field.get(f"{arch}.context_length", 2048)), bytes=size,
        largest_tensor=max(int(t.n_elements) for t in reader.tensors),
    )
    try:
        info.chat()
    except TemplateError as exc:
        raise ReaderFileError(f"{path}: {exc}; the readers need an instruction-tuned model's chat template") from exc
    return info


def _control_tokens(reader) -> tuple[str, ...]:
    """The vocabulary's tokens of GGUF type CONTROL."""
    tokens, kinds = reader.fields.get("tokenizer.ggml.tokens"), reader.fields.get("tokenizer.ggml.token_type")
    if tokens is None or kinds is None:
        return ()
    return tuple(str(tokens.contents(i)) for i, kind in enumerate(kinds.contents()) if kind == CONTROL)


def _fields(reader) -> dict:
    """The header's scalar and string fields (arrays left out: the vocabulary is large)."""
    out = {}
    for key, field in reader.fields.items():
        if len(field.data) == 1:
            try:
                out[key] = field.contents()
            except (ValueError, IndexError):
                continue
    return out


def file_sha256(path: Path, models_dir: Path) -> str:
    """The file's sha256, hashed once per path, size and modification time (a GGUF of several GB takes seconds)."""
    path = Path(path).resolve()
    record = Path(models_dir) / HASHES
    try:
        known = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    stat = path.stat()
    key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}"
    if key not in known:
        known[key] = sha256(path)
        record.parent.mkdir(parents=True, exist_ok=True)
        replace_text(record, json.dumps(known, indent=1))
    return known[key]


def home(models_dir: Path, digest: str) -> Path:
    """The folder a GGUF reader is built in (its ``generator/`` the reader, beside it its own fitted score)."""
    return Path(models_dir) / f"{FOLDER_PREFIX}{digest[:16]}"


def local_file(name: str, models_dir: Path) -> Path:
    """Where the GGUF file of reader ``name`` is on this machine: the path given, or the hub file's download."""
    if not name.startswith(HUB_PREFIX):
        return Path(os.path.expanduser(name))
    hub = HubFile.parse(name)
    return Path(models_dir) / "cache" / "hub" / hub.repo_id.replace("/", "--") / hub.revision / hub.filename


def build_command(name: str) -> str:
    return f"python -m ambigdemo build --reader-model {name}"


def own_score(name: str, models_dir: Path) -> Path:
    """Where GGUF reader ``name``'s own fitted score is kept (``train-verifier --reader-model``): beside the reader."""
    return home(models_dir, file_sha256(local_file(name, models_dir), models_dir)) / "verifier.json"


def built_reader(name: str, models_dir: Path) -> Path:
    """The verified folder of GGUF reader ``name`` (ArtifactError naming the build command when it is not built
    or its file is gone)."""
    path = local_file(name, models_dir)
    if not path.is_file():
        raise ArtifactError(f"{path} is missing" + (" (not downloaded yet)" if name.startswith(HUB_PREFIX) else "")
                            + f". Build with: {build_command(name)}")
    folder = home(models_dir, file_sha256(path, models_dir)) / "generator"
    verify_manifest(folder, build_command(name), deep=False)
    return folder
