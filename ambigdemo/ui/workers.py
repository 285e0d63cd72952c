"""A fixed set of threads that run every answer, so memory stays with them.

Gradio runs each handler, and each step of a streaming handler, on any of its ~40 worker threads.
glibc gives each thread its own malloc arena (up to 8 per core), and freed memory in one arena is
not reused by another, so answers spread over many threads raise the resident set step by step.
Run on ``n`` threads (the app's concurrency limit), the same answers keep it flat:
``python -m ambigdemo bench --threads`` measures both side by side.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_DONE = object()
AHEAD = 8  # items a stream's worker may produce before its consumer takes them
# A consumer that takes nothing for this long has gone without closing its stream (a browser closed mid-answer
# whose generator the server keeps): the worker stops and its thread serves the next answer. Gradio takes each
# item as soon as it is made, so a live stream never waits this long.
STALL_S = 30.0


class Workers:
    """``call`` and ``stream`` run a function on one of ``n`` long-lived threads; ``close`` (or leaving a
    ``with`` block) stops them, so an app whose window or server has closed exits at once."""

    def __init__(self, n: int):
        self.pool = ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix="answer")
        self.closed = threading.Event()

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every stream after the step it is in, drop answers not started, and return without waiting.

        The interpreter joins these threads before it exits, and a stream whose consumer went without closing it
        (a server stopped mid-answer) would otherwise hold its thread for ``STALL_S``."""
        self.closed.set()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        return self.pool.submit(fn, *args).result()

    def stream(self, fn: Callable[..., Iterator[T]], *args: Any) -> Iterator[T]:
        """Items of ``fn(*args)`` as the worker produces them; closing this iterator stops the worker."""
        items: queue.Queue = queue.Queue(maxsize=AHEAD)
        stop = threading.Event()

        def hand(entry: tuple) -> bool:
            """Queue ``entry`` unless the consumer has gone (closed its stream, or took nothing for ``STALL_S``)
            or the workers were closed; False when so."""
            waited = 0.0
            while not stop.is_set() and not self.closed.is_set() and waited < STALL_S:
                try:
                    items.put(entry, timeout=0.1)
                    return True
                except queue.Full:
                    waited += 0.1
            stop.set()
            return False

        def produce() -> None:
            source = iter(fn(*args))
            try:
                for item in source:
                    if not hand((True, item)):
                        return
                hand((True, _DONE))
            except BaseException as exc:  # handed to the consumer, which raises it
                hand((False, exc))
            finally:
                if hasattr(source, "close"):
                    source.close()  # a generator left mid-way ends now, on its own thread

        self.pool.submit(produce)
        try:
            while True:
                try:
                    ok, item = items.get(timeout=0.1)
                except queue.Empty:
                    if stop.is_set():  # the worker gave up on this stream: it ends here, nobody waits for ever
                        return
                    continue
                if not ok:
                    raise item
                if item is _DONE:
                    return
                yield item
        finally:
            stop.set()
