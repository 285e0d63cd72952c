"""Fetch a hub preset (see :mod:`ambigdemo.presets.catalog`) into ``models/<preset>/`` and verify it.

``download(preset, models_dir)`` does, per downloaded component (embedder, generator, and the
index unless the preset builds it):

1. skip it when its folder already verifies against a manifest written for the same repo and pin;
2. ask the hub for the pinned revision's file list with sizes, LFS sha256 and git blob ids;
3. ``huggingface_hub.snapshot_download`` of exactly the listed files at that commit into
   ``models/<preset>/.download/<component>/`` (resumes partial files, tqdm progress);
4. check every file's size and sha256 (pinned in the preset and/or the hub's LFS sha256; the git
   blob sha1 for small non-LFS files); a bad file is deleted and :class:`ChecksumError` raised;
5. move the files to their names in our layout, write ``embedder.json``/``generator.json`` from
   the spec, and write ``manifest.json`` last, so ``artifacts.verify`` accepts the folder.

Then, for a preset with ``index_passages``, it embeds those passages with the downloaded embedder
into ``index/`` (:func:`ambigdemo.presets.indexing.build_index`: progress bar, resumable, no network),
unless the index already verifies for the same embedder and passages.

Nothing is loaded from a folder whose manifest does not verify, so an interrupted download is never
half-loaded: the app falls back to the embedded preset and names what is missing. When the hub
cannot be reached (no network, ``HF_HUB_OFFLINE=1``, 401/404, 5xx, a dropped connection)
:class:`HubUnavailable` carries one line naming the preset and the command to retry.
The endpoint is the ``endpoint`` argument, else ``HF_ENDPOINT``, else https://huggingface.co.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
from contextlib import nullcontext
from dataclasses import dataclass
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ambigdemo.config import hub_endpoint, hub_offline_now
from ambigdemo.presets.artifacts import PresetPaths
from ambigdemo.presets.steps import Steps
from ambigdemo.presets.catalog import Component, Preset, RemoteFile, get_preset
from ambigdemo.runtimes.manifest import MANIFEST, ArtifactError, sha256, verify_manifest, write_manifest
from ambigdemo.runtimes.index import passage_count

DEFAULT_ENDPOINT = "https://huggingface.co"
STAGING = ".download"


class HubUnavailable(RuntimeError):
    """The hub could not be reached or refused the request; the message is one line with the fix."""

    def __init__(self, preset: str, reason: str, retry: str, kind: str = "preset"):
        self.preset, self.reason, self.retry = preset, _one_line(reason), retry
        super().__init__(
            f"{kind} '{preset}' could not be downloaded ({self.reason}); the app keeps using the embedded "
            f"default. Retry with network: {retry}"
        )


class ChecksumError(ArtifactError):
    """A downloaded file does not match its pinned or hub-advertised checksum (it was deleted)."""


class IncompletePreset(ArtifactError):
    """A preset folder exists but one of its components is missing, truncated or corrupt."""


@dataclass(frozen=True)
class Expected:
    """What one file must be, from the preset pin and the hub's metadata for the pinned commit."""

    size: int | None
    sha256: str | None
    git_sha1: str | None


def resolve_endpoint(endpoint: str | None = None) -> str:
    return (endpoint or hub_endpoint() or DEFAULT_ENDPOINT).rstrip("/")


def retry_command(preset: str, endpoint: str | None = None) -> str:
    command = f"python -m ambigdemo download {preset}"
    return f"{command} --endpoint {endpoint}" if endpoint else command


