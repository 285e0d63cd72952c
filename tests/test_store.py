"""JudgmentStore on a real SQLite file: rules, concurrency, crash safety and export round trips."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ambigdemo.judging import exports
from ambigdemo.judging.judgment import CRITERIA, Judgment, pair_id
from ambigdemo.config import Config
from ambigdemo.judging.store import CapReached, DuplicateJudgment, HubMirror, JudgmentStore

ROOT = Path(__file__).resolve().parent.parent

WRITER = """
import sys
from ambigdemo.judging.judgment import Judgment
from ambigdemo.judging.store import JudgmentStore
db, prefix, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = JudgmentStore(db)
i = 0
while n == 0 or i < n:
    j = Judgment.new(question=f"{prefix} question {i}", system_a="x", system_b="y",
                     answer_a={"paragraph": "a"}, answer_b={"paragraph": "b"}, annotator=prefix,
                     comprehensiveness="A", fluency="tie", overall="A")
    store.add(j)
    print(j.id, flush=True)
    i += 1
"""


def make(question: str = "Who won?", annotator: str = "ann", a: str = "x", b: str = "y", **fields) -> Judgment:
    """A judgment; a vote's criteria not given are ties."""
    if fields.get("verdict", "vote") == "vote":
        fields = {**dict.fromkeys(CRITERIA, "tie"), **fields}
    return Judgment.new(question=question, system_a=a, system_b=b, answer_a={"paragraph": f"{a} says"},
                        answer_b={"paragraph": f"{b} says"}, annotator=annotator, **fields)


def writer(db: Path, prefix: str, n: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(db), prefix, str(n)],
                            stdout=subprocess.PIPE, text=True, env=env)


@pytest.fixture
def store(tmp_path: Path) -> JudgmentStore:
    return JudgmentStore(tmp_path / "judgments.sqlite", daily_cap=3)


def test_schema_is_versioned_and_durable(store: JudgmentStore) -> None:
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.schema_version == 2
    conn.execute("PRAGMA user_version=99")
    conn.close()
    with pytest.raises(RuntimeError, match="schema v99"):
        JudgmentStore(store.path)


def test_double_submit_with_same_client_key_stores_one(store: JudgmentStore) -> None:
    first, created = store.add(make(client_key="click-1", overall="A"))
    again, created_again = store.add(make(client_key="click-1", overall="B"))
    assert (created, created_again) == (True, False)
    assert again == first
    assert store.count() == 1


def test_same_annotator_and_pair_twice_is_duplicate(store: JudgmentStore) -> None:
    store.add(make(question="Who  won?"))
    with pytest.raises(DuplicateJudgment):
        store.add(make(question="who won?", a="y", b="x"))
    store.add(make(annotator="other"))
    assert store.judged_pairs("ann") == {pair_id("Who won?", "x", "y")}


def test_skip_blocks_nothing(store: JudgmentStore) -> None:
    store.add(make(verdict="skip"))
    store.add(make(verdict="skip"))
    assert store.judged_pairs("ann") == set()
    store.add(make(verdict="both_bad"))
    with pytest.raises(DuplicateJudgment):
        store.add(make(verdict="vote"))
    assert store.count() == 3


def test_daily_cap_counts_verdicts_per_utc_day(store: JudgmentStore) -> None:
    day = "2024-05-01T{}:00:00.000000+00:00"
    for hour in ("00", "12", "23"):
        store.add(make(question=f"q {hour}", created_at=day.format(hour)))
    with pytest.raises(CapReached, match="daily cap of 3"):
        store.add(make(question="q late", created_at=day.format("23")))
    store.add(make(question="q skip", verdict="skip", created_at=day.format("23")))
    store.add(make(question="q other", annotator="other", created_at=day.format("23")))
    store.add(make(question="q next", created_at="2024-05-02T00:00:00.000000+00:00"))
    assert store.count_today("ann", day.format("10")) == 3


def test_invalid_judgments_are_rejected() -> None:
    with pytest.raises(ValueError, match="overall"):
        make(overall="left")
    with pytest.raises(ValueError, match="left_is"):
        make(left_is="z")
    with pytest.raises(ValueError, match="acc"):
        make(acc_a=[2], acc_a_total=2)
    with pytest.raises(ValueError, match="a vote needs a label on fluency"):
        make(comprehensiveness="A", fluency=None, overall="A")


