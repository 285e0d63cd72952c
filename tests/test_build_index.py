"""``python -m ambigdemo build-index``: a custom passage index, resumable after a kill, used by ``ask``.

The passages are the first 1,500 of the embedded Wikipedia index (their first sentence, to keep the
test quick on two cores) written out as a DPR TSV; the embedder is the app's embedded one. A build is SIGKILLed once a chunk is on disk, run again to
completion, and compared with an uninterrupted build.
"""

from __future__ import annotations

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
from ambigdemo.corpus import split_sentences
from ambigdemo.runtimes.index import MANIFEST, PASSAGES, VECTORS, PassageIndex

ROOT = Path(__file__).resolve().parent.parent
N = 1500


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
    assert main(["build-index", str(tsv), "--out", str(out), "--embedder", str(preset.embedder), "--no-progress"]) == 0
    return out


def command(tsv: Path, out: Path, preset) -> list[str]:
    return [sys.executable, "-m", "ambigdemo", "build-index", str(tsv), "--out", str(out), "--embedder", str(preset.embedder)]


def vectors(folder: Path) -> np.ndarray:
    index = faiss.read_index(str(folder / VECTORS))
    return index.reconstruct_n(0, index.ntotal)


def test_killed_build_resumes_and_equals_an_uninterrupted_one(tsv, reference, preset, tmp_path):
    out = tmp_path / "index"
    proc = subprocess.Popen(command(tsv, out, preset), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    first_chunk = out / ".work" / "00000.npy"
    deadline = time.monotonic() + 300
    while not first_chunk.exists():
        assert proc.poll() is None, "the build ended before it could be interrupted"
        assert time.monotonic() < deadline, "no chunk was saved within 300 s"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert not (out / MANIFEST).exists()  # killed mid-build: no index yet
    assert not (out / VECTORS).exists()
    saved = sorted(p.name for p in (out / ".work").glob("*.npy") if ".tmp" not in p.name)
    assert saved and len(saved) < 3, saved

    rerun = subprocess.run(command(tsv, out, preset), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"resuming: {len(saved)} of 3 chunks already embedded" in rerun.stderr
    assert "index ready: 1500 passages" in rerun.stdout
    assert not (out / ".work").exists()

    assert (out / PASSAGES).read_bytes() == (reference / PASSAGES).read_bytes()
    np.testing.assert_allclose(vectors(out), vectors(reference), atol=1e-5)
    index = PassageIndex.load(out)
    assert len(index.passages) == N
    assert index.manifest["embedder"] == json.loads((preset.embedder / MANIFEST).read_text())["id"]
    assert index.manifest["source"].startswith("passages.tsv (")


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
