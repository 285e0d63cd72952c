"""Durable store of pairwise human judgments: one SQLite file in WAL mode, safe for many writers.

Durability: ``journal_mode=WAL`` with ``synchronous=FULL``. Under WAL, ``NORMAL`` already keeps
every acknowledged commit across a SIGKILL of the app (the WAL frames are in the OS page cache
before ``COMMIT`` returns), but it may roll back the last commits on power loss or a VM/host
crash because the WAL is only fsynced at checkpoints. ``FULL`` fsyncs the WAL on every commit,
so an acknowledged judgment survives both; human clicks are rare enough for the fsync to be free.

Concurrency: one connection per thread and per process (reopened after a fork); every write is
one ``BEGIN IMMEDIATE`` transaction, so the idempotency, one-verdict-per-pair and daily-cap checks
cannot race; waiting writers queue on ``busy_timeout``.

Rules: ``client_key`` is an idempotency key (a double click stores one judgment and returns the
first); an annotator gives at most one counted verdict (``vote`` or ``both_bad``) per pair, while
``skip`` rows never block a later vote and are exempt from the daily cap (they carry no verdict).
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from ambigdemo.judging.judgment import COLUMNS, CRITERIA, CRITERIA_LABELS, VERDICTS, Judgment, utc_now

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 30_000

_SCHEMA_V1 = f"""
CREATE TABLE judgments (
    id TEXT PRIMARY KEY,
    client_key TEXT NOT NULL UNIQUE,
    question TEXT NOT NULL,
    pair_id TEXT NOT NULL,
    system_a TEXT NOT NULL,
    system_b TEXT NOT NULL,
    answer_a TEXT NOT NULL,
    answer_b TEXT NOT NULL,
    left_is TEXT NOT NULL,
    annotator TEXT NOT NULL,
    acc_a TEXT NOT NULL,
    acc_a_total INTEGER NOT NULL,
    acc_b TEXT NOT NULL,
    acc_b_total INTEGER NOT NULL,
    comprehensiveness TEXT NOT NULL CHECK (comprehensiveness IN {CRITERIA_LABELS}),
    fluency TEXT NOT NULL CHECK (fluency IN {CRITERIA_LABELS}),
    overall TEXT NOT NULL CHECK (overall IN {CRITERIA_LABELS}),
    verdict TEXT NOT NULL CHECK (verdict IN {VERDICTS}),
    comment TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT NOT NULL,
    app_version TEXT NOT NULL
);
CREATE UNIQUE INDEX one_verdict_per_pair ON judgments (annotator, pair_id) WHERE verdict != 'skip';
CREATE INDEX by_annotator_time ON judgments (annotator, created_at);
"""

# v2: a skip or a both-bad verdict stores no criterion (NULL). Rows are copied as they were: a v1 skip
# still shows the labels it was stored with, for `judgments check` to list and `--repair` to clear.
def _nullable_criteria(table: str) -> str:
    """v1's CREATE TABLE with each criterion allowed to be NULL."""
    for c in CRITERIA:
        table = table.replace(f"{c} TEXT NOT NULL CHECK ({c} IN {CRITERIA_LABELS})",
                              f"{c} TEXT CHECK ({c} IS NULL OR {c} IN {CRITERIA_LABELS})")
    return table


_TABLE_V1, _INDEXES = _SCHEMA_V1.split(";", 1)
_SCHEMA_V2 = f"""{_nullable_criteria(_TABLE_V1.replace("CREATE TABLE judgments", "CREATE TABLE judgments_v2"))};
INSERT INTO judgments_v2 ({', '.join(COLUMNS)}) SELECT {', '.join(COLUMNS)} FROM judgments ORDER BY rowid;
DROP TABLE judgments;
ALTER TABLE judgments_v2 RENAME TO judgments;{_INDEXES}"""

# MIGRATIONS[v] upgrades a database at user_version v to v + 1.
MIGRATIONS: tuple[str, ...] = (_SCHEMA_V1, _SCHEMA_V2)


class StoreError(Exception):
    """Base class of the judgment rules a caller can show to an annotator."""


class DuplicateJudgment(StoreError):
    """The annotator already gave a verdict on this pair (same question and systems)."""


class CapReached(StoreError):
    """The annotator reached the daily cap of counted judgments (UTC day)."""


def check_admin_token(token: str, expected_token: str) -> None:
    """Raise ``PermissionError`` unless an admin token is configured and ``token`` equals it."""
    if not expected_token:
        raise PermissionError("no admin token is configured (AMBIGDEMO_ADMIN_TOKEN)")
    if not hmac.compare_digest(token.encode(), expected_token.encode()):
        raise PermissionError("wrong admin token")


