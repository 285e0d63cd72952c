"""Index builds: embed passages in resumable chunks, then write a :class:`PassageIndex` folder."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ambigdemo.runtimes.index import write_index
from ambigdemo.runtimes.onnx import Embedder
from ambigdemo.types import Passage

CHUNK = 512


def passage_text(p: Passage) -> str:
    """What the embedder sees for a passage: its title, then its text."""
    return f"{p.title}. {p.text}" if p.title else p.text


def build_index(
    passages: list[Passage], embedder: Embedder, out: Path, embedder_id: str, source: str, progress: bool = True
) -> Path:
    """Embed ``passages`` into ``out``; a killed build resumes from its last finished chunk.

    Finished chunks are saved as ``out/.work/NNNNN.npy`` (written to a temporary name, then renamed);
    the work folder is keyed by a fingerprint of the passages and embedder, so a changed input starts over.
    """
    out = Path(out)
    work = out / ".work"
    fingerprint = _fingerprint(passages, embedder_id)
    stamp = work / "fingerprint"
    if not stamp.is_file() or stamp.read_text() != fingerprint:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        stamp.write_text(fingerprint)
    starts = range(0, len(passages), CHUNK)
    bar = tqdm(total=len(passages), desc="embed passages", unit="passage", disable=not progress)
    parts = []
    for start in starts:
        path = work / f"{start // CHUNK:05d}.npy"
        if path.is_file():
            vectors = np.load(path)
        else:
            vectors = embedder.encode_passages([passage_text(p) for p in passages[start : start + CHUNK]])
            tmp = work / f"{path.stem}.tmp.npy"
            np.save(tmp, vectors)
            os.replace(tmp, path)
        parts.append(vectors)
        bar.update(len(vectors))
    bar.close()
    vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    write_index(out, passages, vectors, embedder=embedder_id, source=source)
    shutil.rmtree(work, ignore_errors=True)
    return out


def finished_chunks(out: Path, passages: list[Passage], embedder_id: str) -> int:
    """How many chunks a previous, killed build of the same input left in ``out/.work``."""
    stamp = Path(out) / ".work" / "fingerprint"
    if not stamp.is_file() or stamp.read_text() != _fingerprint(passages, embedder_id):
        return 0
    return sum(1 for p in stamp.parent.glob("*.npy") if ".tmp" not in p.name)


def _fingerprint(passages: list[Passage], embedder_id: str) -> str:
    digest = hashlib.sha256(embedder_id.encode())
    for p in passages:
        digest.update(json.dumps([p.id, p.title, p.text]).encode())
    return digest.hexdigest()