@pytest.mark.parametrize("verdict", ["skip", "both_bad"])
def test_a_skip_or_both_bad_with_criteria_is_refused(store: JudgmentStore, verdict: str) -> None:
    with pytest.raises(ValueError, match=f"a {verdict} stores fluency=A"):
        store.add(make(verdict=verdict, fluency="A"))
    assert store.count() == 0
    stored, _ = store.add(make(verdict=verdict))
    assert [getattr(stored, c) for c in CRITERIA] == [None] * 3
    assert [stored.label(c) for c in CRITERIA] == [None, None, "tie" if verdict == "both_bad" else None]


def in_threads(fn, tasks: list) -> list:
    """``fn(task)`` for every task, each on its own thread at once; re-raises a thread's error."""
    barrier = threading.Barrier(len(tasks))

    def run(task):
        barrier.wait()
        return fn(task)

    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        return list(pool.map(run, tasks))


def test_eight_threads_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    store = JudgmentStore(tmp_path / "judgments.sqlite")
    batches = [[make(question=f"t{t} q{i}", annotator=f"t{t}") for i in range(30)] for t in range(8)]
    in_threads(lambda batch: [store.add(j) for j in batch], batches)
    assert store.count() == 8 * 30
    assert sorted(j.id for j in store.iter_all()) == sorted(j.id for b in batches for j in b)


def test_racing_threads_respect_idempotency_and_cap(store: JudgmentStore) -> None:
    def submit(j: Judgment) -> object:
        try:
            return store.add(j)
        except CapReached as exc:
            return exc

    clicks = [make(question="same", client_key="double-click") for _ in range(8)]
    capped = [make(question=f"cap {i}", annotator="eager") for i in range(16)]
    outcomes = in_threads(submit, clicks + capped)
    stored = [o for o in outcomes if isinstance(o, tuple)]
    assert sum(created for j, created in stored if j.client_key == "double-click") == 1
    assert len({j.id for j, _ in stored if j.client_key == "double-click"}) == 1
    assert sum(isinstance(o, CapReached) for o in outcomes) == 16 - 3
    assert store.count() == 1 + 3


def test_four_processes_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    db = tmp_path / "judgments.sqlite"
    JudgmentStore(db)
    procs = [writer(db, f"proc{p}", 40) for p in range(4)]
    acknowledged = [line.strip() for p in procs for line in p.communicate()[0].splitlines()]
    assert all(p.returncode == 0 for p in procs)
    store = JudgmentStore(db)
    assert len(acknowledged) == 160 == store.count()
    assert sorted(acknowledged) == sorted(j.id for j in store.iter_all())


def test_sigkill_mid_stream_keeps_every_acknowledged_judgment(tmp_path: Path) -> None:
    db = tmp_path / "judgments.sqlite"
    JudgmentStore(db)
    proc = writer(db, "doomed", 0)
    acknowledged = [proc.stdout.readline().strip() for _ in range(25)]
    proc.send_signal(signal.SIGKILL)
    rest = proc.stdout.read()
    proc.wait()
    acknowledged += [line for line in rest.split("\n")[:-1]]
    assert proc.returncode == -signal.SIGKILL
    store = JudgmentStore(db)
    assert store.integrity_check() == "ok"
    assert set(acknowledged) <= {j.id for j in store.iter_all()}


def _varied(store: JudgmentStore) -> list[Judgment]:
    judgments = [
        make(question="Quién ganó?", comment='line one\nline "two", with commas', acc_a=[0, 2], acc_a_total=3,
             acc_b=[1], acc_b_total=3, comprehensiveness="A", fluency="tie", overall="B", started_at="2024-01-01T00:00:00+00:00"),
        make(question="When?", annotator="b", left_is="y", verdict="both_bad", app_version="0.1.0"),
        make(question="When?", annotator="c", verdict="skip", comment="\r\n odd\tspace"),
        make(question="Where?", annotator="c", a="z", b="x", overall="A"),
    ]
    for j in judgments:
        store.add(j)
    return judgments


def _contents(path: Path) -> dict[str, bytes]:
    if not path.is_dir():
        return {"": path.read_bytes()}
    return {f.name: f.read_bytes() for f in sorted(path.iterdir())}


