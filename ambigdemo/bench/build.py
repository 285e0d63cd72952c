"""``bench --build``: each reader's build (join its GGUF parts, or read a GGUF file given by path; export,
quantize) in a fresh process, into a scratch models folder, with its wall time, peak resident memory and peak disk."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ambigdemo.config import READER_MODELS, is_gguf_reader

SAMPLE_S = 0.5  # how often the scratch folder's size is read while the build runs


def _size(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except OSError:  # a temporary file the build removed meanwhile
                pass
    return total


def build_one(reader: str, scratch: Path) -> dict:
    """Build ``reader``'s generator into ``scratch`` as ``python -m ambigdemo build`` does; its measures.
    RuntimeError (with the end of its output) when the build fails."""
    label = Path(reader).stem if is_gguf_reader(reader) else reader
    models = scratch / label
    log = scratch / f"{label}.out"
    command = [sys.executable, "-m", "ambigdemo", "build", "--reader-model", reader, "--models-dir", str(models)]
    env = {**os.environ, "TMPDIR": str(scratch / "tmp")}  # the export's temporary files count as its disk
    (scratch / "tmp").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    peak_disk = 0
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak_disk = max(peak_disk, _size(models) + _size(scratch / "tmp"))
            time.sleep(SAMPLE_S)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"building the {reader} reader failed:\n{log.read_text(encoding='utf-8')[-2000:]}")
    generator = next(models.glob("*/generator"))
    return {
        "wall_s": round(wall, 1),
        "peak_rss_gb": round(usage.ru_maxrss * 1024 / 1e9, 2),  # ru_maxrss is in KiB on Linux
        "peak_disk_gb": round(peak_disk / 1e9, 2),
        "model_gb": round(_size(generator) / 1e9, 2),
    }


def run(readers: list[str]) -> dict:
    """``build_one`` for each reader (default: every one), one after the other, each in its own scratch folder."""
    unknown = sorted(r for r in readers if r not in READER_MODELS and not is_gguf_reader(r))
    if unknown:
        raise ValueError(f"unknown reader model {', '.join(unknown)}; known: {', '.join(READER_MODELS)}, or a GGUF file's path")
    report = {}
    for reader in readers or list(READER_MODELS):
        with tempfile.TemporaryDirectory(prefix="ambigdemo-build-") as scratch:
            report[reader] = build_one(reader, Path(scratch))
    return report