def check_preset(preset: Preset | str, models_dir: Path, deep: bool = True) -> PresetPaths:
    """Verify every component of ``preset``; :class:`IncompletePreset` names the preset and the bad file."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    paths = PresetPaths(Path(models_dir) / preset.name)
    for name in preset.parts:
        folder = getattr(paths, name)
        try:
            manifest = verify_manifest(folder, preset.command, deep=deep)
        except ArtifactError as exc:
            raise IncompletePreset(f"preset '{preset.name}' is incomplete: {name}: {exc}") from exc
        if preset.components:
            missing = [f for f in preset.local_files(name) if f not in manifest.get("files", {})]
            if missing:
                raise IncompletePreset(
                    f"preset '{preset.name}' is incomplete: {name}: {folder / MANIFEST} does not list "
                    f"{', '.join(missing)}. Rebuild with: {preset.command}"
                )
    return paths


def preset_state(preset: Preset | str, models_dir: Path) -> str:
    """``ready``, or the reason it is not (a quick size-only check), for listings."""
    try:
        check_preset(preset, models_dir, deep=False)
        return "ready"
    except IncompletePreset as exc:
        return str(exc).split(": ", 1)[1].split(". Rebuild with")[0]


def download(
    preset: Preset | str, models_dir: Path, endpoint: str | None = None, progress: bool = True, steps: Steps | None = None,
    mounts: Mapping[str, Path] | None = None,
) -> PresetPaths:
    """Fetch and verify every component of a hub preset; returns its :class:`PresetPaths`.

    ``mounts`` maps a repository id to the folder where it is mounted (a Space's read-only volume): that
    component's files are checked against the pinned commit's checksums there and linked, not downloaded.

    Raises :class:`HubUnavailable` (one line) when the hub cannot be reached, :class:`ChecksumError`
    when a file is corrupt (the file is deleted first), :class:`ArtifactError` when the pinned repo
    lacks a file the preset names. With ``steps``, each component's download and the index build is
    an announced :class:`~ambigdemo.presets.steps.Steps` step (the libraries' output in its log), and
    those errors arrive as the ``__cause__`` of its :class:`~ambigdemo.presets.steps.StepFailed`.
    """
    preset = get_preset(preset) if isinstance(preset, str) else preset
    if preset.origin != "hub":
        raise ValueError(f"preset {preset.name!r} is not downloaded; create it with: {preset.command}")
    url = resolve_endpoint(endpoint)
    retry = retry_command(preset.name, endpoint)
    root = Path(models_dir) / preset.name
    say = steps.say if steps else print if progress else _quiet
    step = steps.step if steps else nullcontext

    from huggingface_hub import HfApi
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    api = HfApi(endpoint=url)
    bars_were_off = are_progress_bars_disabled()
    if not progress:
        disable_progress_bars()
    try:
        for component in preset.components:
            folder = root / component.name
            if _up_to_date(folder, component):
                say(f"{component.name}: ok ({folder})")
                continue
            mount = (mounts or {}).get(component.repo_id)
            if mount is not None:
                with step(f"{component.name}: check {component.source} mounted at {mount}"):
                    _link_mounted(api, preset, component, root, Path(mount), url, retry)
                continue
            with step(f"{component.name}: download {component.source}"):
                _fetch(api, preset, component, root, url, retry)
    finally:
        if not progress and not bars_were_off:
            enable_progress_bars()
    _remove_empty(root / STAGING)
    if preset.index_passages is not None:
        build_preset_index(preset, PresetPaths(root), progress, steps)
    return check_preset(preset, models_dir)


def _fetch(api: Any, preset: Preset, component: Component, root: Path, url: str, retry: str) -> None:
    """One component: its pinned commit's file list, the files into a staging folder, then checked and installed."""
    from huggingface_hub import snapshot_download

    folder = root / component.name
    if offline_mode():
        raise HubUnavailable(preset.name, "offline mode is on: HF_HUB_OFFLINE=1", retry)
    guard = _Guard(preset.name, retry, url)
    with guard:
        info = api.repo_info(component.repo_id, repo_type=component.repo_type, revision=component.revision, files_metadata=True)
    expected = _expectations(component, info)
    staging = root / STAGING / component.name
    logging.getLogger(__name__).info("%s: %s at commit %s to %s", component.name, component.source, info.sha, folder)
    with guard:
        snapshot_download(
            component.repo_id,
            repo_type=component.repo_type,
            revision=info.sha,  # the commit the file list came from, even when the pin is a tag
            allow_patterns=component.allow_patterns,
            local_dir=staging,
            endpoint=url,
            max_workers=4,
        )
    _install(preset, component, info.sha, staging, folder, expected, retry)
    shutil.rmtree(staging, ignore_errors=True)


def _link_mounted(api: Any, preset: Preset, component: Component, root: Path, mount: Path, url: str, retry: str) -> None:
    """A component mounted read-only at ``mount``: each file checked against the pinned commit's size and
    checksum (from the hub, as a download is), then linked into the component's folder. A bad file is named
    and left alone (it is not ours to delete)."""
    if offline_mode():
        raise HubUnavailable(preset.name, "offline mode is on: HF_HUB_OFFLINE=1 (the mounted files are checked against the hub)", retry)
    with _Guard(preset.name, retry, url):
        info = api.repo_info(component.repo_id, repo_type=component.repo_type, revision=component.revision, files_metadata=True)
    expected = _expectations(component, info)
    for rf in component.files:
        path = mount / rf.remote
        if not path.is_file():
            raise ArtifactError(f"{path} is missing: the volume mounted at {mount} is not {component.source} at {info.sha}")
        problem = _problem(path, expected[rf.remote])
        if problem:
            raise ChecksumError(f"{component.source}/{rf.remote} mounted at {path} {problem}; mount the pinned commit {component.revision}")
    folder = root / component.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).unlink(missing_ok=True)
    for rf in component.files:
        link = folder / rf.local
        link.unlink(missing_ok=True)
        link.symlink_to(mount / rf.remote)
    _finish(preset, component, info.sha, folder, mounted=str(mount))


def build_preset_index(preset: Preset, paths: PresetPaths, progress: bool = True, steps: Steps | None = None) -> None:
    """Embed ``preset.index_passages`` with the preset's embedder into ``paths.index``, unless already done
    (a step of ``steps`` when given).

    A killed build resumes from its finished chunks; :class:`ArtifactError` when the passages cannot be read.
    """
    from ambigdemo.presets.indexing import CHUNK, build_index, finished_chunks
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    say = steps.say if steps else print if progress else _quiet
    source, folder = preset.index_passages, paths.index
    try:
        label = source.label
        if _index_up_to_date(folder, preset.embedder_id, label):
            say(f"index: ok ({folder})")
            return
        passages = source.read()
    except (OSError, ValueError) as exc:
        raise ArtifactError(f"index of preset '{preset.name}': cannot read its passages ({exc})") from exc
    (folder / MANIFEST).unlink(missing_ok=True)
    done = finished_chunks(folder, passages, preset.embedder_id)
    resuming = f", resuming: {done} of {-(-len(passages) // CHUNK)} chunks already embedded" if done else ""
    name = f"index: embed {len(passages)} passages from {label} with {preset.embedder_id}{resuming}"
    if steps is None:
        say(name)
    with steps.step(name) if steps else nullcontext():
        build_index(passages, OnnxEmbedder(paths.embedder), folder, preset.embedder_id, label, progress)


def offline_mode() -> bool:
    """``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) as set now, or as huggingface_hub read it at import."""
    from huggingface_hub import constants

    return hub_offline_now() or bool(constants.HF_HUB_OFFLINE)


def _quiet(*_args, **_kwargs) -> None:
    pass


def _up_to_date(folder: Path, component: Component) -> bool:
    try:
        manifest = verify_manifest(folder, "", deep=True)
    except ArtifactError:
        return False
    return (
        manifest.get("repo_id") == component.repo_id
        and manifest.get("pinned") == component.revision
        and all(f in manifest.get("files", {}) for f in component.local_files)
    )


def _index_up_to_date(folder: Path, embedder_id: str, source: str) -> bool:
    try:
        manifest = verify_manifest(folder, "", deep=True)
    except ArtifactError:
        return False
    return manifest.get("embedder") == embedder_id and manifest.get("source") == source


def _expectations(component: Component, info: Any) -> dict[str, Expected]:
    """Per remote file: size and checksums from the pin and the hub; a disagreement is an error."""
    siblings = {s.rfilename: s for s in (info.siblings or [])}
    out = {}
    for rf in component.files:
        sibling = siblings.get(rf.remote)
        if sibling is None:
            raise ArtifactError(
                f"{component.source} (commit {info.sha}) has no file {rf.remote!r}; the preset spec in "
                "ambigdemo/presets/catalog.py does not match the repository"
            )
        hub = _hub_expected(sibling)
        hub_sha256 = hub.sha256
        if rf.sha256 and hub_sha256 and rf.sha256 != hub_sha256:
            raise ChecksumError(
                f"{component.source}/{rf.remote}: the hub says sha256 {hub_sha256}, the preset pins {rf.sha256}; "
                "the repository changed under the pin or the spec is wrong (nothing was downloaded)"
            )
        out[rf.remote] = Expected(
            size=rf.size if rf.size is not None else hub.size,
            sha256=rf.sha256 or hub_sha256,
            git_sha1=None if (rf.sha256 or hub_sha256) else sibling.blob_id,
        )
    return out


def _hub_expected(sibling: Any) -> Expected:
    """What the hub's record says a file is: its LFS size and sha256, or a small file's size and git blob id."""
    lfs = sibling.lfs
    if lfs is not None:
        return Expected(size=lfs.size, sha256=lfs.sha256, git_sha1=None)
    return Expected(size=sibling.size, sha256=None, git_sha1=sibling.blob_id)


def _install(
    preset: Preset,
    component: Component,
    commit: str,
    staging: Path,
    folder: Path,
    expected: dict[str, Expected],
    retry: str,
) -> None:
    for rf in component.files:
        path = staging / rf.remote
        if not path.is_file():
            raise HubUnavailable(preset.name, f"download incomplete: {component.source}/{rf.remote} is missing", retry)
        _check(path, rf, expected[rf.remote], component, staging, retry)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).unlink(missing_ok=True)  # the folder is incomplete from here until the new manifest
    for rf in component.files:
        os.replace(staging / rf.remote, folder / rf.local)
    _finish(preset, component, commit, folder)