@pytest.mark.parametrize("fmt, name", [("jsonl", "{}.jsonl"), ("csv", "{}.csv"), ("criteria-jsonl", "criteria-{}.jsonl"),
                                       ("criteria-csv", "criteria-{}.csv"), ("hf", "{}-dataset")])
def test_export_import_round_trip_is_exact(tmp_path: Path, store: JudgmentStore, fmt: str, name: str) -> None:
    original = _varied(store)
    first, second = tmp_path / name.format("one"), tmp_path / name.format("two")
    assert exports.write(store.iter_all(), first, fmt) == 4
    copy = JudgmentStore(tmp_path / "copy.sqlite")
    copy.add(original[3])
    assert copy.add_many(exports.read(first, fmt)) == (3, 1)
    assert copy.add_many(exports.read(first, fmt)) == (0, 4)
    assert store.add_many(exports.read(first, fmt)) == (0, 4)
    assert sorted(copy.iter_all(), key=lambda j: j.id) == sorted(original, key=lambda j: j.id)
    fresh = JudgmentStore(tmp_path / "fresh.sqlite")
    assert fresh.add_many(exports.read(first)) == (4, 0)  # the format follows from the name
    exports.write(fresh.iter_all(), second)
    assert _contents(second) == _contents(first)


def test_per_criterion_rows_keep_every_annotator_apart(tmp_path: Path, store: JudgmentStore) -> None:
    _varied(store)
    exports.write(store.iter_all(), tmp_path / "criteria.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "criteria.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * store.count()
    first = [r for r in rows if r["question"] == "Quién ganó?"]
    assert [(r["criterion"], r["label"], r["winner"]) for r in first] == [
        ("comprehensiveness", "A", "x"), ("fluency", "tie", "tie"), ("overall", "B", "y")]
    assert {(r["annotator"], r["criterion"]) for r in rows if r["question"] == "When?"} == {
        (a, c) for a in "bc" for c in ("comprehensiveness", "fluency", "overall")}
    assert {(r["label"], r["winner"]) for r in rows if r["question"] == "When?"} == {(None, None)}  # skip, both bad
    card = exports.write(store.iter_all(), tmp_path / "dataset", "hf") and (tmp_path / "dataset" / "README.md").read_text()
    assert "config_name: criteria" in card and "CC BY-SA 4.0" in card


def test_per_criterion_import_needs_all_three_rows(tmp_path: Path, store: JudgmentStore) -> None:
    _varied(store)
    path = tmp_path / "criteria.csv"
    exports.write(store.iter_all(), path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))
    fresh = JudgmentStore(tmp_path / "fresh.sqlite")
    with pytest.raises(ValueError, match="needs one row per criterion"):
        fresh.add_many(exports.read(path))
    assert fresh.count() == 0


def test_import_of_a_bad_row_adds_nothing(tmp_path: Path, store: JudgmentStore) -> None:
    _varied(store)
    path = tmp_path / "bad.jsonl"
    exports.write(store.iter_all(), path)
    path.write_text(path.read_text() + '{"id": "broken"}\n')
    fresh = JudgmentStore(tmp_path / "fresh.sqlite")
    with pytest.raises(ValueError, match="bad.jsonl:5"):
        fresh.add_many(exports.read(path))
    assert fresh.count() == 0


def test_reset_needs_the_admin_token(store: JudgmentStore) -> None:
    _varied(store)
    with pytest.raises(PermissionError, match="no admin token"):
        store.reset("", "")
    with pytest.raises(PermissionError, match="wrong"):
        store.reset("guess", "secret")
    assert store.count() == 4
    assert store.reset("secret", "secret") == 4
    assert store.count() == 0


def test_hub_mirror_appends_new_judgments_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("AMBIGDEMO_HF_DATASET", "someone/judgments")
    config = Config.from_env()
    assert (config.hub_dataset, config.hub_token) == ("someone/judgments", "")
    assert HubMirror.pushing(tmp_path, config.hub_dataset, config.hub_token) is None  # a dataset without a token
    mirror = HubMirror(tmp_path / "hub", threading.Lock())
    store = JudgmentStore(tmp_path / "judgments.sqlite", mirror=mirror)
    j = make(client_key="k")
    store.add(j)
    store.add(j)
    lines = mirror.file.read_text().splitlines()
    assert [Judgment.from_dict(json.loads(line)) for line in lines] == [j]
