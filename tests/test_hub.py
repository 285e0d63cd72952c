"""``ambigdemo.presets.hub.download`` against a real HTTP server on 127.0.0.1 that answers like the hub.

Only the network boundary is replaced: ``FakeHub`` (tests/fake_hub.py) implements the endpoints
huggingface_hub's ``snapshot_download`` uses, serving the real files of ``models/embedded`` as three
small repos. Faults are real too: a connection dropped mid-file, a flipped byte, a 503 outage,
a closed port. Like ``standard``, the test preset downloads its embedder and generator and then
builds its index locally, from a tiny passage set, with the downloaded embedder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ambigdemo.presets.artifacts import EMBEDDER_ID, PresetPaths, verify
from ambigdemo.config import Config
from ambigdemo.corpus import PassageSource
from ambigdemo.presets.hub import ChecksumError, HubUnavailable, IncompletePreset, check_preset, download
from ambigdemo.loading import resolve_preset
from ambigdemo.presets.catalog import PRESETS, STANDARD, Component, EmbedderSpec, GeneratorSpec, Preset, RemoteFile
from ambigdemo.runtimes.manifest import MANIFEST, ArtifactError
from ambigdemo.runtimes.index import PASSAGES, VECTORS, PassageIndex
from ambigdemo.types import Passage
from fake_hub import FakeHub, Repo, RepoFile

ROOT = Path(__file__).resolve().parent.parent
EMBEDDED = ROOT / "models" / "embedded"
COMMITS = {
    "embedder": "1" * 40,
    "generator": "2" * 40,
    "index": "3" * 40,
}
EMBEDDER_REPO = "ambigdemo-test/tiny-embedder"
GENERATOR_REPO = "ambigdemo-test/tiny-generator"
INDEX_REPO = "ambigdemo-test/tiny-index"
BIG = "onnx/model.onnx"  # 23 MB: bigger than huggingface_hub's 10 MB read chunk, so a drop leaves a partial file
TINY_TITLES = ("Leonardo da Vinci", "Mona Lisa", "Vincent van Gogh", "Eiffel Tower")
TINY_OTHERS = 100  # passages of the tiny index besides TINY_TITLES': the first ones of the embedded index


# --- the fake hub -------------------------------------------------------------------------------


def _repos() -> dict[tuple[str, str], Repo]:
    e, g, i = EMBEDDED / "embedder", EMBEDDED / "generator", EMBEDDED / "index"
    readme = ROOT / "requirements.txt"
    return {
        ("model", EMBEDDER_REPO): Repo(
            "model",
            COMMITS["embedder"],
            {
                BIG: RepoFile(e / "model.onnx", lfs=True),
                "tokenizer.json": RepoFile(e / "tokenizer.json", lfs=False),
                "README.md": RepoFile(readme, lfs=False),  # not in allow_patterns: never fetched
            },
            refs={"main": COMMITS["embedder"]},
        ),
        ("model", GENERATOR_REPO): Repo(
            "model",
            COMMITS["generator"],
            {
                "onnx/model_quantized.onnx": RepoFile(g / "model.onnx", lfs=True),
                "tokenizer.json": RepoFile(g / "tokenizer.json", lfs=True),
            },
        ),
        ("dataset", INDEX_REPO): Repo(
            "dataset",
            COMMITS["index"],
            {"passages.jsonl": RepoFile(i / "passages.jsonl", lfs=True), "index.faiss": RepoFile(i / "index.faiss", lfs=True)},
            refs={"v1": COMMITS["index"]},
        ),
    }


def make_preset(passages: Path, embedder_sha256: str | None = None, hub_index: bool = False) -> Preset:
    """A hub preset named 'standard' whose embedder and generator live on the fake hub.

    Its index is built from ``passages`` with the downloaded embedder, or with ``hub_index``
    downloaded from a dataset repo instead.
    """
    eos = json.loads((EMBEDDED / "generator" / "generator.json").read_text())["eos_token_ids"]
    index = Component(
        name="index",
        repo_id=INDEX_REPO,
        revision="v1",
        repo_type="dataset",
        role="index",
        files=(RemoteFile("passages.jsonl", "passages.jsonl"), RemoteFile("index.faiss", "index.faiss")),
        meta={"embedder": EMBEDDER_ID},
    )
    return Preset(
        name="standard",
        description="test preset served by FakeHub",
        origin="hub",
        embedder_id=EMBEDDER_ID,
        components=(
            Component(
                name="embedder",
                repo_id=EMBEDDER_REPO,
                revision="main",
                role="embed",
                files=(RemoteFile(BIG, "model.onnx", sha256=embedder_sha256), RemoteFile("tokenizer.json", "tokenizer.json")),
                embedder=EmbedderSpec(pooling="mean"),
                meta={"id": EMBEDDER_ID},
            ),
            Component(
                name="generator",
                repo_id=GENERATOR_REPO,
                revision=COMMITS["generator"],
                role="generate",
                files=(RemoteFile("onnx/model_quantized.onnx", "model.onnx"), RemoteFile("tokenizer.json", "tokenizer.json")),
                generator=GeneratorSpec(eos_token_ids=tuple(eos), max_context=2048),
            ),
        )
        + ((index,) if hub_index else ()),
        index_passages=None if hub_index else PassageSource(passages),
    )


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def repos(preset):
    return _repos()


@pytest.fixture(scope="module")
def passages(preset, tmp_path_factory) -> Path:
    """A tiny JSONL passage set: the TINY_TITLES articles' passages and TINY_OTHERS more."""
    lines = (preset.index / PASSAGES).read_text(encoding="utf-8").splitlines()
    keep = [line for line in lines if json.loads(line)["title"] in TINY_TITLES] + lines[:TINY_OTHERS]
    path = tmp_path_factory.mktemp("tiny") / "passages.jsonl"
    path.write_text("\n".join(keep) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def hub(repos):
    server = FakeHub(repos)
    yield server
    server.close()


@pytest.fixture(autouse=True)
def online(monkeypatch):
    """conftest sets HF_HUB_OFFLINE=1 for the session; these tests talk to a local server, so lift it."""
    from huggingface_hub import constants
    from huggingface_hub.utils import reset_sessions

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    reset_sessions()
    yield
    reset_sessions()


@pytest.fixture
def models_dir(tmp_path):
    """A models/ folder with the real embedded preset linked in (the fallback) and nothing else."""
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "embedded").symlink_to(EMBEDDED, target_is_directory=True)
    return folder