def _finish(preset: Preset, component: Component, commit: str, folder: Path, **extra: Any) -> None:
    """The component's specs, then its manifest (last: the folder is complete from then on)."""
    for spec in component.specs:
        spec.write(folder)
    meta: dict[str, Any] = {**component.meta, **extra}
    if component.name == "index":
        meta["count"] = passage_count(folder)
    write_manifest(
        folder,
        component.local_files,
        role=component.role or component.name,
        preset=preset.name,
        repo_id=component.repo_id,
        repo_type=component.repo_type,
        pinned=component.revision,
        revision=commit,
        remote_files={rf.local: rf.remote for rf in component.files},
        **meta,
    )


def _problem(path: Path, want: Expected) -> str | None:
    """What is wrong with ``path`` against ``want`` (size, then sha256 or git blob sha1), or None."""
    size = path.stat().st_size
    if want.size is not None and size != want.size:
        return f"is {size} bytes, expected {want.size}"
    if want.sha256:
        got = sha256(path)
        return None if got == want.sha256 else f"fails its sha256 check (expected {want.sha256}, got {got})"
    if want.git_sha1:
        got = git_blob_sha1(path)
        return None if got == want.git_sha1 else f"fails its git blob check (expected {want.git_sha1}, got {got})"
    return "has no checksum on the hub or in the preset, so it cannot be verified"


