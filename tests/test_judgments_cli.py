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
from ambigdemo.judging.store import JudgmentStore

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
