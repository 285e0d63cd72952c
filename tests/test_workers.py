"""The app's answer threads: every answer runs on the same few threads, streams in order, fails loudly."""

from __future__ import annotations

import threading

import pytest

from ambigdemo.ui.workers import AHEAD, Workers


def counting(closed: threading.Event):
    """0, 1, 2, ... for ever; ``closed`` is set once the generator is closed."""
    try:
        n = 0
        while True:
            yield n
            n += 1
    finally:
        closed.set()


def test_calls_and_streams_run_on_the_fixed_threads_only() -> None:
    workers = Workers(2)
    names = set()

    def where(k: int):
        for i in range(k):
            names.add(threading.current_thread().name)
            yield i

    callers = [threading.Thread(target=lambda: list(workers.stream(where, 3))) for _ in range(8)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert workers.call(lambda: threading.current_thread().name).startswith("answer")
    assert 1 <= len(names) <= 2 and all(n.startswith("answer") for n in names)
    assert list(workers.stream(where, 4)) == [0, 1, 2, 3]


def test_a_failure_reaches_the_caller_and_closing_stops_the_worker() -> None:
    workers = Workers(1)

    def failing():
        yield "first"
        raise ValueError("the model file is corrupt")

    stream = workers.stream(failing)
    assert next(stream) == "first"
    with pytest.raises(ValueError, match="corrupt"):
        next(stream)
    produced = []

    def endless():
        n = 0
        while True:
            produced.append(n)
            yield n
            n += 1

    stream = workers.stream(endless)
    assert next(stream) == 0
    stream.close()
    assert workers.call(lambda: "free again") == "free again"  # the one worker is not stuck producing
    assert len(produced) <= AHEAD + 2  # it stopped once nobody took its items


def test_a_stream_nobody_takes_from_or_closes_frees_its_worker(monkeypatch) -> None:
    """A consumer that stops taking items without closing its stream (a browser closed mid-answer) no longer
    holds the worker for ever: after the stall limit the worker stops, closes its source and serves the next
    answer (before, one such stream blocked a thread of the app, and the interpreter's exit waited on it)."""
    monkeypatch.setattr("ambigdemo.ui.workers.STALL_S", 0.5)
    workers = Workers(1)
    closed = threading.Event()
    abandoned = workers.stream(counting, closed)
    assert next(abandoned) == 0  # taken once, then neither read nor closed again
    assert closed.wait(timeout=60), "the source was never closed"
    assert workers.call(lambda: "free again") == "free again"
    assert len(list(abandoned)) <= AHEAD  # read again later, it ends with what was queued instead of waiting for ever


_ABANDON_AND_EXIT = """
import threading
import ambigdemo.ui.workers as w
from tests.test_workers import counting
w.STALL_S = 3600.0  # the stall limit out of the way: only closing can free the thread
closed = threading.Event()
with w.Workers(1) as workers:
    abandoned = workers.stream(counting, closed)
    assert next(abandoned) == 0  # a server stopped mid-answer: taken once, never read or closed again
print("closed" if closed.wait(timeout=60) else "still producing", flush=True)
"""


def test_closing_the_workers_stops_an_abandoned_stream_so_the_process_exits(tmp_path) -> None:
    """The desktop app's window closes mid-answer: the server stops taking the stream's items without closing it.
    Leaving the workers' ``with`` block stops the stream after its step, so the interpreter, which joins the
    workers' threads before it exits, exits now (before, it waited ``STALL_S``; here an hour)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _ABANDON_AND_EXIT], cwd=root, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "closed"
