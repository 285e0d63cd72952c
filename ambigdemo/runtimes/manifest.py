"""A folder's manifest: the size and sha256 of each file it holds, written last, so that its presence
means the folder is complete, and checked on load (every model, preset and index folder has one)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ambigdemo.files import replace_text

MANIFEST = "manifest.json"
DEEP_CHECK_MAX_BYTES = 1 << 30  # bigger files are sha256-checked when downloaded or built, size-checked on load


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
    """Check every file the manifest lists; raise ArtifactError naming the first bad one and ``rebuild``.

    ``deep`` checks sha256 too, for files up to ``DEEP_CHECK_MAX_BYTES`` (a multi-GB index was
    hashed when it was written or downloaded; rehashing it would add seconds to every start).
    """
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
        if deep and entry["bytes"] <= DEEP_CHECK_MAX_BYTES and sha256(file) != entry["sha256"]:
            raise ArtifactError(f"{file} fails its sha256 check (corrupt). Rebuild with: {rebuild}")
    return manifest