def _check(path: Path, rf: RemoteFile, want: Expected, component: Component, staging: Path, retry: str) -> None:
    where = f"{component.source}/{rf.remote}"
    problem = _problem(path, want)
    if problem:
        path.unlink(missing_ok=True)
        for stale in (staging / ".cache" / "huggingface" / "download").glob(f"{rf.remote}.*"):
            stale.unlink(missing_ok=True)
        raise ChecksumError(f"{where} {problem}; the file was deleted. Download it again with: {retry}")


def git_blob_sha1(path: Path, chunk: int = 1 << 20) -> str:
    """The git object id of a file (what the hub reports as ``blobId``/ETag for non-LFS files)."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _remove_empty(folder: Path) -> None:
    if folder.is_dir() and not any(p.is_file() for p in folder.rglob("*")):
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class _Guard:
    """A context for hub calls: every way of not reaching the hub becomes :class:`HubUnavailable`."""

    preset: str
    retry: str
    endpoint: str
    kind: str = "preset"

    def __enter__(self) -> "_Guard":
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if exc is None or not isinstance(exc, Exception) or isinstance(exc, HubUnavailable):
            return False
        reason = unreachable_reason(exc, self.endpoint)
        if reason is None:
            return False  # not a network problem: propagate unchanged
        raise HubUnavailable(self.preset, reason, self.retry, self.kind) from exc


def unreachable_reason(exc: BaseException, endpoint: str) -> str | None:
    """A short reason when ``exc`` means the hub cannot serve us now; None for other errors."""
    import requests
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    chain = [exc]
    while chain[-1].__cause__ is not None or chain[-1].__context__ is not None:
        nxt = chain[-1].__cause__ or chain[-1].__context__
        if nxt in chain or len(chain) > 8:
            break
        chain.append(nxt)
    for e in chain:
        if isinstance(e, OfflineModeIsEnabled):
            return "offline mode is on: HF_HUB_OFFLINE=1"
    for e in chain:
        status = getattr(getattr(e, "response", None), "status_code", None)
        if isinstance(e, GatedRepoError):
            return f"gated repository, log in first (HTTP {status})"
        if isinstance(e, RevisionNotFoundError):
            return f"revision not found at {endpoint} (HTTP {status})"
        if isinstance(e, EntryNotFoundError):
            return f"file not found at {endpoint} (HTTP {status})"
        if isinstance(e, RepositoryNotFoundError):
            return f"repository not found or private at {endpoint} (HTTP {status})"
        if isinstance(e, HfHubHTTPError) and status is not None:
            return f"hub error at {endpoint}: HTTP {status}"
        if isinstance(e, (requests.exceptions.ChunkedEncodingError,)) or _is_protocol_error(e):
            return "download interrupted: the connection dropped mid-file; partial files are kept and the retry resumes them"
        if isinstance(e, (requests.exceptions.ConnectionError, requests.exceptions.Timeout)):
            return f"hub unreachable: cannot connect to {endpoint}{_errno(e)}"
    for e in chain:
        if isinstance(e, LocalEntryNotFoundError):
            return f"hub unreachable: {endpoint} did not answer"
        if isinstance(e, OSError) and "Consistency check failed" in str(e):
            return "download incomplete: a file arrived with the wrong size"
    return None


def _is_protocol_error(exc: BaseException) -> bool:
    try:
        from urllib3.exceptions import ProtocolError
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, ProtocolError)


def _errno(exc: BaseException) -> str:
    match = re.search(r"\[Errno -?\d+\] [^'\")]+", str(exc))
    return f" ({match.group(0).strip()})" if match else ""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def download_file(repo_id: str, filename: str, revision: str, dest: Path, label: str, retry: str,
                  endpoint: str | None = None) -> Path:
    """One pinned file of a model repository at ``dest`` (resumed if cut short), its size and sha256 checked against
    the hub's record for that commit (a bad file is deleted: :class:`ChecksumError`); :class:`HubUnavailable`
    (one line, ``label`` and ``retry`` in it) when the hub cannot serve it. A file already there and whole is kept."""
    from huggingface_hub import HfApi, hf_hub_download

    dest = Path(dest)
    url = resolve_endpoint(endpoint)
    if offline_mode():
        raise HubUnavailable(label, "offline mode is on: HF_HUB_OFFLINE=1", retry, kind="reader")
    guard = _Guard(label, retry, url, kind="reader")
    with guard:
        info = HfApi(endpoint=url).model_info(repo_id, revision=revision, files_metadata=True)
    sibling = next((s for s in info.siblings or () if s.rfilename == filename), None)
    if sibling is None:
        raise ArtifactError(f"{repo_id}@{revision} (commit {info.sha}) has no file {filename!r}")
    want = _hub_expected(sibling)
    if dest.is_file() and _problem(dest, want) is None:
        return dest
    staging = dest.parent / STAGING
    with guard:
        got = Path(hf_hub_download(repo_id, filename, revision=info.sha, local_dir=staging, endpoint=url))
    problem = _problem(got, want)
    if problem:
        got.unlink(missing_ok=True)
        raise ChecksumError(f"{repo_id}/{filename}@{revision} {problem}; the file was deleted. Download it again with: {retry}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    got.replace(dest)
    shutil.rmtree(staging, ignore_errors=True)
    return dest
