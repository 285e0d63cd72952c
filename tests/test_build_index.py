"""``python -m ambigdemo build-index``: a custom passage index built on Ray Data, resumable, used by ``ask``.

The passages are the first 1,500 of the embedded Wikipedia index (their first sentence, to keep the
test quick on two cores) written out as a DPR TSV; the embedder is the app's embedded one.

* The reference build runs through the CLI on a local Ray and equals the single-process embedding.
* A build is SIGKILLed once a shard is on disk, run again to completion, and equals the reference.
* On a real two-node Ray cluster on loopback (``ray start --head`` and a worker, started here), an
  embedding actor on the worker node is killed mid-shard: Ray restarts it, the shard is redone, and
  the index holds every passage once, equal to the reference.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import faiss
import numpy as np
import pytest

from ambigdemo.cli import main
from ambigdemo.text import split_sentences
from ambigdemo.building.distributed import ATTEMPTS
from ambigdemo.runtimes.manifest import MANIFEST
from ambigdemo.runtimes.index import PASSAGES, VECTORS, PassageIndex

ROOT = Path(__file__).resolve().parent.parent
N = 1500
SHARD_ROWS = 500
KILLED_SHARD_ROWS = 250  # six shards: several chances to stop the actor mid-shard


@pytest.fixture(scope="module")
def tsv(preset, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("passages") / "passages.tsv"
    with open(preset.index / PASSAGES, encoding="utf-8") as src, open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(["id", "text", "title"])
        for _, line in zip(range(N), src):
            row = json.loads(line)
            writer.writerow([row["id"], split_sentences(row["text"])[0], row["title"]])
    return path


@pytest.fixture(scope="module")
def reference(tsv, preset, tmp_path_factory) -> Path:
    """An uninterrupted build (in-process, through the same CLI entry point)."""
    out = tmp_path_factory.mktemp("reference") / "index"
    args = ["build-index", str(tsv), "--out", str(out), "--embedder", str(preset.embedder), "--no-progress", "--shard-rows", str(SHARD_ROWS)]
    assert main(args) == 0
    return out


def command(tsv: Path, out: Path, preset, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ambigdemo", "build-index", str(tsv), "--out", str(out), "--embedder", str(preset.embedder),
            "--shard-rows", str(SHARD_ROWS), *extra]


def test_the_ray_build_equals_embedding_in_one_process(tsv, reference, preset):
    from ambigdemo.presets.indexing import passage_text
    from ambigdemo.corpus import read_passages
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    passages = list(read_passages(tsv))
    index = PassageIndex.load(reference)
    assert [p.id for p in index.passages] == [p.id for p in passages]  # every passage once, in input order
    assert index.manifest["shards"] == 3 and index.manifest["index_type"] == "flat"
    expected = OnnxEmbedder(preset.embedder).encode_passages([passage_text(p) for p in passages])
    np.testing.assert_allclose(vectors(reference), expected, atol=1e-5)
    attempts = (reference / "attempts.log").read_text().split("\n")
    assert sorted(line.split()[1] for line in attempts if line.startswith("done")) == ["0", "1", "2"]


def vectors(folder: Path) -> np.ndarray:
    index = faiss.read_index(str(folder / VECTORS))
    return index.reconstruct_n(0, index.ntotal)


def test_killed_build_resumes_and_equals_an_uninterrupted_one(tsv, reference, preset, tmp_path):
    out = tmp_path / "index"
    shards = -(-N // KILLED_SHARD_ROWS)
    args = command(tsv, out, preset, "--workers", "1")
    args[args.index("--shard-rows") + 1] = str(KILLED_SHARD_ROWS)
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    frozen, actor = freeze_actor_after_a_saved_shard(proc, out)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and the local Ray it started
    with contextlib.suppress(ProcessLookupError):  # the frozen actor is not in that group: stopped, it would outlive the test
        os.kill(actor, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert not (out / MANIFEST).exists()  # killed mid-build: no index yet
    assert not (out / VECTORS).exists()
    done, _ = shard_events(out / ATTEMPTS)
    saved = sorted(p.name for p in (out / ".work").glob("vectors-*.npy") if ".tmp" not in p.name)
    assert saved and set(saved) <= {vectors_name(n) for n in done} and vectors_name(frozen) not in saved, (saved, done, frozen)

    args = command(tsv, out, preset)
    args[args.index("--shard-rows") + 1] = str(KILLED_SHARD_ROWS)
    rerun = subprocess.run(args, cwd=ROOT, env={**os.environ, "AMBIGDEMO_MODELS_DIR": str(tmp_path / "models")},
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"resuming: {len(saved)} of {shards} shards already embedded" in rerun.stdout
    assert_quiet(rerun, tmp_path / "models" / "build.log")
    kept = f"({shards} shards, {shards - len(saved)} embedded now, {len(saved)} kept"
    assert f"index ready: {N} passages in {out} {kept}" in rerun.stdout
    assert not (out / ".work").exists()
    started = [line.split()[1] for line in (out / ATTEMPTS).read_text().splitlines() if line.startswith("started")]
    assert not {str(int(name[8:13])) for name in saved} & set(started[-(shards - len(saved)):])  # saved shards were not redone

    assert (out / PASSAGES).read_bytes() == (reference / PASSAGES).read_bytes()
    np.testing.assert_allclose(vectors(out), vectors(reference), atol=1e-5)
    index = PassageIndex.load(out)
    assert len(index.passages) == N
    assert index.manifest["embedder"] == json.loads((preset.embedder / MANIFEST).read_text())["id"]
    assert index.manifest["source"].startswith("passages.tsv (")


def freeze_actor_after_a_saved_shard(proc: subprocess.Popen, out: Path) -> tuple[str, int]:
    """Wait until the driver has saved a shard while the one embedding actor is inside another, then
    SIGSTOP the actor there, and return that shard and the actor's pid. Once the driver is killed too, what is on disk is
    final, whatever the speed of the machine: the test reads it then. (Ray Data hands a shard's
    vectors to the driver only when the actor has finished the next one, so the first save comes with
    the third shard started: shards are small here, so there are several chances.)"""
    deadline = time.monotonic() + 300
    while True:
        assert proc.poll() is None, "the build ended before it could be interrupted"
        assert time.monotonic() < deadline, "the driver saved no shard while the actor was inside another within 300 s"
        _, busy = shard_events(out / ATTEMPTS)
        if busy and any((out / ".work").glob("vectors-?????.npy")):
            shard, pid = busy[-1]
            os.kill(pid, signal.SIGSTOP)
            if shard not in shard_events(out / ATTEMPTS)[0]:
                return shard, pid
            os.kill(pid, signal.SIGCONT)  # it finished that shard before it stopped: try the next one
        time.sleep(0.02)


def vectors_name(shard: str) -> str:
    return f"vectors-{int(shard):05d}.npy"


def shard_events(attempts: Path) -> tuple[set[str], list[tuple[str, int]]]:
    """From the complete lines of ``attempts.log``: the done shards, and (shard, pid) of those started, not done."""
    text = attempts.read_text() if attempts.exists() else ""
    lines = [line.split() for line in text[: text.rfind("\n") + 1].splitlines()]
    done = {shard for event, shard, *_ in lines if event == "done"}
    return done, [(shard, int(pid)) for event, shard, _, pid in lines if event == "started" and shard not in done]


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("bad.tsv", "id\ttext\ttitle\na#0\tSome text.\tA\nb#0\tNo title here\n", "bad.tsv: line 3: expected 3 tab-separated fields, got 2"),
        ("header.tsv", "text\tid\ttitle\nSome text.\ta#0\tA\n", "header.tsv: line 1: expected the header 'id<TAB>text<TAB>title'"),
        ("bad.jsonl", '{"id": "a", "text": "ok"}\n{"id": "b", "text": "ok"}\n{"id": "c"\n', "bad.jsonl: line 3: expected a JSON object"),
        ("dup.tsv", "id\ttext\ttitle\na\tOne.\tA\na\tTwo.\tA\n", "dup.tsv: passage id 'a' appears more than once"),
        ("empty.tsv", "id\ttext\ttitle\n", "empty.tsv: no passages found"),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path, preset, capsys, name, content, expected):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    out = tmp_path / "index"
    assert main(["build-index", str(path), "--out", str(out), "--embedder", str(preset.embedder), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert expected in err and str(path) in err
    assert not out.exists()


def assert_quiet(run: subprocess.CompletedProcess, log: Path) -> None:
    """On the terminal a line as each step starts and ends, and the bars; what Ray says is in the log."""
    steps = [line for line in run.stdout.splitlines() if line.endswith(" ...")]
    assert [line.split()[0] for line in steps] == ["split", "embed", "merge"], run.stdout
    assert len(run.stdout.splitlines()) == 2 * len(steps) + 4, run.stdout  # the header, resuming, ready and how to use it
    bars = [part for part in run.stderr.replace("\r", "\n").splitlines() if part.strip()]
    assert all(part.startswith(("embed shards:", "merge shards:")) for part in bars), run.stderr[-3000:]
    said = log.read_text(encoding="utf-8")
    assert "Started a local Ray instance" in said  # Ray's own lines; its workers' are in Ray's session logs


def test_ask_answers_from_the_custom_index(reference):
    ids = {json.loads(line)["id"] for line in (reference / PASSAGES).read_text(encoding="utf-8").splitlines()}
    cmd = [sys.executable, "-m", "ambigdemo", "ask", "What is the capital of Brazil?", "--index", str(reference), "--json", "--no-generator"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    passages = [p["id"] for p in result["passages"]]
    assert passages and set(passages) <= ids  # every passage comes from the custom index
    assert passages[0] == "Brasília#0"
    assert result["interpretations"], result  # answered, and every answer cites the custom index
    assert all(set(i["passages"]) <= ids for i in result["interpretations"])


def test_parquet_input_and_compressed_index_types(tsv, reference, preset, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ambigdemo.corpus import read_passages

    rows = list(read_passages(tsv))
    parquet = tmp_path / "passages.parquet"
    pq.write_table(pa.table({"id": [p.id for p in rows], "text": [p.text for p in rows], "title": [p.title for p in rows]}), parquet)
    out = tmp_path / "hnsw"
    args = ["build-index", str(parquet), "--out", str(out), "--embedder", str(preset.embedder), "--no-progress",
            "--shard-rows", "1000", "--workers", "1", "--index-type", "hnsw"]
    assert main(args) == 0
    index = PassageIndex.load(out)
    assert isinstance(index.vectors, faiss.IndexHNSWFlat) and index.manifest["index_type"] == "hnsw"
    assert (out / PASSAGES).read_bytes() == (reference / PASSAGES).read_bytes()
    flat = PassageIndex.load(reference)
    queries = flat.vectors.reconstruct_n(0, 50)
    assert [[p.id for p in hits] for hits in index.search(queries, 1)] == [[p.id for p in hits] for hits in flat.search(queries, 1)]

    from ambigdemo.runtimes.index import make_vectors

    with pytest.raises(ValueError, match="needs at least 9984 passages"):
        make_vectors(queries, "ivfpq")


def _ancestors(pid: int) -> set[int]:
    found = set()
    while pid > 1:
        found.add(pid)
        status = Path(f"/proc/{pid}/status").read_text()
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
    return found


@pytest.fixture
def cluster(tmp_path):
    """A Ray head and one worker node on loopback, one CPU each, in their own temp dir (short: socket paths)."""
    import shutil
    import tempfile

    from ambigdemo.localhost import free_port

    temp = Path(tempfile.mkdtemp(prefix="rayt", dir="/tmp"))
    port = free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
    def common() -> list[str]:  # free ports, not Ray's fixed defaults (dashboard agent 52365), for each node
        return ["--block", "--num-cpus=1", "--node-ip-address=127.0.0.1", f"--dashboard-agent-listen-port={free_port()}",
                f"--metrics-export-port={free_port()}"]

    logs = open(tmp_path / "nodes.log", "w")
    head = subprocess.Popen(["ray", "start", "--head", f"--port={port}",
                             "--include-dashboard=false", f"--temp-dir={temp}", "--disable-usage-stats", *common()],
                            env=env, start_new_session=True, stdout=logs, stderr=logs)
    deadline = time.monotonic() + 120
    while not list(temp.glob("session_*/sockets/raylet*")):
        assert head.poll() is None and time.monotonic() < deadline, (tmp_path / "nodes.log").read_text()[-2000:]
        time.sleep(0.2)
    worker = subprocess.Popen(["ray", "start", f"--address=127.0.0.1:{port}", *common()], env=env, start_new_session=True,
                              stdout=logs, stderr=logs)
    yield {"address": f"127.0.0.1:{port}", "env": env, "worker": worker}
    for node in (worker, head):
        node.terminate()
    for node in (worker, head):
        try:
            node.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(node.pid, signal.SIGKILL)
            node.wait(timeout=15)
    subprocess.run(["pkill", "-9", "-f", str(temp)], check=False)  # any node process still holding our temp dir
    logs.close()
    shutil.rmtree(temp, ignore_errors=True)


def test_a_killed_worker_shard_is_redone_on_a_two_node_cluster(tsv, reference, preset, cluster, tmp_path):
    out = tmp_path / "index"
    driver = subprocess.Popen(command(tsv, out, preset, "--workers", "2", "--ray-address", cluster["address"], "--no-progress"),
                              cwd=ROOT, env=cluster["env"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    attempts = out / "attempts.log"
    killed = None
    deadline = time.monotonic() + 300
    while killed is None:
        assert driver.poll() is None, "the build ended before a worker-node actor could be killed: " + driver.stdout.read()[-3000:]
        assert time.monotonic() < deadline
        lines = attempts.read_text().splitlines() if attempts.exists() else []
        on_worker = [line.split() for line in lines if line.startswith("started")
                     and cluster["worker"].pid in _ancestors(int(line.split()[3]))]
        if on_worker:
            _, shard, node, pid = on_worker[-1]
            os.kill(int(pid), signal.SIGSTOP)  # frozen: whether it finished its shard cannot change under us
            if f"done {shard} {node} {pid}" in attempts.read_text().splitlines():
                os.kill(int(pid), signal.SIGCONT)
            else:
                os.kill(int(pid), signal.SIGKILL)
                killed = (shard, node, pid)
        time.sleep(0.05)
    output = driver.communicate(timeout=300)[0]
    assert driver.returncode == 0, output[-3000:]
    assert "on the Ray cluster at 127.0.0.1:" in output and "index ready: 1500 passages" in output

    shard, node, pid = killed
    events = [line.split() for line in attempts.read_text().splitlines()]
    redone = [e for e in events if e[:2] == ["started", shard] and e[3] != pid]
    assert redone, events  # the killed actor's shard was started again, by a restarted actor
    assert ["done", shard, node, pid] not in events
    assert len({e[2] for e in events}) == 2  # both nodes embedded shards
    assert (out / PASSAGES).read_bytes() == (reference / PASSAGES).read_bytes()  # nothing lost or duplicated
    np.testing.assert_allclose(vectors(out), vectors(reference), atol=1e-5)