# --- tests ---------------------------------------------------------------------------------------


def test_download_verifies_maps_and_loads(passages, hub, models_dir, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", hub.url)  # the endpoint comes from the environment here
    paths = download(make_preset(passages), models_dir, progress=False)

    assert paths == PresetPaths(models_dir / "standard")
    verify(paths, rebuild="python -m ambigdemo download standard")  # what the app runs at start
    assert sorted(p.name for p in paths.embedder.iterdir()) == ["embedder.json", "manifest.json", "model.onnx", "tokenizer.json"]
    assert (paths.embedder / "model.onnx").read_bytes() == (EMBEDDED / "embedder" / "model.onnx").read_bytes()
    assert (paths.generator / "model.onnx").stat().st_size == (EMBEDDED / "generator" / "model.onnx").stat().st_size
    manifest = json.loads((paths.embedder / MANIFEST).read_text())
    assert manifest["revision"] == COMMITS["embedder"] and manifest["pinned"] == "main"
    assert manifest["remote_files"] == {"model.onnx": BIG, "tokenizer.json": "tokenizer.json"}
    assert set(manifest["files"]) == {"model.onnx", "tokenizer.json", "embedder.json"}
    assert json.loads((paths.embedder / "embedder.json").read_text())["pooling"] == "mean"
    spec = json.loads((paths.generator / "generator.json").read_text())
    assert spec["chat_format"] == "chatml" and spec["eos_token_ids"]
    assert not (models_dir / "standard" / ".download").exists()
    assert "README.md" not in " ".join(hub.files_requested())

    # the index was built here from the tiny passage set with the downloaded embedder, not fetched
    assert not [r for r in hub.requests if INDEX_REPO in r[1]]
    index = PassageIndex.load(paths.index)
    assert [p.id for p in index.passages] == [json.loads(line)["id"] for line in passages.read_text().splitlines()]
    assert index.embedder_id == EMBEDDER_ID
    assert index.manifest["source"] == f"passages.jsonl ({passages.stat().st_size} bytes)"
    assert index.manifest["count"] == index.vectors.ntotal == len(index.passages) > TINY_OTHERS
    assert not (paths.index / ".work").exists()

    # the app picks it up (no fallback notice), and the index and embedder work
    resolved, notice = resolve_preset(Config(preset="standard", models_dir=models_dir))
    assert resolved == paths and notice == ""
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    hits = index.search(OnnxEmbedder(paths.embedder).encode_query(["Who painted the Mona Lisa?"]), 3)[0]
    assert hits[0].title in ("Mona Lisa", "Leonardo da Vinci"), hits

    # a second run is offline-safe: everything verifies, nothing is fetched or rebuilt
    before, built = len(hub.requests), (paths.index / VECTORS).stat().st_mtime_ns
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    download(make_preset(passages), models_dir, progress=False)
    assert len(hub.requests) == before
    assert (paths.index / VECTORS).stat().st_mtime_ns == built


def test_index_build_resumes_offline_after_an_interruption(passages, hub, models_dir, monkeypatch):
    """A download killed while embedding leaves finished chunks; the next run (offline) embeds only the rest."""
    import ambigdemo.presets.indexing
    from ambigdemo.presets.indexing import passage_text
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    class Killed(Exception):
        pass

    monkeypatch.setattr(ambigdemo.presets.indexing, "CHUNK", 32)
    real = OnnxEmbedder.encode_passages
    calls = []

    def interrupted(self, texts, batch_size=32):
        calls.append(len(texts))
        if len(calls) == 3:
            raise Killed
        return real(self, texts, batch_size)

    monkeypatch.setattr(OnnxEmbedder, "encode_passages", interrupted)
    with pytest.raises(Killed):
        download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    index_dir = models_dir / "standard" / "index"
    assert sorted(p.name for p in (index_dir / ".work").glob("*.npy")) == ["00000.npy", "00001.npy"]
    with pytest.raises(IncompletePreset, match=r"preset 'standard' is incomplete: index: .*manifest.json is missing"):
        check_preset(make_preset(passages), models_dir)
    paths, notice = resolve_preset(Config(preset="standard", models_dir=models_dir))
    assert paths.root == models_dir / "embedded" and "'standard'" in notice

    monkeypatch.setattr(OnnxEmbedder, "encode_passages", real)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub.requests.clear()
    download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    assert not hub.requests  # embedder and generator verified; the index needs no network
    index = PassageIndex.load(index_dir)
    n = len(index.passages)
    assert len(calls) == 3 and n > 64
    fresh = OnnxEmbedder(models_dir / "standard" / "embedder").encode_passages([passage_text(p) for p in index.passages])
    np.testing.assert_allclose(index.vectors.reconstruct_n(0, n), fresh, atol=1e-4)  # resumed == uninterrupted


def test_a_preset_can_still_download_its_index_from_a_dataset_repo(passages, hub, models_dir):
    paths = download(make_preset(passages, hub_index=True), models_dir, endpoint=hub.url, progress=False)
    index_manifest = json.loads((paths.index / MANIFEST).read_text())
    assert index_manifest["revision"] == COMMITS["index"] and index_manifest["pinned"] == "v1"
    assert all(r[1].startswith("/datasets/") for r in hub.requests if INDEX_REPO in r[1] and "/resolve/" in r[1])
    assert (paths.index / PASSAGES).read_bytes() == (EMBEDDED / "index" / PASSAGES).read_bytes()


def test_cli_download_builds_the_index(passages, hub, models_dir, monkeypatch, capsys, tmp_path):
    from ambigdemo.cli import main

    monkeypatch.setitem(PRESETS, "standard", make_preset(passages))
    args = ["download", "standard", "--endpoint", hub.url, "--models-dir", str(models_dir)]
    assert main(args) == 0  # with progress: the steps are printed, the bars go to stderr
    out = capsys.readouterr().out.splitlines()
    embed = f"index: embed {len(passages.read_text().splitlines())} passages from passages.jsonl"
    assert len(out) == 7 and out[-1].startswith("preset 'standard' ready in"), out  # a line as each step starts and ends
    for prefix, start, end in zip(["embedder: download ", "generator: download ", embed], out[0:6:2], out[1:6:2]):
        assert start.startswith(prefix) and start.endswith(" ...") and end.startswith(f"{start[:-4]}: done in "), out
    assert "standard" in (models_dir / "build.log").read_text(encoding="utf-8")  # what the libraries said
    check_preset(make_preset(passages), models_dir)

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n', encoding="utf-8")
    monkeypatch.setitem(PRESETS, "standard", make_preset(bad))
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "error: index of preset 'standard': cannot read its passages" in err and "bad.jsonl: line 1" in err


def test_the_standard_preset_builds_its_index_from_the_wikipedia_passages():
    assert STANDARD.index_passages == PassageSource()  # the embedded preset's corpus, embedded with bge-small
    assert STANDARD.local_files("index") == [PASSAGES, VECTORS]
    assert [c.name for c in STANDARD.components] == ["embedder"]  # the reader is one built here
    assert all(c.repo_type == "model" and re.fullmatch(r"[0-9a-f]{40}", c.revision) for c in STANDARD.components)
    assert STANDARD.component("embedder").embedder == EmbedderSpec(
        pooling="cls", query_prefix="Represent this sentence for searching relevant passages: ", max_length=512
    )
    with pytest.raises(ValueError, match=r"must provide embedder, index \(and at most one generator\) once each"):
        replace(STANDARD, index_passages=None)


def test_interrupted_download_resumes_with_a_range_request(passages, hub, repos, models_dir):
    hub.drop[BIG] = 0.7  # the first GET of the 23 MB model stops at 70% ...
    hub.outage_after_drop = True  # ... and the hub then stays down, so this run fails
    with pytest.raises(HubUnavailable) as err:
        download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    assert "\n" not in str(err.value)
    assert "preset 'standard' could not be downloaded" in str(err.value)
    staging = models_dir / "standard" / ".download" / "embedder"
    etag = repos[("model", EMBEDDER_REPO)].files[BIG].sha256  # huggingface_hub names partial files by etag
    partial = list(staging.rglob(f"*.{etag}.incomplete"))
    assert len(partial) == 1 and partial[0].stat().st_size > 0
    kept = partial[0].stat().st_size
    with pytest.raises(IncompletePreset, match=r"preset 'standard' is incomplete: embedder: .*manifest.json is missing"):
        check_preset(make_preset(passages), models_dir)

    hub.outage = False
    hub.requests.clear()
    paths = download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    ranges = [r for m, p, r in hub.requests if m == "GET" and p.endswith(BIG)]
    assert ranges == [f"bytes={kept}-"], ranges  # resumed, not restarted
    assert (paths.embedder / "model.onnx").read_bytes() == (EMBEDDED / "embedder" / "model.onnx").read_bytes()
    check_preset(make_preset(passages), models_dir)


@pytest.mark.parametrize(
    "remote, check",
    [(BIG, "sha256 check"), ("tokenizer.json", "git blob check")],
    ids=["lfs-sha256", "git-blob-sha1"],
)
def test_corrupt_file_is_deleted_and_reported(passages, hub, models_dir, remote, check):
    hub.corrupt.add(remote)  # one byte flipped in transit; the hub's metadata still names the true file
    with pytest.raises(ChecksumError) as err:
        download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    message = str(err.value)
    assert f"{EMBEDDER_REPO}@main/{remote}" in message and check in message and "the file was deleted" in message
    assert "python -m ambigdemo download standard" in message
    assert not (models_dir / "standard" / ".download" / "embedder" / remote).exists()
    assert not (models_dir / "standard" / "embedder" / MANIFEST).exists()

    hub.corrupt.clear()
    paths = download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    verify(paths)


def test_pinned_sha256_disagreeing_with_the_hub_fails_before_downloading(passages, hub, models_dir):
    with pytest.raises(ChecksumError, match=r"the hub says sha256 [0-9a-f]{64}, the preset pins 0{64}"):
        download(make_preset(passages, embedder_sha256="0" * 64), models_dir, endpoint=hub.url, progress=False)
    assert not hub.files_requested()


def test_unreachable_hub_is_one_line_and_the_app_falls_back(passages, models_dir):
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(HubUnavailable) as err:
        download(make_preset(passages), models_dir, endpoint=closed, progress=False)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"preset 'standard' could not be downloaded (hub unreachable: cannot connect to {closed}")
    assert "the app keeps using the embedded default" in message
    assert message.endswith(f"Retry with network: python -m ambigdemo download standard --endpoint {closed}")

    paths, notice = resolve_preset(Config(preset="standard", models_dir=models_dir))
    assert paths == PresetPaths(models_dir / "embedded")
    assert "'standard'" in notice and "embedded" in notice


