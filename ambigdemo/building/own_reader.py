"""``build --reader-model FILE.gguf`` (or ``hf:OWNER/REPO/FILE.gguf@REVISION``): a GGUF reader a user brings,
exported once by the lean path into its own folder (:func:`~ambigdemo.presets.gguf_reader.home`).

The file is checked before anything is built (:func:`~ambigdemo.presets.gguf_reader.inspect`: one line for a
file that is not GGUF, cut short, of an unsupported architecture, or without a usable chat template), the peak
memory the export expects is said, and the reader is written into a staging folder that replaces its folder only
once whole, with its manifest last: a failed or killed build leaves nothing that loads.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ambigdemo.presets.gguf_reader import HUB_PREFIX, HubFile, build_command, file_sha256, home, inspect, local_file
from ambigdemo.presets.steps import BUILD_LOG, Steps
from ambigdemo.runtimes.manifest import ArtifactError, verify_manifest

GB = 1e9


def gguf_file(name: str, models_dir: Path, steps: Steps) -> Path:
    """The reader's GGUF on this machine: the path given, or the pinned hub file, downloaded once and checked (a
    download takes its place only once checked, so a file there needs no network)."""
    path = local_file(name, models_dir)
    if name.startswith(HUB_PREFIX) and not path.is_file():
        from ambigdemo.presets.hub import download_file

        hub = HubFile.parse(name)
        steps.say(f"reader: download {hub} (checked against the hub's sha256)")
        download_file(hub.repo_id, hub.filename, hub.revision, path, str(hub), build_command(name))
    return path


def build_gguf_reader(name: str, models_dir: Path, steps: Steps | None = None) -> Path:
    """The folder of the reader in GGUF file ``name``, built unless it already verifies. ReaderFileError: the
    file cannot be read as a reader (nothing built); StepFailed: a step of the build failed (nothing left)."""
    from ambigdemo.building.export import export_generator

    models_dir = Path(models_dir)
    steps = steps or Steps(models_dir / BUILD_LOG)
    path = gguf_file(name, models_dir, steps)
    digest = file_sha256(path, models_dir) if path.is_file() else ""
    folder = home(models_dir, digest) / "generator"
    try:
        if digest and verify_manifest(folder, build_command(name), deep=False).get("sha256") == digest:
            steps.say(f"reader: ok ({folder})")  # built already: its header is not read again (seconds for a big vocabulary)
            return folder
    except ArtifactError:
        pass
    info = inspect(path)
    free = available_memory()
    short = f", more than the {free / GB:.1f} GB available now" if free and free < info.expected_peak_bytes else ""
    steps.say(f"reader: {info.name} ({info.architecture}, {info.bytes / GB:.2f} GB); the export expects a peak of "
              f"about {info.expected_peak_bytes / GB:.1f} GB of memory{short}")
    staging = folder.with_name("generator.partial")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        export_generator(path.parent, staging, quant="int4", gguf_file=path.name, step=steps.step, own=info,
                         id=f"gguf:{digest}", sha256=digest, architecture=info.architecture, name=info.name,
                         expected_peak_bytes=info.expected_peak_bytes)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(folder, ignore_errors=True)
    staging.replace(folder)
    return folder


def available_memory() -> int:
    """Bytes of memory available now: Linux's ``MemAvailable`` (page cache counted free), else the free pages, else 0."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0
