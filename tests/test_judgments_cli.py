"""``python -m ambigdemo judgments`` end to end, in subprocesses on a real database."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import stored_rows

from ambigdemo.bench.judgments import synthetic_judgments
from ambigdemo.cli.judgments import on_space_volume
from ambigdemo.judging.judgment import Judgment
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
    for systems, unknown in (("full,nosuch", "'nosuch'"), ("stored:right,stored:nosuch", "'stored:nosuch'")):
        refused = cli(data, "study", "create", "s0", "--systems", systems, "--questions", str(gold))
        assert refused.returncode == 2, refused.stdout
        assert f"unknown system {unknown}" in refused.stderr
        assert "full, evidence, top-passage, k4, stored:right, stored:wrong" in refused.stderr, refused.stderr
    assert not (data / "studies" / "s0.json").exists()
    done = cli(data, "study", "create", "s1", "--systems", "stored:right,stored:wrong", "--questions", str(gold),
               "--per-pair", "2", "--attention", "0")
    assert done.returncode == 0, done.stderr
    assert "no attention checks (--attention 0)" in done.stdout and "0 questions" not in done.stdout
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


def v1_database(path: Path, judgments: list[Judgment]) -> None:
    """A database as schema v1 wrote it: every criterion NOT NULL, so a skip or both-bad stored labels."""
    from ambigdemo.judging.judgment import COLUMNS
    from ambigdemo.judging.store import MIGRATIONS

    with sqlite3.connect(path) as conn:
        conn.executescript(MIGRATIONS[0] + ";PRAGMA user_version=1;")
        for j in judgments:
            row = j.to_row()
            conn.execute(f"INSERT INTO judgments ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                         [row[c] for c in COLUMNS])
    conn.close()


def test_check_lists_and_repairs_criteria_a_v1_database_stored_on_skips(tmp_path: Path) -> None:
    """The Compare tab before v2 kept the last pair's choices: a skip stored fluency=A, overall=A."""
    def made(question, verdict, comp, flue, overall, annotator="ann"):
        return Judgment(**{**Judgment.new(question=question, system_a="x", system_b="y", answer_a="{}",
                                          answer_b="{}", annotator=annotator, comprehensiveness="tie",
                                          fluency="tie", overall="tie").to_dict(),
                           "verdict": verdict, "comprehensiveness": comp, "fluency": flue, "overall": overall})

    legacy = [made("q1", "vote", "A", "A", "A"), made("q2", "skip", "tie", "A", "A"),
              made("q3", "both_bad", "B", "A", "tie"), made("q4", "vote", "B", "B", "B", "other")]
    v1_database(tmp_path / "judgments.sqlite", legacy)
    found = cli(tmp_path, "check")
    assert found.returncode == 1, found.stderr
    assert f"{legacy[1].id}" in found.stdout and "a skip stores comprehensiveness=tie, fluency=A, overall=A" in found.stdout
    assert "a both_bad stores comprehensiveness=B, fluency=A, overall=tie" in found.stdout
    assert "2 of 4 judgments" in found.stdout
    listed = [json.loads(line) for line in cli(tmp_path, "check", "--json").stdout.splitlines()]
    assert [x["id"] for x in listed] == [legacy[1].id, legacy[2].id]
    board = json.loads(cli(tmp_path, "leaderboard", "--json", "--rounds", "0").stdout)
    flue = {s["system"]: s["flue"] for s in board["systems"]}
    assert flue == {"x": 50.0, "y": 50.0}  # the two votes only: the skip's and both-bad's fluency=A are not read
    repaired = cli(tmp_path, "check", "--repair")
    assert repaired.returncode == 0 and "repaired 2" in repaired.stdout
    backup = next(tmp_path.glob("judgments-before-repair-*.jsonl"))
    assert [json.loads(line)["fluency"] for line in backup.read_text().splitlines()] == ["A", "A"]
    rows = {r["id"]: r for r in stored_rows(tmp_path / "judgments.sqlite")}
    assert [(rows[j.id]["verdict"], rows[j.id]["fluency"], rows[j.id]["overall"]) for j in legacy] == [
        ("vote", "A", "A"), ("skip", None, None), ("both_bad", None, None), ("vote", "B", "B")]
    clean = cli(tmp_path, "check")
    assert clean.returncode == 0 and "0 of 4 judgments" in clean.stdout


def test_check_reports_a_vote_without_a_label_instead_of_crashing(data_dir: Path) -> None:
    """A vote row whose overall label is missing (a hand edit, a broken import) crashed `check` with a
    traceback (`ValueError: a vote needs a label on overall`); it is an inconsistent row like any other."""
    db = data_dir / "judgments.sqlite"
    broken = next(r for r in stored_rows(db) if r["verdict"] == "vote")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE judgments SET overall = NULL WHERE id = ?", (broken["id"],))
    found = cli(data_dir, "check")
    assert found.returncode == 1, found.stderr
    assert "Traceback" not in found.stderr
    assert f"{broken['id']}" in found.stdout and "a vote needs a label on overall" in found.stdout
    assert "1 of 40 judgments are inconsistent" in found.stdout
    listed = [json.loads(line) for line in cli(data_dir, "check", "--json").stdout.splitlines()]
    assert [(x["id"], x["problems"]) for x in listed] == [(broken["id"], ["a vote needs a label on overall"])]
    repaired = cli(data_dir, "check", "--repair")
    assert repaired.returncode == 1, repaired.stderr
    assert "1 cannot be repaired by clearing labels" in repaired.stdout
    assert [r["overall"] for r in stored_rows(db) if r["id"] == broken["id"]] == [None], "a vote is not rewritten"
