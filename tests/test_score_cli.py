"""``python -m ambigdemo score`` end to end, in a subprocess, on small files and on AmbigNQ dev."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ambigdemo.config import AMBIGNQ_DEV

REPO = Path(__file__).resolve().parents[1]

GOLD = [
    {"id": "s", "question": "Q?", "annotations": [{"type": "singleAnswer", "answer": ["x"]}]},
    {"id": "c", "question": "Who made the crucible?", "annotations": [{"type": "multipleQAs", "qaPairs": [
        {"question": "Who wrote the play the crucible?|Who authored the play the crucible?", "answer": ["Arthur Miller", "Miller"]},
        {"question": "Who directed the film the crucible?", "answer": ["Nicholas Hytner"]},
    ]}]},
    {"id": "m", "question": "Who won?", "annotations": [{"type": "multipleQAs", "qaPairs": [
        {"question": "Who won in 2010?", "answer": ["A"]},
    ]}]},
]
PRED = {
    "s": [{"question": "Q?", "answer": "x"}],
    "c": [
        {"question": "Who authored the play the crucible?", "answer": "Miller"},
        {"question": "Who directed the film the crucible?", "answer": "Someone"},
    ],
}


def score(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ambigdemo", "score", *map(str, args)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )


def write(path: Path, content: object) -> Path:
    path.write_text(json.dumps(content))
    return path


def test_ambigqa_json(tmp_path):
    result = score("--task", "ambigqa", "--data", write(tmp_path / "gold.json", GOLD),
                   "--pred", write(tmp_path / "pred.json", PRED), "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["n"], out["n_multi"]) == (3, 2)
    assert out["f1_ans"] == pytest.approx((1 + 0.5 + 0) / 3)  # "m" has no prediction: 0
    assert out["f1_ans_multi"] == pytest.approx(0.25)
    assert out["f1_bleu"] == pytest.approx(0.25)  # (2 * 1 / 4 + 0) / 2
    assert out["f1_edit_f1"] == pytest.approx(1 / 6)  # (2 * (2/3) / 4 + 0) / 2


def test_ambigqa_table(tmp_path):
    result = score("--task", "ambigqa", "--data", write(tmp_path / "gold.json", GOLD),
                   "--pred", write(tmp_path / "pred.json", PRED))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].split() == ["F1", "answer", "0.500", "0.250"]
    assert lines[3].split() == ["F1", "EDIT-F1", "0.167"]


def test_nq_open(tmp_path):
    gold = tmp_path / "nq.jsonl"
    gold.write_text("\n".join(json.dumps({"question": f"q{i}", "answer": a}) for i, a in enumerate([["x"], ["y"], ["y", "z"]])))
    pred = write(tmp_path / "pred.json", {"0": "X.", "2": ["the Z"]})
    result = score("--task", "nq-open", "--data", gold, "--pred", pred, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"em": pytest.approx(2 / 3), "n": 3}
    table = score("--task", "nq-open", "--data", gold, "--pred", pred)
    assert "0.667" in table.stdout


def test_data_error_is_one_line_and_exit_2(tmp_path):
    pred = write(tmp_path / "pred.json", {"c": [{"question": "Q?"}]})
    result = score("--task", "ambigqa", "--data", write(tmp_path / "gold.json", GOLD), "--pred", pred, "--json")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [f"error: {pred}: id c: item 0: 'answer' missing"]
    missing = score("--task", "ambigqa", "--data", tmp_path / "none.json", "--pred", pred)
    assert missing.returncode == 2 and "none.json: file not found" in missing.stderr


@pytest.fixture(scope="module")
def dev_light() -> list[dict]:
    assert AMBIGNQ_DEV.is_file(), f"AmbigNQ dev set not found at {AMBIGNQ_DEV}"
    return json.loads(AMBIGNQ_DEV.read_text())


def first_annotation_pairs(example: dict) -> list[tuple[str, str]]:
    """(gold rewrite, first alias) per answer of the first annotation; the prompt for a single answer."""
    ann = example["annotations"][0]
    if ann["type"] == "singleAnswer":
        return [(example["question"], ann["answer"][0])]
    return [(p["question"].split("|")[0], p["answer"][0]) for p in ann["qaPairs"]]


def test_dev_light_gold_answers_with_prompt_rewrites(tmp_path, dev_light):
    pred = {ex["id"]: [{"question": ex["question"], "answer": a} for _, a in first_annotation_pairs(ex)] for ex in dev_light}
    result = score("--task", "ambigqa", "--data", AMBIGNQ_DEV, "--pred", write(tmp_path / "pred.json", pred), "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["n"] == len(dev_light) and 0 < out["n_multi"] < out["n"]
    assert out["f1_ans"] == 1.0 and out["f1_ans_multi"] == 1.0
    assert out["f1_edit_f1"] == 0.0  # the prompt as rewrite edits nothing
    assert 0 < out["f1_bleu"] < 1


def test_dev_light_gold_rewrites(tmp_path, dev_light):
    pred = {ex["id"]: [{"question": q, "answer": a} for q, a in first_annotation_pairs(ex)] for ex in dev_light}
    result = score("--task", "ambigqa", "--data", AMBIGNQ_DEV, "--pred", write(tmp_path / "pred.json", pred), "--json")
    out = json.loads(result.stdout)
    assert out["f1_ans"] == 1.0
    assert out["f1_edit_f1"] == 1.0
    assert out["f1_bleu"] == pytest.approx(1.0, abs=1e-6)


def test_a_clone_reads_its_datasets_from_itself(tmp_path):
    """A copy of the package and its assets, with no data folder beside it, loads AmbigNQ train and dev and
    NQ-open dev from its own ``assets/datasets`` by default."""
    import shutil

    clone = tmp_path / "clone"
    for part in ("ambigdemo", "assets"):
        shutil.copytree(REPO / part, clone / part, ignore=shutil.ignore_patterns("__pycache__"))
    assert not (tmp_path / "shared").exists()
    probe = ("from ambigdemo.config import AMBIGNQ_DEV, AMBIGNQ_TRAIN, NQ_OPEN_DEV, ROOT\n"
             "from ambigdemo.evaluation.datasets import load_ambignq, load_nq_open\n"
             "assert all(p.is_relative_to(ROOT) for p in (AMBIGNQ_DEV, AMBIGNQ_TRAIN, NQ_OPEN_DEV))\n"
             "print(ROOT, len(load_ambignq(AMBIGNQ_TRAIN)), len(load_ambignq(AMBIGNQ_DEV)), len(load_nq_open(NQ_OPEN_DEV)))\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=clone, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(clone), "10036", "1393", "3610"]
    beside = ("ROOT" + ".parent", ".." + "/shared")  # spelled apart so that this file does not name them
    outside = [f"{p.relative_to(REPO)}" for p in [*REPO.glob("ambigdemo/**/*.py"), *REPO.glob("tests/*.py"), REPO / "app.py"]
               if any(b in p.read_text(encoding="utf-8") for b in beside)]
    assert outside == [], "no module or test reads a folder beside the checkout"
