"""A self-contained passage index in one folder: passages, FAISS vectors and a manifest.

Two layouts load the same way:

* ours: ``passages.jsonl`` (``id``, ``title``, ``text``) and ``index.faiss`` (inner product over
  unit vectors, row n is line n), written by :func:`write_index`;
* a txtai embeddings folder, as NeuML publishes Wikipedia: ``config.json``, ``documents`` (SQLite;
  table ``sections(indexid, id, text, ...)``, one row per vector, ``id`` the article title) and
  ``embeddings`` (a FAISS index, e.g. ``IVF2193,SQ8``, whose ids are ``indexid``). Passages stay on
  disk and are looked up by id, so millions of them cost no memory.

Either way ``manifest.json`` (embedder id, count, size and sha256 of each file;
:mod:`ambigdemo.runtimes.manifest`) marks it complete. Ours also holds BM25 over the same passages
(``lexical/``, :mod:`ambigdemo.runtimes.lexical`), loaded as :attr:`PassageIndex.lexical` when the manifest lists it.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import faiss
import numpy as np

from ambigdemo.corpus import WIKI_CREDIT
from ambigdemo.runtimes.lexical import FOLDER as LEXICAL, LEXICAL_ID, LexicalIndex
from ambigdemo.runtimes.manifest import ArtifactError, verify_manifest, write_manifest
from ambigdemo.types import Passage

PASSAGES = "passages.jsonl"
VECTORS = "index.faiss"
TXTAI_CONFIG, TXTAI_DOCUMENTS, TXTAI_VECTORS = "config.json", "documents", "embeddings"
DEFAULT_LICENCE = "CC BY-SA 4.0"


class PassageList(list):
    """Passages held in memory, row n being vector n (our own layout)."""

    def take(self, rows: list[int]) -> list[Passage]:
        return [self[i] for i in rows]


class SqlitePassages:
    """The passages of a txtai ``documents`` database, read on demand by ``indexid`` (thread-safe)."""

    def __init__(self, path: Path, count: int):
        self.path, self.count = Path(path), count
        self._db = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self.count

    def take(self, rows: list[int]) -> list[Passage]:
        """The passages at ``rows`` (faiss ids), in that order."""
        marks = ",".join("?" * len(rows))
        with self._lock:
            found = self._db.execute(
                f"SELECT indexid, id, text FROM sections WHERE indexid IN ({marks})", [int(r) for r in rows]
            ).fetchall()
        by_row = {row: Passage(id=f"{title}#{row}", title=str(title), text=text or "") for row, title, text in found}
        missing = [r for r in rows if r not in by_row]
        if missing:
            raise ArtifactError(f"{self.path} has no section with indexid {missing[0]} (index and documents disagree)")
        return [by_row[r] for r in rows]

    def __getitem__(self, row: int) -> Passage:
        return self.take([row])[0]

    def __iter__(self):
        for start in range(0, self.count, 1000):
            yield from self.take(list(range(start, min(start + 1000, self.count))))


def txtai_nprobe(config: dict, count: int) -> int:
    """txtai's own IVF search width: its ``faiss.nprobe`` setting, else cells(count) / 16 (6 when small)."""
    return int(config.get("faiss", {}).get("nprobe") or (6 if count <= 5000 else round(ivf_cells(count) / 16)))


@dataclass
class PassageIndex:
    """Dense retrieval over a folder in either layout (see the module docstring)."""

    folder: Path
    passages: PassageList | SqlitePassages
    vectors: faiss.Index
    manifest: dict
    lexical: LexicalIndex | None = None  # BM25 over the passages, when the folder holds it

    @classmethod
    def load(cls, folder: Path, rebuild: str = "python -m ambigdemo build") -> "PassageIndex":
        folder = Path(folder)
        manifest = verify_manifest(folder, rebuild)
        txtai = (folder / TXTAI_VECTORS).is_file()
        vector_file = folder / (TXTAI_VECTORS if txtai else VECTORS)
        try:
            vectors = faiss.read_index(os.fspath(vector_file))
        except RuntimeError as exc:
            raise ArtifactError(f"{vector_file} cannot be read ({exc}). Rebuild with: {rebuild}") from exc
        if txtai:
            passages = _txtai_passages(folder, vectors, rebuild)
        else:
            ivf = faiss.try_extract_index_ivf(vectors)
            if ivf is not None:
                ivf.make_direct_map()  # so vectors_of can read an IVF index's vectors back
            passages = PassageList()
            with open(folder / PASSAGES, encoding="utf-8") as fh:
                for line in fh:
                    row = json.loads(line)
                    passages.append(Passage(id=row["id"], title=row["title"], text=row["text"]))
        if vectors.ntotal != len(passages):
            raise ArtifactError(
                f"{vector_file} holds {vectors.ntotal} vectors for {len(passages)} passages. Rebuild with: {rebuild}"
            )
        lexical = None
        if manifest.get("lexical"):
            try:
                lexical = LexicalIndex.load(folder, len(passages))
            except (OSError, ValueError, KeyError) as exc:
                raise ArtifactError(f"{folder / LEXICAL} cannot be read ({exc}). Rebuild with: {rebuild}") from exc
        return cls(folder, passages, vectors, manifest, lexical)

    @property
    def embedder_id(self) -> str:
        return self.manifest.get("embedder", "")

    @property
    def licence(self) -> str:
        return self.manifest.get("licence", DEFAULT_LICENCE)

    @property
    def credit(self) -> str:
        """The attribution shown wherever this index's text is shown."""
        return self.manifest.get("credit") or WIKI_CREDIT

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {p.id: n for n, p in enumerate(self.passages)}

    def vectors_of(self, ids: list[str]) -> np.ndarray:
        """The stored vectors of the passages ``ids``, in that order."""
        return np.stack([self.vectors.reconstruct(self._rows[i]) for i in ids])

    def search(self, query_vectors: np.ndarray, k: int) -> list[list[Passage]]:
        """Top-``k`` passages for each query vector, best first, with their cosine scores."""
        scores, ids = self.vectors.search(np.ascontiguousarray(query_vectors, dtype=np.float32), k)
        out = []
        for row_ids, row_scores in zip(ids, scores):
            kept = [(int(i), float(s)) for i, s in zip(row_ids, row_scores) if i >= 0]
            out.append([_scored(p, s) for p, (_, s) in zip(self.passages.take([i for i, _ in kept]), kept)])
        return out


