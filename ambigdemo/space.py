"""On a Hugging Face Space: answer from the embedded default at once, fetch the ``wikipedia`` preset in
the background, and switch to it once it is downloaded, verified and loaded.

The app holds a :class:`LivePipeline`, which answers with whichever pipeline is current; an
:class:`Upgrade` thread checks memory, downloads (``presets.hub.download``: pinned, resumable,
sha256-checked; kept on the storage volume when the Space has one, ``AMBIGDEMO_STORAGE``; an index
repository the Space mounts, ``AMBIGDEMO_INDEX_MOUNT``, is checked and read in place), loads the preset
with the reader session already serving (built at start, not loaded twice) and switches. If memory is
short, the hub unreachable or a file corrupt, the app stays on the embedded default and its notice says why.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path

import psutil

from ambigdemo.config import Config, storage_dir
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.manifest import ArtifactError

log = logging.getLogger(__name__)
SPACE_PRESET = "wikipedia"
# Expected, from the pinned files (docs/presets.md): the IVF-SQ8 vectors held in RAM (4.67 GB) and the e5-base
# encoder, beside the embedded pipeline already serving, whose reader session the preset shares
NEEDS_GB = {"wikipedia": 6.0}
EMBEDDED_CORPUS = "the embedded corpus (10,033 Wikipedia article leads)"


OWN_DISK = ("to the Space's own disk, lost when it restarts: attach a Storage Bucket read-write and set "
            "AMBIGDEMO_STORAGE to its mount path to keep it")


def space_models_dir(config: Config) -> tuple[Path, str]:
    """Where the space preset is kept, and a note for its status line: ``models/`` on the storage volume
    (:func:`~ambigdemo.config.storage_dir`: it outlives restarts), else the models folder on the Space's own disk."""
    storage = storage_dir()
    return (storage / "models", "") if storage else (config.models_dir, OWN_DISK)


class LivePipeline:
    """The pipeline the app answers with: every attribute is the current pipeline's; :meth:`switch`
    replaces it between two requests (a request holds the pipeline it started with)."""

    def __init__(self, pipeline: Pipeline, status: str = ""):
        self._current = pipeline
        self.status = status

    @property
    def current(self) -> Pipeline:
        return self._current

    def switch(self, pipeline: Pipeline, status: str) -> None:
        self._current, self.status = pipeline, status

    def __getattr__(self, name: str):
        return getattr(self._current, name)


class Upgrade(threading.Thread):
    """Fetch, verify and load ``preset`` into ``models_dir``, then switch ``live`` to it (or say why not)."""

    def __init__(self, live: LivePipeline, config: Config, models_dir: Path, preset: str = SPACE_PRESET,
                 endpoint: str | None = None, available_gb: float | None = None, where: str = ""):
        super().__init__(name=f"upgrade-{preset}", daemon=True)
        self.live, self.config, self.models_dir, self.preset = live, config, Path(models_dir), preset
        self.endpoint = endpoint
        self.available_gb = available_gb if available_gb is not None else psutil.virtual_memory().available / 2**30
        mounted = " (its index read in place from the mounted repository)" if config.index_mount else ""
        self.live.status = (f"Answering from {EMBEDDED_CORPUS} while the `{preset}` preset downloads in the background"
                            f"{mounted}{' ' + where if where else ''}.")

    def run(self) -> None:
        from ambigdemo.presets.hub import HubUnavailable, download

        need = NEEDS_GB.get(self.preset, 0.0)
        stay = f"Answering from {EMBEDDED_CORPUS}"
        if self.available_gb < need:
            self.live.status = (f"{stay}: the `{self.preset}` preset needs about {need:.0f} GB of free memory, "
                                f"this machine has {self.available_gb:.1f} GB.")
            return
        try:
            download(self.preset, self.models_dir, endpoint=self.endpoint, progress=False, mounts=self._mounts())
            readers = self.config.readers_dir or self.config.models_dir  # the readers built at start, not downloaded
            pipeline = Pipeline.load(replace(self.config, preset=self.preset, models_dir=self.models_dir, readers_dir=readers),
                                     share=self.live.current)
        except (HubUnavailable, ArtifactError, OSError, MemoryError, ValueError) as exc:
            log.warning("staying on the embedded preset: %s", exc)
            self.live.status = f"{stay}: the `{self.preset}` preset could not be used ({str(exc).splitlines()[0]})."
            return
        if pipeline.notice:  # it fell back to embedded after all
            self.live.status = f"{stay}: {pipeline.notice}"
            return
        self.live.switch(pipeline, f"Answering from the `{self.preset}` preset: {pipeline.retriever.index.credit}")

    def _mounts(self) -> dict[str, Path]:
        """The preset's index repository, when the Space mounts it (``AMBIGDEMO_INDEX_MOUNT``)."""
        from ambigdemo.presets.catalog import get_preset

        preset = get_preset(self.preset)
        if self.config.index_mount is None or "index" not in {c.name for c in preset.components}:
            return {}
        return {preset.component("index").repo_id: self.config.index_mount}