def test_missing_repo_and_offline_mode_are_hub_unavailable(passages, hub, models_dir, monkeypatch):
    preset = make_preset(passages)
    gone = replace(preset, components=(replace(preset.components[0], repo_id="ambigdemo-test/nope"),) + preset.components[1:])
    with pytest.raises(HubUnavailable, match=r"repository not found or private at .* \(HTTP 404\)"):
        download(gone, models_dir, endpoint=hub.url, progress=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnavailable, match=r"offline mode is on: HF_HUB_OFFLINE=1"):
        download(preset, models_dir, endpoint=hub.url, progress=False)
    assert not hub.files_requested()


def test_cli_exit_codes(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    env = {**os.environ, "HF_HUB_OFFLINE": "0", "HF_ENDPOINT": closed}
    cmd = [sys.executable, "-m", "ambigdemo", "download", "standard", "--models-dir", str(tmp_path), "--no-progress"]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 3, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("preset 'standard' could not be downloaded (hub unreachable: cannot connect to")
    assert lines[0].endswith("Retry with network: python -m ambigdemo download standard")
    assert [p.name for p in tmp_path.iterdir()] == ["build.log"]  # nothing half-written, the failure logged

    offline = subprocess.run(cmd, cwd=ROOT, env={**env, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True, timeout=120)
    assert offline.returncode == 3 and "offline mode is on" in offline.stderr


def test_incomplete_preset_is_named_never_loaded_and_repaired(passages, hub, models_dir, monkeypatch):
    monkeypatch.setitem(PRESETS, "standard", make_preset(passages))  # a preset that brings its own reader
    download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)
    model = models_dir / "standard" / "generator" / "model.onnx"
    with open(model, "r+b") as fh:  # truncated, as by a crashed copy
        fh.truncate(1000)
    with pytest.raises(IncompletePreset) as err:
        check_preset(make_preset(passages), models_dir)
    assert str(err.value).startswith(f"preset 'standard' is incomplete: generator: {model} is 1000 bytes")
    with pytest.raises(ArtifactError):
        verify(PresetPaths(models_dir / "standard"))

    paths, notice = resolve_preset(Config(preset="standard", models_dir=models_dir))
    assert paths.root == models_dir / "embedded"
    assert "Preset 'standard' is incomplete" in notice and str(model) in notice

    hub.requests.clear()
    download(make_preset(passages), models_dir, endpoint=hub.url, progress=False)  # repairs only the generator
    assert {p.split("/resolve/")[0] for p in hub.files_requested()} == {f"/{GENERATOR_REPO}"}
    check_preset(make_preset(passages), models_dir)
    assert model.stat().st_size == (EMBEDDED / "generator" / "model.onnx").stat().st_size


def test_cli_list_and_local_presets(models_dir, capsys):
    from ambigdemo.cli import main

    assert main(["download", "--list", "--models-dir", str(models_dir)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^embedded +ready$", out, re.M)
    assert re.search(r"^standard +embedder: .*manifest.json is missing", out, re.M)
    assert main(["download", "embedded", "--models-dir", str(models_dir)]) == 2
    assert "python -m ambigdemo build" in capsys.readouterr().err
    assert main(["download", "nosuch", "--models-dir", str(models_dir)]) == 2
    assert "known presets: embedded, standard" in capsys.readouterr().err


# --- the wikipedia preset, against a replica of its repositories' exact file layout -------------


def _txtai_replica(folder: Path, passages: Path, spec: EmbedderSpec) -> Path:
    """A tiny NeuML/txtai-wikipedia: ``config.json``, ``documents`` (txtai's SQLite schema, one lead per
    article) and ``embeddings`` (an IVF,SQ8 FAISS index whose ids are the sections' indexid), embedded
    with the embedded preset's weights standing in for e5-base, with e5's passage prefix."""
    import sqlite3

    import faiss

    from ambigdemo.presets.indexing import passage_text
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    leads: dict[str, str] = {}
    for line in passages.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        leads.setdefault(row["title"], row["text"])
    encoder_dir = folder / "encoder"
    encoder_dir.mkdir(parents=True)
    for name in ("model.onnx", "tokenizer.json"):
        (encoder_dir / name).symlink_to(EMBEDDED / "embedder" / name)
    spec.write(encoder_dir)
    vectors = OnnxEmbedder(encoder_dir).encode_passages([passage_text(Passage(t, t, x)) for t, x in leads.items()])
    repo = folder / "txtai-wikipedia"
    repo.mkdir()
    index = faiss.index_factory(vectors.shape[1], "IVF4,SQ8", faiss.METRIC_INNER_PRODUCT)
    index.train(vectors)
    index.add_with_ids(vectors, np.arange(len(vectors), dtype=np.int64))
    faiss.write_index(index, str(repo / "embeddings"))
    db = sqlite3.connect(repo / "documents")
    db.execute("CREATE TABLE documents (id TEXT PRIMARY KEY, data JSON, tags TEXT, entry DATETIME)")
    db.execute("CREATE TABLE objects (id TEXT PRIMARY KEY, object BLOB, tags TEXT, entry DATETIME)")
    db.execute("CREATE TABLE sections (indexid INTEGER PRIMARY KEY, id TEXT, text TEXT, tags TEXT, entry DATETIME)")
    db.execute("CREATE INDEX section_id ON sections(id)")
    for n, (title, text) in enumerate(leads.items()):
        db.execute("INSERT INTO documents VALUES (?, ?, NULL, '2023-02-20')", (title, json.dumps({"id": title, "text": text, "percentile": 0.5})))
        db.execute("INSERT INTO sections VALUES (?, ?, ?, NULL, '2023-02-20')", (n, title, text))
    db.commit()
    db.close()
    config = {"format": "json", "path": "intfloat/e5-base", "instructions": {"query": "query: ", "data": "passage: "},
              "faiss": {"quantize": True, "sample": 0.05}, "content": True, "dimensions": int(vectors.shape[1]),
              "backend": "faiss", "offset": len(leads), "build": {"settings": {"components": "IVF4,SQ8"}, "txtai": "5.4.0"}}
    (repo / "config.json").write_text(json.dumps(config, indent=2))
    return repo


@pytest.fixture(scope="module")
def wikipedia_repos(repos, passages, tmp_path_factory):
    """The fake hub's repos plus Xenova/e5-base and NeuML/txtai-wikipedia at the commits the preset pins."""
    from ambigdemo.presets.catalog import WIKIPEDIA

    embedder, index = WIKIPEDIA.component("embedder"), WIKIPEDIA.component("index")
    replica = _txtai_replica(tmp_path_factory.mktemp("wikipedia"), passages, embedder.embedder)
    return {
        **repos,
        ("model", embedder.repo_id): Repo("model", embedder.revision, {
            "onnx/model_quantized.onnx": RepoFile(EMBEDDED / "embedder" / "model.onnx", lfs=True),
            "onnx/model.onnx": RepoFile(ROOT / "requirements.txt", lfs=True),  # the fp32 export: never fetched
            "tokenizer.json": RepoFile(EMBEDDED / "embedder" / "tokenizer.json", lfs=False),
        }),
        ("model", index.repo_id): Repo("model", index.revision, {
            "config.json": RepoFile(replica / "config.json", lfs=False),
            "documents": RepoFile(replica / "documents", lfs=True),
            "embeddings": RepoFile(replica / "embeddings", lfs=True),
            "README.md": RepoFile(ROOT / "requirements.txt", lfs=False),
        }),
    }


def test_the_wikipedia_preset_downloads_txtai_wikipedia_and_answers_from_it(wikipedia_repos, passages, models_dir, monkeypatch):
    """The preset's own embedder and index components (repos, pinned commits, file names, e5 spec), served
    as replicas; it brings no reader, so the questions are read by the reader built here (the 0.5B)."""
    from ambigdemo.presets.catalog import WIKIPEDIA, WIKIPEDIA_EMBEDDER_ID, WIKIPEDIA_LICENCE
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.runtimes.index import SqlitePassages
    from ambigdemo.ui import render

    preset = WIKIPEDIA
    server = FakeHub(wikipedia_repos)
    try:
        paths = download(preset, models_dir, endpoint=server.url, progress=False)
    finally:
        server.close()
    fetched = " ".join(server.files_requested())
    assert "/NeuML/txtai-wikipedia/resolve/03883d3a13f3afa51ac8982ec4f0ad406efb79ab/documents" in fetched
    assert "README.md" not in fetched and "onnx/model.onnx" not in fetched and "Qwen" not in fetched
    assert sorted(p.name for p in paths.index.iterdir()) == ["config.json", "documents", "embeddings", "manifest.json"]
    manifest = json.loads((paths.index / MANIFEST).read_text())
    leads = len({json.loads(line)["title"] for line in passages.read_text().splitlines()})
    assert manifest["count"] == leads and manifest["embedder"] == WIKIPEDIA_EMBEDDER_ID
    assert manifest["licence"] == WIKIPEDIA_LICENCE and manifest["pinned"] == WIKIPEDIA.component("index").revision

    index = PassageIndex.load(paths.index)
    assert isinstance(index.passages, SqlitePassages) and len(index.passages) == index.vectors.ntotal == leads
    assert index.embedder_id == WIKIPEDIA_EMBEDDER_ID

    pipeline = Pipeline.load(Config(preset="wikipedia", models_dir=models_dir, use_generator=False))
    assert pipeline.notice == "" and pipeline.retriever.embedder.spec.query_prefix == "query: "
    assert pipeline.reader_model == "0.5b" and not (models_dir / "wikipedia" / "generator").exists()
    result = pipeline.ask("Who painted the Mona Lisa?")
    assert result.passages[0].title in ("Mona Lisa", "Leonardo da Vinci"), result.passages[:3]
    assert any("Leonardo" in i.answer for i in result.interpretations), result.interpretations
    assert f"Wikipedia ({WIKIPEDIA_LICENCE})" in render.passages_html(result.passages, pipeline.credit)
    assert result.passages[0].id.startswith(f"{result.passages[0].title}#")


def test_the_wikipedia_preset_read_by_the_1_5b_reader(wikipedia_repos, passages, models_dir, reader_15b):
    """The corpus from the (fake) hub, the reader built here: the 1.5B, the app's default."""
    from ambigdemo.config import READER_MODELS
    from ambigdemo.pipeline import Pipeline

    (models_dir / READER_MODELS["1.5b"]).symlink_to(reader_15b.parent, target_is_directory=True)
    server = FakeHub(wikipedia_repos)
    try:
        download("wikipedia", models_dir, endpoint=server.url, progress=False)
    finally:
        server.close()
    pipeline = Pipeline.load(Config(preset="wikipedia", models_dir=models_dir, use_generator=False, reader_model="1.5b"))
    assert pipeline.notice == "" and pipeline.loaded == "wikipedia" and pipeline.reader_model == "1.5b"
    result = pipeline.ask("Who painted the Mona Lisa?")
    assert any("Leonardo" in i.answer for i in result.interpretations), result.interpretations


def test_the_wikipedia_preset_is_pinned_to_txtai_wikipedia():
    from ambigdemo.presets.catalog import WIKIPEDIA

    assert [c.name for c in WIKIPEDIA.components] == ["embedder", "index"]  # the reader is one built here
    assert all(re.fullmatch(r"[0-9a-f]{40}", c.revision) for c in WIKIPEDIA.components)
    index = WIKIPEDIA.component("index")
    assert (index.repo_id, [f.remote for f in index.files]) == ("NeuML/txtai-wikipedia", ["config.json", "documents", "embeddings"])
    assert WIKIPEDIA.component("embedder").embedder == EmbedderSpec(pooling="mean", query_prefix="query: ", passage_prefix="passage: ", max_length=512)
    assert [c.name for c in STANDARD.components] == ["embedder"]


# --- a Space: embedded first, wikipedia once downloaded, embedded with a notice when it cannot be -----


def test_a_space_answers_from_embedded_first_then_switches_to_wikipedia(wikipedia_repos, passages, models_dir, monkeypatch):
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.runtimes.index import SqlitePassages
    from ambigdemo.space import LivePipeline, Upgrade
    from ambigdemo.ui.app import build_app

    config = Config(models_dir=models_dir, use_generator=False, data_dir=models_dir.parent / "data")
    embedded = Pipeline.load(config)
    live = LivePipeline(embedded)
    server = FakeHub(wikipedia_repos)
    try:
        volume = models_dir.parent / "volume"  # the Space's storage: the download lands there, the reader stays in models/
        upgrade = Upgrade(live, config, volume, endpoint=server.url, available_gb=64.0)
        assert "downloads in the background" in live.status and live.current.config.preset == "embedded"
        demo = build_app(live, config)
        shown = [c for c in demo.config["components"] if c.get("props", {}).get("elem_id") == "preset-status"]
        assert shown and "downloads in the background" in shown[0]["props"]["value"]
        before = live.ask("Who painted the Mona Lisa?")
        embedded_ids = {p.id for p in live.retriever.index.passages}
        assert not isinstance(live.retriever.index.passages, SqlitePassages) and before.passages
        assert {p.id for p in before.passages} <= embedded_ids
        upgrade.start()
        upgrade.join(timeout=600)
    finally:
        server.close()
    assert not upgrade.is_alive()
    assert live.current.config.preset == "wikipedia", live.status
    assert live.status.startswith("Answering from the `wikipedia` preset")
    assert isinstance(live.retriever.index.passages, SqlitePassages)
    after = live.ask("Who painted the Mona Lisa?")
    assert any("Leonardo" in i.answer for i in after.interpretations), after.interpretations
    assert (volume / "wikipedia" / "index" / MANIFEST).is_file()  # kept: a restart finds it verified
    assert live.current.reader_model == "0.5b" and not (volume / "embedded").exists()  # read by the reader built here
    assert live.current.generator is embedded.generator is not None  # one session of it, not a second one loaded
    assert live.current.heuristic.nlp is embedded.heuristic.nlp


def test_a_space_stays_on_embedded_with_a_notice_when_the_hub_is_unreachable(passages, models_dir, monkeypatch):
    import socket

    from ambigdemo.pipeline import Pipeline
    from ambigdemo.space import LivePipeline, Upgrade

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    config = Config(models_dir=models_dir, use_generator=False)
    embedded = Pipeline.load(config)
    live = LivePipeline(embedded)
    upgrade = Upgrade(live, config, models_dir, endpoint=closed, available_gb=64.0)
    upgrade.run()
    assert live.current is embedded
    assert live.status.startswith("Answering from the embedded corpus (10,033 Wikipedia article leads): the `wikipedia` "
                                  "preset could not be used (preset 'wikipedia' could not be downloaded (hub unreachable")
    assert "\n" not in live.status

    short = LivePipeline(embedded)
    Upgrade(short, config, models_dir, endpoint=closed, available_gb=3.2).run()
    assert short.current is embedded
    assert short.status.endswith("the `wikipedia` preset needs about 6 GB of free memory, this machine has 3.2 GB.")


# --- a Space's volumes: the index repository mounted read-only, a Storage Bucket mounted read-write -----


def _mounted_index(wikipedia_repos, folder: Path) -> Path:
    """The txtai-wikipedia files as a Space mounts the repository: a read-only folder of its files."""
    from ambigdemo.presets.catalog import WIKIPEDIA

    index = WIKIPEDIA.component("index")
    folder.mkdir()
    for name, served in wikipedia_repos[("model", index.repo_id)].files.items():
        shutil.copy(served.path, folder / name)
        (folder / name).chmod(0o444)
    folder.chmod(0o555)
    return folder


def test_a_space_reads_a_mounted_index_repository_in_place(wikipedia_repos, passages, models_dir, tmp_path):
    """With the index repository mounted (AMBIGDEMO_INDEX_MOUNT), its files are checked against the pinned
    commit's checksums and linked, not downloaded; the embedder is still fetched; the app switches to it."""
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.presets.catalog import WIKIPEDIA
    from ambigdemo.space import LivePipeline, Upgrade

    mount = _mounted_index(wikipedia_repos, tmp_path / "mnt-txtai")
    config = Config(models_dir=models_dir, use_generator=False, index_mount=mount)
    live = LivePipeline(Pipeline.load(config))
    server = FakeHub(wikipedia_repos)
    try:
        upgrade = Upgrade(live, config, tmp_path / "volume", endpoint=server.url, available_gb=64.0)
        assert "its index read in place from the mounted repository" in live.status
        upgrade.run()
    finally:
        server.close()
    assert live.current.config.preset == "wikipedia", live.status
    fetched = " ".join(server.files_requested())
    assert WIKIPEDIA.component("index").repo_id not in fetched and WIKIPEDIA.component("embedder").repo_id in fetched
    index = tmp_path / "volume" / "wikipedia" / "index"
    for name in ("config.json", "documents", "embeddings"):
        assert (index / name).is_symlink() and (index / name).resolve() == mount / name
    assert json.loads((index / MANIFEST).read_text())["mounted"] == str(mount)
    after = live.ask("Who painted the Mona Lisa?")
    assert any("Leonardo" in i.answer for i in after.interpretations), after.interpretations


def test_a_mounted_index_that_is_not_the_pinned_commit_is_named_and_left_alone(wikipedia_repos, passages, models_dir, tmp_path):
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.space import LivePipeline, Upgrade

    mount = _mounted_index(wikipedia_repos, tmp_path / "mnt-txtai")
    mount.chmod(0o755)
    (mount / "documents").chmod(0o644)
    with open(mount / "documents", "ab") as fh:  # another commit's file, or a torn copy
        fh.write(b"\0")
    size = (mount / "documents").stat().st_size
    config = Config(models_dir=models_dir, use_generator=False, index_mount=mount)
    embedded = Pipeline.load(config)
    live = LivePipeline(embedded)
    server = FakeHub(wikipedia_repos)
    try:
        Upgrade(live, config, tmp_path / "volume", endpoint=server.url, available_gb=64.0).run()
    finally:
        server.close()
    assert live.current is embedded
    assert f"mounted at {mount / 'documents'} is {size} bytes, expected {size - 1}" in live.status, live.status
    assert (mount / "documents").stat().st_size == size  # a mounted file is never deleted
    assert not (tmp_path / "volume" / "wikipedia" / "index" / MANIFEST).exists()


def test_a_storage_volume_keeps_the_download_and_the_judgments(tmp_path, monkeypatch):
    """AMBIGDEMO_STORAGE (a Storage Bucket mounted read-write where the owner chose) holds the downloads and the
    judgments; without one the download goes to the Space's own disk and the status line says it will not last."""
    from ambigdemo.cli.judgments import on_space_volume
    from ambigdemo.space import OWN_DISK, space_models_dir

    bucket = tmp_path / "bucket"
    bucket.mkdir()
    monkeypatch.delenv("AMBIGDEMO_DATA_DIR", raising=False)
    monkeypatch.setenv("AMBIGDEMO_STORAGE", str(bucket))
    config = Config.from_env(models_dir=tmp_path / "models")
    assert space_models_dir(config) == (bucket / "models", "")
    assert config.data_dir == bucket / "ambigdemo" and on_space_volume(config.judgments_db)
    monkeypatch.delenv("AMBIGDEMO_STORAGE")
    monkeypatch.delenv("SPACE_ID", raising=False)
    config = Config.from_env(models_dir=tmp_path / "models")
    assert space_models_dir(config) == (tmp_path / "models", OWN_DISK)
    assert not on_space_volume(tmp_path / "data" / "judgments.sqlite")
    monkeypatch.setenv("AMBIGDEMO_STORAGE", str(tmp_path / "not-mounted"))
    assert space_models_dir(Config.from_env(models_dir=tmp_path / "models"))[1] == OWN_DISK
