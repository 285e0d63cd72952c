"""``python -m ambigdemo judgments`` end to end, in subprocesses on a real database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ambigdemo.bench_judgments import synthetic_judgments
from ambigdemo.cli.judgments import on_space_volume
from ambigdemo.judging.store import Judgment, JudgmentStore

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    store = JudgmentStore(tmp_path / "judgments.sqlite")
    for j in synthetic_judgments(40, [0.0, 1.0, 2.0], seed=7):
        store.add(j)
    return tmp_path


def cli(data_dir: Path, *args: str, token: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "AMBIGDEMO_ADMIN_TOKEN"}
    env.update(PYTHONPATH=str(ROOT), AMBIGDEMO_DATA_DIR=str(data_dir), MPLBACKEND="Agg")
    if token:
        env["AMBIGDEMO_ADMIN_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "ambigdemo", "judgments", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_export_then_import_counts_added_and_skipped(data_dir: Path) -> None:
    out = data_dir / "all.csv"
    done = cli(data_dir, "export", "--format", "csv", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "exported 40" in done.stdout
    other = data_dir / "other.sqlite"
    assert cli(data_dir, "import", str(out), "--db", str(other)).stdout.strip() == "added 40, skipped 0"
    assert cli(data_dir, "import", str(out), "--db", str(other)).stdout.strip() == "added 0, skipped 40"


def test_leaderboard_json_and_plot(data_dir: Path) -> None:
    png = data_dir / "board.png"
    done = cli(data_dir, "leaderboard", "--json", "--rounds", "50", "--plot", str(png))
    assert done.returncode == 0, done.stderr
    board = json.loads(done.stdout)
    assert board["n_judgments"] == 40 and board["rounds"] == 50
    assert {s["system"] for s in board["systems"]} == {"s0", "s1", "s2"}
    assert png.stat().st_size > 0


def test_reset_is_refused_without_the_admin_token(data_dir: Path) -> None:
    refused = cli(data_dir, "reset", "--token", "anything")
    assert refused.returncode == 2 and "AMBIGDEMO_ADMIN_TOKEN" in refused.stderr
    wrong = cli(data_dir, "reset", "--token", "guess", token="secret")
    assert wrong.returncode == 2 and "wrong" in wrong.stderr
    assert JudgmentStore(data_dir / "judgments.sqlite").count() == 40
    done = cli(data_dir, "reset", "--token", "secret", token="secret")
    assert done.returncode == 0 and "deleted 40" in done.stdout
    assert JudgmentStore(data_dir / "judgments.sqlite").count() == 0


def test_export_needs_the_token_only_on_a_space_volume(tmp_path: Path) -> None:
    assert on_space_volume(Path("/data/ambigdemo/judgments.sqlite"))
    assert not on_space_volume(tmp_path / "judgments.sqlite")


def test_a_study_from_prediction_files_to_agreement(tmp_path: Path) -> None:
    gold = tmp_path / "dev.json"
    questions = [("q1", "Who sings what a beautiful name?", ["Hillsong Worship"]),
                 ("q2", "Who won the world cup in 2018?", ["France"]),
                 ("q3", "Who wrote hamlet?", ["William Shakespeare"])]
    gold.write_text(json.dumps([{"id": i, "question": q, "annotations": [{"type": "singleAnswer", "answer": a}]}
                                for i, q, a in questions]))
    right = tmp_path / "right.json"
    right.write_text(json.dumps({i: a for i, _, a in questions}))
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("\n".join(json.dumps({"question": q, "paragraph": "Nobody knows [1]."}) for _, q, _ in questions))
    data = tmp_path / "data"
    assert cli(data, "systems", "add", "right", str(right), "--questions", str(gold)).returncode == 0
    done = cli(data, "systems", "add", "wrong", str(wrong))
    assert done.returncode == 0 and "imported 3 answers as stored:wrong" in done.stdout
    bad = cli(data, "systems", "add", "broken", str(right))
    assert bad.returncode == 2 and "give the question set" in bad.stderr
    assert "stored:right\t3 answers" in cli(data, "systems", "list").stdout
    done = cli(data, "study", "create", "s1", "--systems", "stored:right,stored:wrong", "--questions", str(gold),
               "--per-pair", "2", "--attention", "0")
    assert done.returncode == 0, done.stderr
    store = JudgmentStore(data / "judgments.sqlite")
    for annotator, choice in (("ann1", "right"), ("ann2", "right")):
        for _, q, _ in questions:
            store.add(Judgment.new(question=q, system_a="stored:right", system_b="stored:wrong", answer_a="{}",
                                   answer_b="{}", annotator=annotator, overall="A" if choice == "right" else "B",
                                   comprehensiveness="A", fluency="tie"))
    assert "3 of 3 pairs have 2 judgments" in cli(data, "study", "status", "s1").stdout
    agreement = cli(data, "agreement", "--study", "s1", "--rounds", "50", "--json")
    report = json.loads(agreement.stdout)
    overall = next(r for r in report["criteria"] if r["criterion"] == "overall")
    assert overall["alpha"]["n"] == 3
    assert report["metrics"][0] == {"metric": "STR-EM", "agree": 6, "n": 6, "rate": 1.0}
    quality = json.loads(cli(data, "quality", "--json").stdout)
    assert {r["annotator"] for r in quality} == {"ann1", "ann2"}
    folder = tmp_path / "dataset"
    assert cli(data, "export", "--out", str(folder)).returncode == 0
    assert (folder / "README.md").is_file() and len((folder / "criteria.jsonl").read_text().splitlines()) == 18
    other = tmp_path / "other"
    assert cli(other, "import", str(folder)).stdout.strip() == "added 6, skipped 0"


def test_annotators_log_in_only_on_a_space_with_oauth_enabled_and_installed(monkeypatch, caplog):
    """Off a Space, or on one without ``hf_oauth``, annotators type their name; with both, the login is
    used exactly when gradio[oauth]'s packages are importable (here they may or may not be)."""
    import importlib.util

    from ambigdemo.ui.compare import on_space

    monkeypatch.delenv("SPACE_ID", raising=False)
    assert not on_space()
    monkeypatch.setenv("SPACE_ID", "someone/ambigdemo")
    monkeypatch.delenv("OAUTH_CLIENT_ID", raising=False)
    assert not on_space()
    assert "OAuth is not enabled" in caplog.text
    monkeypatch.setenv("OAUTH_CLIENT_ID", "client")
    installed = all(importlib.util.find_spec(name) for name in ("authlib", "itsdangerous"))
    assert on_space() is installed
    assert ("gradio[oauth] is not installed" in caplog.text) is not installed
