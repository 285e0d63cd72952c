"""On a Hugging Face Space: answer from the embedded default at once, fetch the ``wikipedia`` preset in
the background into persistent storage, and switch to it once it is downloaded, verified and loaded.

The app holds a :class:`LivePipeline`, which answers with whichever pipeline is current; an
:class:`Upgrade` thread checks memory, downloads (``build.hub.download``: pinned, resumable,
sha256-checked, kept under ``/data``), loads the preset and switches. If memory is short, the hub
unreachable or a file corrupt, the app stays on the embedded default and its notice says why.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import replace
from pathlib import Path

import psutil

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.index import ArtifactError

log = logging.getLogger(__name__)
SPACE_PRESET = "wikipedia"
# Expected, from the pinned files (docs/presets.md): the IVF-SQ8 vectors held in RAM (4.67 GB), the
# e5-base encoder and the generator, beside the embedded pipeline already serving
NEEDS_GB = {"wikipedia": 7.0}
EMBEDDED_CORPUS = "the embedded corpus (10,033 Wikipedia article leads)"


def space_models_dir(config: Config, data: Path = Path("/data")) -> Path:
    """Persistent storage when the Space has it (``/data`` writable), else the configured models folder."""
    return data / "models" if data.is_dir() and os.access(data, os.W_OK) else config.models_dir


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
                 endpoint: str | None = None, available_gb: float | None = None):
        super().__init__(name=f"upgrade-{preset}", daemon=True)
        self.live, self.config, self.models_dir, self.preset = live, config, Path(models_dir), preset
        self.endpoint = endpoint
        self.available_gb = available_gb if available_gb is not None else psutil.virtual_memory().available / 2**30
        self.live.status = f"Answering from {EMBEDDED_CORPUS} while the `{preset}` preset downloads in the background."

    def run(self) -> None:
        from ambigdemo.presets.hub import HubUnavailable, download

        need = NEEDS_GB.get(self.preset, 0.0)
        stay = f"Answering from {EMBEDDED_CORPUS}"
        if self.available_gb < need:
            self.live.status = (f"{stay}: the `{self.preset}` preset needs about {need:.0f} GB of free memory, "
                                f"this machine has {self.available_gb:.1f} GB.")
            return
        try:
            download(self.preset, self.models_dir, endpoint=self.endpoint, progress=False)
            pipeline = Pipeline.load(replace(self.config, preset=self.preset, models_dir=self.models_dir))
        except (HubUnavailable, ArtifactError, OSError, MemoryError, ValueError) as exc:
            log.warning("staying on the embedded preset: %s", exc)
            self.live.status = f"{stay}: the `{self.preset}` preset could not be used ({str(exc).splitlines()[0]})."
            return
        if pipeline.notice:  # it fell back to embedded after all
            self.live.status = f"{stay}: {pipeline.notice}"
            return
        self.live.switch(pipeline, f"Answering from the `{self.preset}` preset: {pipeline.retriever.index.credit}")
