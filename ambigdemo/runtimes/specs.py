"""The small JSON files beside a model: ``embedder.json`` (pooling, prefixes) and ``generator.json`` (chat format).

One definition of each, shared by the runtimes that read them and by the presets and the export
command that write them. A malformed file is an :class:`ArtifactError` that names it.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar, get_args

from ambigdemo.runtimes.chat import CHATML, Chat
from ambigdemo.runtimes.manifest import ArtifactError

Pooling = Literal["mean", "cls"]
ChatFormat = Literal["chatml", "template"]  # "template": the model's own Jinja chat template
SpecT = TypeVar("SpecT", bound="ModelSpec")


RECIPES = {  # recorded in the manifest, so a build can tell an export made by an older recipe
    "int8": "dynamic int8, per channel (MatMulInteger)",
    "int4": "4-bit blocks of 32, symmetric: MatMul (MatMulNBits) and Gather (GatherBlockQuantized)",
}



class ModelSpec:
    """A frozen dataclass stored as one JSON object named ``FILE`` in a model folder."""

    FILE: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}  # type: ignore[call-overload]

    def write(self, folder: Path) -> str:
        """Write ``folder/FILE``; returns the file name (for the folder's manifest)."""
        text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        (Path(folder) / self.FILE).write_text(text, encoding="utf-8")
        return self.FILE

    @classmethod
    def read(cls: type[SpecT], path: Path) -> SpecT:
        """Parse and validate ``path``; ArtifactError names the file and what is wrong with it."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ArtifactError(f"{path} cannot be read ({exc})") from exc
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError(f"expected a JSON object, got {type(data).__name__}")
            known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
            unknown = sorted(set(data) - known)
            if unknown:
                raise ValueError(f"unknown key {', '.join(map(repr, unknown))} (known: {', '.join(sorted(known))})")
            required = [f.name for f in fields(cls) if f.default is MISSING and f.name not in data]  # type: ignore[arg-type]
            if required:
                raise ValueError(f"missing key {', '.join(map(repr, required))}")
            return cls(**data)
        except ValueError as exc:
            raise ArtifactError(f"{path} is malformed: {exc} (see docs/presets.md)") from exc


@dataclass(frozen=True)
class EmbedderSpec(ModelSpec):
    """How an embedder turns ``last_hidden_state`` into a vector; without ``embedder.json``, these defaults.

    ``pooling`` is ``mean`` (sentence-transformers, e5) or ``cls`` (bge). Queries and passages get
    their model's instruction prefixes (e5: ``query: `` / ``passage: ``; bge: a query instruction).
    """

    FILE: ClassVar[str] = "embedder.json"

    pooling: Pooling = "mean"
    query_prefix: str = ""
    passage_prefix: str = ""
    max_length: int = 256
    normalize: bool = True

    def __post_init__(self) -> None:
        _require(self.pooling in get_args(Pooling), f"pooling must be one of {get_args(Pooling)}, got {self.pooling!r}")
        for name in ("query_prefix", "passage_prefix"):
            _require(isinstance(getattr(self, name), str), f"{name} must be a string, got {getattr(self, name)!r}")
        _require(_positive_int(self.max_length), f"max_length must be a positive integer, got {self.max_length!r}")
        _require(isinstance(self.normalize, bool), f"normalize must be true or false, got {self.normalize!r}")

    @classmethod
    def load(cls, folder: Path) -> "EmbedderSpec":
        """The folder's ``embedder.json``, or the defaults (mean pooling, no prefixes) when there is none."""
        path = Path(folder) / cls.FILE
        return cls.read(path) if path.exists() else cls()


@dataclass(frozen=True)
class GeneratorSpec(ModelSpec):
    """Chat format, end-of-turn token ids and context size of a generator (``generator.json``): ChatML, or the
    model's own ``chat_template`` with the ``bos_token``/``eos_token`` it names (``add_bos``: the model reads
    its BOS first even where the template does not write it)."""

    FILE: ClassVar[str] = "generator.json"

    eos_token_ids: tuple[int, ...]
    chat_format: ChatFormat = "chatml"
    max_context: int = 2048
    system_prompt: str = ""
    chat_template: str = ""
    bos_token: str = ""
    eos_token: str = ""
    add_bos: bool = False

    def __post_init__(self) -> None:
        ids = self.eos_token_ids
        _require(
            isinstance(ids, (list, tuple)) and bool(ids) and all(_int(i) for i in ids),
            f"eos_token_ids must be a non-empty list of integers, got {ids!r}",
        )
        object.__setattr__(self, "eos_token_ids", tuple(ids))
        _require(self.chat_format in get_args(ChatFormat), f"chat_format must be one of {get_args(ChatFormat)}, got {self.chat_format!r}")
        _require(_positive_int(self.max_context), f"max_context must be a positive integer, got {self.max_context!r}")
        _require(isinstance(self.system_prompt, str), f"system_prompt must be a string, got {self.system_prompt!r}")
        for name in ("chat_template", "bos_token", "eos_token"):
            _require(isinstance(getattr(self, name), str), f"{name} must be a string, got {getattr(self, name)!r}")
        _require(self.chat_format != "template" or bool(self.chat_template.strip()), "chat_format template needs a chat_template")

    def chat(self) -> Chat:
        """The turns' text pieces (ValueError, one line: the template cannot be used turn by turn)."""
        if self.chat_format == "chatml":
            return CHATML
        return Chat.from_template(self.chat_template, self.bos_token, self.eos_token, self.add_bos)

    @classmethod
    def load(cls, folder: Path) -> "GeneratorSpec":
        return cls.read(Path(folder) / cls.FILE)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive_int(value: object) -> bool:
    return _int(value) and value > 0  # type: ignore[operator]


def _require(ok: bool, problem: str) -> None:
    if not ok:
        raise ValueError(problem)
