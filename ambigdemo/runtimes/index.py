"""A self-contained passage index in one folder: passages, FAISS vectors and a manifest.

Layout (like txtai's): ``passages.jsonl`` (``id``, ``title``, ``text``), ``index.faiss`` (inner
product over unit vectors) and ``manifest.json`` (embedder id, dimension, count, sha256 of each file).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import faiss
import numpy as np

from ambigdemo.files import replace_text
from ambigdemo.types import Passage

MANIFEST = "manifest.json"
PASSAGES = "passages.jsonl"
VECTORS = "index.faiss"


class ArtifactError(RuntimeError):
    """A model or index file is missing, truncated or corrupt; the message names it and the fix."""


def sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path, files: list[str], **meta) -> None:
    """Record size and sha256 of ``files``; written last and atomically, so its presence means complete."""
    entries = {name: {"bytes": (folder / name).stat().st_size, "sha256": sha256(folder / name)} for name in files}
    replace_text(folder / MANIFEST, json.dumps({"files": entries, **meta}, indent=2))


def verify_manifest(folder: Path, rebuild: str, deep: bool = True) -> dict:
    """Check every file the manifest lists; raise ArtifactError naming the first bad one and ``rebuild``."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise ArtifactError(f"{path} is missing (an unfinished build?). Rebuild with: {rebuild}")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ArtifactError(f"{path} is unreadable ({exc}). Rebuild with: {rebuild}") from exc
    for name, entry in manifest.get("files", {}).items():
        file = folder / name
        if not file.is_file():
            raise ArtifactError(f"{file} is missing. Rebuild with: {rebuild}")
        if file.stat().st_size != entry["bytes"]:
            raise ArtifactError(
                f"{file} is {file.stat().st_size} bytes, expected {entry['bytes']} (truncated?). Rebuild with: {rebuild}"
            )
        if deep and sha256(file) != entry["sha256"]:
            raise ArtifactError(f"{file} fails its sha256 check (corrupt). Rebuild with: {rebuild}")
    return manifest


@dataclass
class PassageIndex:
    """Dense retrieval over a folder built by :func:`write_index`."""

    folder: Path
    passages: list[Passage]
    vectors: faiss.Index
    manifest: dict

    @classmethod
    def load(cls, folder: Path, rebuild: str = "python -m ambigdemo build") -> "PassageIndex":
        folder = Path(folder)
        manifest = verify_manifest(folder, rebuild)
        passages = []
        with open(folder / PASSAGES, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                passages.append(Passage(id=row["id"], title=row["title"], text=row["text"]))
        try:
            vectors = faiss.read_index(os.fspath(folder / VECTORS))
        except RuntimeError as exc:
            raise ArtifactError(f"{folder / VECTORS} cannot be read ({exc}). Rebuild with: {rebuild}") from exc
        if vectors.ntotal != len(passages):
            raise ArtifactError(
                f"{folder / VECTORS} holds {vectors.ntotal} vectors for {len(passages)} passages. Rebuild with: {rebuild}"
            )
        return cls(folder, passages, vectors, manifest)

    @property
    def embedder_id(self) -> str:
        return self.manifest.get("embedder", "")

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {p.id: n for n, p in enumerate(self.passages)}

    def vectors_of(self, ids: list[str]) -> np.ndarray:
        """The stored vectors of the passages ``ids``, in that order."""
        return np.stack([self.vectors.reconstruct(self._rows[i]) for i in ids])

    def search(self, query_vectors: np.ndarray, k: int) -> list[list[Passage]]:
        """Top-``k`` passages for each query vector, best first, with their cosine scores."""
        scores, ids = self.vectors.search(np.ascontiguousarray(query_vectors, dtype=np.float32), k)
        return [
            [_scored(self.passages[i], s) for i, s in zip(row_ids, row_scores) if i >= 0]
            for row_ids, row_scores in zip(ids, scores)
        ]


def _scored(p: Passage, score: float) -> Passage:
    return Passage(id=p.id, title=p.title, text=p.text, score=float(score))


def write_index(folder: Path, passages: list[Passage], vectors: np.ndarray, **meta) -> None:
    """Write passages and vectors, then the manifest (the commit point of a build)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / PASSAGES, "w", encoding="utf-8") as fh:
        for p in passages:
            fh.write(json.dumps({"id": p.id, "title": p.title, "text": p.text}, ensure_ascii=False) + "\n")
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    faiss.write_index(index, os.fspath(folder / VECTORS))
    write_manifest(folder, [PASSAGES, VECTORS], count=len(passages), dim=int(vectors.shape[1]), **meta)