def _day_bounds(timestamp: str) -> tuple[str, str]:
    """The UTC calendar day of a store timestamp, as a half-open range of timestamp strings."""
    day = date.fromisoformat(timestamp[:10])
    return day.isoformat(), (day + timedelta(days=1)).isoformat()


class JudgmentStore:
    """Judgments in one SQLite file; safe to share between threads, and to open from many processes."""

    def __init__(self, path: str | os.PathLike, daily_cap: int = 0, mirror: "HubMirror | None" = None):
        self.path = Path(path)
        self.daily_cap = daily_cap
        self.mirror = mirror
        self._local = threading.local()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._migrate(self._conn())

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use and reopened in a forked child."""
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            conn.close()
        self._local.conn = None

    def _migrate(self, conn: sqlite3.Connection) -> None:
        with _transaction(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"{self.path} has schema v{version}; this code knows v{SCHEMA_VERSION}")
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step].split(";"):
                    if statement.strip():
                        conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        return self._conn().execute("PRAGMA user_version").fetchone()[0]

    def add(self, j: Judgment) -> tuple[Judgment, bool]:
        """Store ``j`` atomically; returns ``(stored, created)``.

        A repeated ``client_key`` returns the stored judgment with ``created=False``; raises
        ``DuplicateJudgment`` when the annotator already judged the pair, ``CapReached`` past the cap,
        and ``ValueError`` for a skip or both-bad verdict that carries criteria.
        """
        if problems := j.problems():
            raise ValueError("; ".join(problems))
        conn = self._conn()
        with _transaction(conn):
            existing = conn.execute("SELECT * FROM judgments WHERE client_key = ?", (j.client_key,)).fetchone()
            if existing is not None:
                return _from_sql(existing), False
            if j.counted:
                self._check_rules(conn, j)
            _insert(conn, j, or_ignore=False)
        if self.mirror is not None:
            self.mirror.append(j)
        return j, True

    def _check_rules(self, conn: sqlite3.Connection, j: Judgment) -> None:
        if conn.execute(
            "SELECT 1 FROM judgments WHERE annotator = ? AND pair_id = ? AND verdict != 'skip'",
            (j.annotator, j.pair_id),
        ).fetchone():
            raise DuplicateJudgment(f"{j.annotator!r} already judged this pair of answers")
        if self.daily_cap > 0 and self.count_today(j.annotator, j.created_at, conn) >= self.daily_cap:
            raise CapReached(
                f"{j.annotator!r} reached the daily cap of {self.daily_cap} judgments; thank you, come back tomorrow (UTC)"
            )

    def count_today(self, annotator: str, at: str = "", conn: sqlite3.Connection | None = None) -> int:
        """Counted judgments by ``annotator`` on the UTC day of ``at`` (default: today)."""
        start, end = _day_bounds(at or utc_now())
        return (conn or self._conn()).execute(
            "SELECT count(*) FROM judgments WHERE annotator = ? AND verdict != 'skip'"
            " AND created_at >= ? AND created_at < ?",
            (annotator, start, end),
        ).fetchone()[0]

    def count(self) -> int:
        return self._conn().execute("SELECT count(*) FROM judgments").fetchone()[0]

    def iter_all(self) -> Iterator[Judgment]:
        """All judgments in insertion order."""
        for row in self._conn().execute("SELECT * FROM judgments ORDER BY rowid"):
            yield _from_sql(row)

    def judged_pairs(self, annotator: str) -> set[str]:
        """``pair_id`` of every pair the annotator gave a verdict on (skips excluded)."""
        rows = self._conn().execute(
            "SELECT pair_id FROM judgments WHERE annotator = ? AND verdict != 'skip'", (annotator,)
        )
        return {r[0] for r in rows}

    def pair_counts(self) -> dict[str, int]:
        """Counted judgments (any annotator) per ``pair_id``: how close each pair is to its overlap target."""
        rows = self._conn().execute("SELECT pair_id, count(*) FROM judgments WHERE verdict != 'skip' GROUP BY pair_id")
        return {r[0]: r[1] for r in rows}

    def left_counts(self, annotator: str) -> dict[str, int]:
        """How often each system was shown on the left to ``annotator`` (for balancing positions)."""
        rows = self._conn().execute("SELECT left_is, count(*) FROM judgments WHERE annotator = ? GROUP BY left_is",
                                    (annotator,))
        return {r[0]: r[1] for r in rows}

    def add_many(self, judgments: Iterable[Judgment]) -> tuple[int, int]:
        """Restore judgments (an export) in one transaction; returns ``(added, skipped)``.

        A judgment is skipped when its id, ``client_key`` or (annotator, pair) verdict is already
        stored. The daily cap does not apply: these were accepted once. Records from before schema v2
        are kept as they were (``judgments check`` lists them). If reading ``judgments`` raises,
        nothing is stored.
        """
        conn = self._conn()
        added = skipped = 0
        with _transaction(conn):
            for j in judgments:
                if _insert(conn, j, or_ignore=True):
                    added += 1
                else:
                    skipped += 1
        return added, skipped

    def inconsistent(self) -> list[tuple[dict[str, Any], list[str]]]:
        """Stored rows whose criteria disagree with their verdict, or that do not read as a judgment at all
        (a vote missing a criterion), each as stored with what is wrong."""
        found = []
        for row in self._conn().execute("SELECT * FROM judgments ORDER BY rowid"):
            row = dict(row)
            try:
                problems = _from_sql(row).problems()
            except ValueError as exc:
                problems = [str(exc)]
            if problems:
                found.append((row, problems))
        return found

    def clear_uncollected_labels(self) -> int:
        """Set to NULL the criteria stored on skips and both-bad verdicts; returns how many rows changed."""
        conn = self._conn()
        stored = " OR ".join(f"{c} IS NOT NULL" for c in CRITERIA)
        with _transaction(conn):
            return conn.execute(f"UPDATE judgments SET {', '.join(f'{c} = NULL' for c in CRITERIA)} "
                                f"WHERE verdict != 'vote' AND ({stored})").rowcount

    def reset(self, token: str, expected_token: str) -> int:
        """Delete every judgment (admin only); returns how many were deleted."""
        check_admin_token(token, expected_token)
        conn = self._conn()
        with _transaction(conn):
            return conn.execute("DELETE FROM judgments").rowcount

    def integrity_check(self) -> str:
        return self._conn().execute("PRAGMA integrity_check").fetchone()[0]


class _transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (or ``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _insert(conn: sqlite3.Connection, j: Judgment, or_ignore: bool) -> bool:
    verb = "INSERT OR IGNORE" if or_ignore else "INSERT"
    sql = f"{verb} INTO judgments ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
    row = j.to_row()
    try:
        return conn.execute(sql, [row[c] for c in COLUMNS]).rowcount == 1
    except sqlite3.IntegrityError as exc:
        raise DuplicateJudgment(f"judgment conflicts with a stored one: {exc}") from exc


def _from_sql(row: sqlite3.Row | dict[str, Any]) -> Judgment:
    return Judgment.from_dict(dict(row))


def _jsonl_line(j: Judgment) -> str:
    return json.dumps(j.to_dict(), ensure_ascii=False) + "\n"


class HubMirror:
    """Appends each new judgment as a JSONL line to a folder that ``CommitScheduler`` pushes.

    Writes hold the scheduler's lock so a push never uploads a half-written line. Each process
    writes its own ``judgments-<uuid>.jsonl`` so replicas never overwrite each other's file.
    """

    def __init__(self, folder: str | os.PathLike, lock: threading.Lock):
        self.file = Path(folder) / f"judgments-{uuid.uuid4()}.jsonl"
        self.file.parent.mkdir(parents=True, exist_ok=True)
        self.lock = lock

    def append(self, j: Judgment) -> None:
        try:
            with self.lock, self.file.open("a", encoding="utf-8") as f:
                f.write(_jsonl_line(j))
        except OSError:
            log.exception("could not mirror judgment %s; it is safe in SQLite", j.id)

    @classmethod
    def pushing(cls, data_dir: str | os.PathLike, repo_id: str, token: str, every_minutes: float = 5) -> "HubMirror | None":
        """A mirror pushing to the dataset ``repo_id`` with ``token`` (``Config.hub_dataset``, ``Config.hub_token``);
        ``None`` unless both are set."""
        if not (repo_id and token):
            return None
        from huggingface_hub import CommitScheduler

        folder = Path(data_dir) / "hub_mirror"
        scheduler = CommitScheduler(
            repo_id=repo_id, repo_type="dataset", folder_path=folder, path_in_repo="judgments",
            every=every_minutes, token=token, private=True,
        )
        return cls(folder, scheduler.lock)


def open_store(data_dir: str | os.PathLike, db_path: str | os.PathLike, daily_cap: int = 0, hub_dataset: str = "",
               hub_token: str = "") -> JudgmentStore:
    """The app's store: ``db_path`` with the daily cap, mirrored to the Hub dataset when one is configured."""
    return JudgmentStore(db_path, daily_cap=daily_cap, mirror=HubMirror.pushing(data_dir, hub_dataset, hub_token))
