"""``python -m ambigdemo ask`` as a user runs it: a real subprocess, real models, its JSON contract."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ask(*args: str, timeout: float = 240, **env_vars: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])), **env_vars}
    return subprocess.run(
        [sys.executable, "-m", "ambigdemo", "ask", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )


def test_ask_json_contract(preset):
    proc = ask("When was the Eiffel Tower built?", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {"question", "interpretations", "paragraph", "passages", "timings_ms"} <= set(data)
    assert data["question"] == "When was the Eiffel Tower built?"
    assert data["interpretations"], "the corpus answers this question"
    for i in data["interpretations"]:
        assert {"question", "answer", "passages", "score", "edit"} <= set(i)
        assert isinstance(i["question"], str) and i["question"].endswith("?")
        assert isinstance(i["answer"], str) and i["answer"]
        assert isinstance(i["passages"], list) and i["passages"]
        assert isinstance(i["score"], (int, float))
        assert set(i["edit"]) == {"added", "removed"}
        assert all(isinstance(w, str) for w in i["edit"]["added"] + i["edit"]["removed"])
    assert any("1887" in i["answer"] or "1889" in i["answer"] for i in data["interpretations"])
    assert isinstance(data["paragraph"], str) and data["paragraph"]
    ids = [p["id"] for p in data["passages"]]
    assert len(ids) == 8 and len(set(ids)) == 8
    for p in data["passages"]:
        assert set(p) >= {"id", "title", "text", "score"}
        assert isinstance(p["score"], float)
    for i in data["interpretations"]:
        assert set(i["passages"]) <= set(ids)
    assert {"retrieve", "answers", "rewrite", "total"} <= set(data["timings_ms"])
    assert all(isinstance(v, (int, float)) and v >= 0 for v in data["timings_ms"].values())


def test_ask_text_output_and_options(preset):
    proc = ask("What is the capital of the Netherlands?", "--no-generator", "--top-k", "5")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Amsterdam" in out
    sources = [line for line in out.splitlines() if re.match(r"^\s+\[\d+\] .+ \(.+#\d+\)$", line)]
    assert len(sources) == 5, out
    assert "CC BY-SA" in out


def test_ask_with_the_reader_model_chosen_apart_and_one_not_built(preset, tmp_path):
    """``--reader-model`` picks the reader whatever the preset; one not built here falls back to the 0.5B with
    a one-line notice naming the command that builds it, and the question is still answered."""
    proc = ask("Who wrote War and Peace?", "--reader-model", "0.5b", "--json")
    assert proc.returncode == 0, proc.stderr
    assert any("Tolstoy" in i["answer"] for i in json.loads(proc.stdout)["interpretations"]), proc.stdout
    assert "reader" not in proc.stderr, proc.stderr
    models = tmp_path / "models"
    models.mkdir()
    (models / "embedded").symlink_to(preset.root, target_is_directory=True)
    proc = ask("Who wrote War and Peace?", "--reader-model", "1.5b", "--json", AMBIGDEMO_MODELS_DIR=str(models))
    assert proc.returncode == 0, proc.stderr
    assert any("Tolstoy" in i["answer"] for i in json.loads(proc.stdout)["interpretations"]), proc.stdout
    notice = [line for line in proc.stderr.splitlines() if "reader" in line]
    assert len(notice) == 1 and "The 1.5b reader is not built" in notice[0], proc.stderr
    assert "python -m ambigdemo build --reader-model 1.5b" in notice[0] and "answering with the 0.5b reader" in notice[0]
    bad = ask("Who wrote War and Peace?", "--reader-model", "7b")
    assert bad.returncode == 2 and "the reader model must be one of 0.5b, 1.5b, a GGUF file's path" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_ask_answers_with_the_apps_default_reader_the_1_5b(reader_15b):
    """No reader named: the app's default (config.READER_MODEL, the 1.5B) reads, with no notice."""
    env = {k: v for k, v in os.environ.items() if k != "AMBIGDEMO_READER_MODEL"}
    proc = subprocess.run([sys.executable, "-m", "ambigdemo", "ask", "Who wrote War and Peace?", "--json"], cwd=ROOT,
                          env=env, capture_output=True, text=True, encoding="utf-8", timeout=240)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert any("Tolstoy" in i["answer"] for i in json.loads(proc.stdout)["interpretations"]), proc.stdout


def test_ask_unicode_json_is_utf8(preset):
    proc = ask("Où est la tour Eiffel ? 🗼", "--json", "--no-generator")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["question"] == "Où est la tour Eiffel ? 🗼"


def test_ask_empty_question_exits_2_with_a_message(preset):
    # (one subprocess only: the CLI loads every model before it looks at the question; the
    # 301-character case is covered in-process by test_pipeline.py and test_render.py)
    proc = ask("", "--json")
    message = "Please type a question"
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ask_with_a_truncated_index_exits_2_naming_the_file(preset, tmp_path):
    folder = tmp_path / "index"
    shutil.copytree(preset.index, folder)
    target = folder / "index.faiss"
    with open(target, "r+b") as fh:
        fh.truncate(1000)
    proc = ask("When was the Eiffel Tower built?", "--index", str(folder))
    assert proc.returncode == 2
    assert str(target) in proc.stderr
    assert f"python -m ambigdemo build-index PASSAGES.tsv --out {folder}" in proc.stderr, "a custom index names build-index"
    assert "Traceback" not in proc.stderr


def test_a_models_dir_that_is_a_file_is_a_one_line_error(preset, tmp_path):
    """Issue 15: AMBIGDEMO_MODELS_DIR pointing at a file died with a raw NotADirectoryError traceback."""
    not_a_folder = tmp_path / "models.txt"
    not_a_folder.write_text("oops")
    proc = ask("When was the Eiffel Tower built?", AMBIGDEMO_MODELS_DIR=str(not_a_folder))
    assert proc.returncode == 2
    assert f"AMBIGDEMO_MODELS_DIR is {not_a_folder}, a file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ask_without_a_question_is_a_usage_error():
    proc = ask()
    assert proc.returncode == 2
    assert "question" in proc.stderr


def test_the_app_with_a_missing_study_is_a_one_line_error(preset, tmp_path):
    env = {**os.environ, "AMBIGDEMO_DATA_DIR": str(tmp_path), "AMBIGDEMO_STUDY": "nope", "GRADIO_ANALYTICS_ENABLED": "False"}
    proc = subprocess.run([sys.executable, "app.py", "--port", "0"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2
    assert "no study 'nope'" in proc.stderr and "judgments study create" in proc.stderr
    assert "Traceback" not in proc.stderr
