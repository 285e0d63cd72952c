"""Whole-file writes: a kill mid-write leaves the old file or the new one, never half of either."""

from __future__ import annotations

import os
from pathlib import Path


def replace_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` beside ``path``, flush it to disk, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)
    return path