def passage_count(folder: Path) -> int:
    """How many passages an index folder of either layout holds, without loading it."""
    folder = Path(folder)
    if (folder / TXTAI_CONFIG).is_file():
        return int(json.loads((folder / TXTAI_CONFIG).read_text(encoding="utf-8"))["offset"])
    with open(folder / PASSAGES, "rb") as fh:
        return sum(1 for _ in fh)


def _txtai_passages(folder: Path, vectors: faiss.Index, rebuild: str) -> SqlitePassages:
    """Open a txtai folder's ``documents`` and set the IVF search width as txtai would."""
    try:
        config = json.loads((folder / TXTAI_CONFIG).read_text(encoding="utf-8"))
        count = int(config["offset"])
    except (OSError, ValueError, KeyError) as exc:
        raise ArtifactError(f"{folder / TXTAI_CONFIG} is unreadable ({exc}). Rebuild with: {rebuild}") from exc
    ivf = faiss.try_extract_index_ivf(vectors)
    if ivf is not None:
        ivf.nprobe = txtai_nprobe(config, count)
    try:
        return SqlitePassages(folder / TXTAI_DOCUMENTS, count)
    except sqlite3.Error as exc:
        raise ArtifactError(f"{folder / TXTAI_DOCUMENTS} cannot be opened ({exc}). Rebuild with: {rebuild}") from exc


def _scored(p: Passage, score: float) -> Passage:
    return Passage(id=p.id, title=p.title, text=p.text, score=float(score))


INDEX_TYPES = ("flat", "hnsw", "ivfpq")
HNSW_M, HNSW_EF_SEARCH = 32, 256


def ivf_cells(count: int) -> int:
    """IVF lists for ``count`` vectors: 4 sqrt(n), at least 39 training points per list (as txtai)."""
    return max(min(round(4 * math.sqrt(count)), count // 39), 1)


def make_vectors(vectors: np.ndarray, index_type: str = "flat", nprobe: int = 0) -> faiss.Index:
    """An inner-product FAISS index of ``vectors`` (row n gets id n).

    ``flat``: exact, 4 bytes a dimension. ``hnsw``: HNSW32 graph (efSearch 256) over the full vectors (same memory
    plus ~256 bytes a vector, much faster search). ``ivfpq``: IVF lists with product quantization,
    dim/4 one-byte codes a vector (1/16 of flat), searched over ``nprobe`` lists (default lists/16).
    """
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, dim = vectors.shape
    if index_type == "flat":
        index = faiss.IndexFlatIP(dim)
    elif index_type == "hnsw":
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = HNSW_EF_SEARCH
    elif index_type == "ivfpq":
        if n < 256 * 39:
            raise ValueError(f"an ivfpq index needs at least {256 * 39} passages to train on, got {n}; use flat")
        cells = ivf_cells(n)
        index = faiss.index_factory(dim, f"IVF{cells},PQ{dim // 4}", faiss.METRIC_INNER_PRODUCT)
        sample = vectors[np.random.default_rng(0).permutation(n)[: max(cells * 39, 65_536)]]
        index.train(sample)
        faiss.extract_index_ivf(index).nprobe = nprobe or max(cells // 16, 8)
    else:
        raise ValueError(f"unknown index type {index_type!r}; one of {', '.join(INDEX_TYPES)}")
    index.add(vectors)
    return index


def write_index(folder: Path, passages: list[Passage], vectors: np.ndarray, index_type: str = "flat", **meta) -> None:
    """Write passages, vectors and their BM25 index, then the manifest (the commit point of a build)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / PASSAGES, "w", encoding="utf-8") as fh:
        for p in passages:
            fh.write(json.dumps({"id": p.id, "title": p.title, "text": p.text}, ensure_ascii=False) + "\n")
    faiss.write_index(make_vectors(vectors, index_type), os.fspath(folder / VECTORS))
    lexical = LexicalIndex.build(passages).save(folder) if passages else []
    write_manifest(folder, [PASSAGES, VECTORS, *lexical], count=len(passages), dim=int(vectors.shape[1]), index_type=index_type,
                   **({"lexical": LEXICAL_ID} if lexical else {}), **meta)
