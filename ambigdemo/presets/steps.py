"""Long work, quietly: one line per step on the terminal (and its progress bar), everything the
libraries say (logging, warnings, output of native code) in a log file whose path a failure names.

Inside a step, file descriptors 1 and 2 point at the log, so whatever onnxruntime, torch or optimum
write, from Python or C++, lands there; ``sys.stderr`` is the terminal, so progress bars (tqdm writes
to it) stay visible; the root logger writes to the log and warnings are logged, so a library that
configures logging for itself during the step finds it configured already.
"""

from __future__ import annotations

import io
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

BUILD_LOG = "build.log"  # under the models folder: what the libraries said during builds and downloads
Step = Callable[[str], AbstractContextManager]  # a named step of long work: ``Steps.step``, or ``nullcontext`` to run it plainly


class StepFailed(RuntimeError):
    """A step raised: the message names the step, the error and the log."""


class Steps:
    """Runs named steps, each announced and timed on the terminal, its library output in ``log``."""

    def __init__(self, log: Path, terminal: io.TextIOBase | None = None):
        self.log = Path(log)
        self.terminal = terminal or sys.stdout

    def say(self, line: str) -> None:
        self.terminal.write(line + "\n")
        self.terminal.flush()

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Announce ``name``; run the body with library output sent to the log; say how long it took.
        An exception becomes :class:`StepFailed` naming the step and the log."""
        self.log.parent.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        self.say(f"{name} ...")
        try:
            with _into(self.log, name):
                yield
        except Exception as exc:
            self.say(f"{name}: failed after {time.perf_counter() - start:.0f} s: {exc}")
            raise StepFailed(f"{name} failed: {exc} (the libraries' output is in {self.log})") from exc
        self.say(f"{name}: done in {time.perf_counter() - start:.0f} s")


@contextmanager
def _into(log: Path, name: str) -> Iterator[None]:
    """Descriptors 1 and 2, ``sys.stdout``, the root logger and warnings into ``log``; ``sys.stderr`` on the terminal."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    terminal = os.fdopen(os.dup(saved[2]), "w", buffering=1, encoding="utf-8", errors="replace")
    root = logging.getLogger()
    handler = logging.FileHandler(log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    handler.setLevel(logging.INFO)  # a library's own DEBUG level (Ray Data's) stays out of the log
    old_level, old_stdout, old_stderr = root.level, sys.stdout, sys.stderr
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {name}\n")
        out.flush()
        try:
            for fd in (1, 2):
                os.dup2(out.fileno(), fd)
            root.addHandler(handler)
            root.setLevel(min(old_level or logging.WARNING, logging.INFO))
            logging.captureWarnings(True)
            sys.stdout, sys.stderr = out, terminal
            yield
        finally:
            sys.stdout, sys.stderr = old_stdout, old_stderr
            logging.captureWarnings(False)
            root.removeHandler(handler)
            root.setLevel(old_level)
            handler.close()
            for stream in (out, old_stdout, old_stderr):
                stream.flush()
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            terminal.close()
