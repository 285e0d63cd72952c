"""``python app.py --desktop`` as a person uses it, offline: a real Qt WebEngine window under Xvfb, in a
network namespace with only a loopback, asked a question, photographed, then closed the way a window
manager closes it (WM_DELETE_WINDOW); afterwards nothing of it may be left running or listening.

``AMBIGDEMO_DESKTOP_EXE=dist/ambigdemo/ambigdemo`` runs the same checks on the PyInstaller build
(packaging/README.md) instead of ``python app.py --desktop``.

The app runs as a child of ``sh`` inside ``unshare -n``; that ``sh`` then waits on our stdin, which keeps
the namespace alive so the port can be checked in it after the app has gone. ``sh`` prints ``NETNS``
once it runs inside the new namespace: before that line ``unshare`` may not have switched yet.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest

from conftest import require_or_skip

from ambigdemo.ui.app import TITLE
from ambigdemo.config import DESKTOP_ASK
from ambigdemo.ui.desktop import REPORT_PREFIX

ROOT = Path(__file__).resolve().parent.parent
SCREEN = (1280, 1000)
QUESTION = "What is the capital of South Africa?"
INSERTED_GREEN = (0xDA, 0xFB, 0xE1)  # render.CSS: background of the words a rewrite adds
ALSO_MARK = (0xFF, 0xF8, 0xC5)  # render.CSS: background of an "also in the passages" answer in its sentence
EXE = os.environ.get("AMBIGDEMO_DESKTOP_EXE")
APP = [EXE] if EXE else [sys.executable, "app.py", "--desktop"]
HOLDER = 'ip link set lo up && echo NETNS && "$@" </dev/null; echo "EXIT $?"; exec cat'
INSTALL = (
    "apt-get install xvfb iproute2 libxcb-cursor0 libxkbcommon-x11-0 (see .ci/run) and "
    "pip install -r requirements-desktop.txt"
)


def _importable(module: str) -> bool:
    """Whether ``module`` can be found; a dotted name whose parent package is absent is not importable
    (``find_spec`` raises then instead of returning None)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _missing() -> list[str]:
    tools = [t for t in ("Xvfb", "unshare", "nsenter", "ip") if shutil.which(t) is None]
    modules = [m for m in ("webview", "qtpy", "PyQt6.QtWebEngineWidgets", "Xlib") if not _importable(m)]
    root = [] if os.geteuid() == 0 else ["root (unshare -n)"]
    return tools + modules + root


@pytest.fixture(scope="module")
def display():
    """A fresh Xvfb display; in CI a missing toolkit fails the test, elsewhere it skips it."""
    missing = _missing()
    if missing:
        require_or_skip(f"desktop test needs {', '.join(missing)}: {INSTALL}")
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as ready:
        number = ready.readline().strip()
    assert number, "Xvfb did not start"
    try:
        yield f":{number}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)


def grab(display_name: str):
    """The whole X screen as a PIL image."""
    from PIL import Image
    from Xlib import X
    from Xlib.display import Display

    d = Display(display_name)
    try:
        root = d.screen().root
        g = root.get_geometry()
        raw = root.get_image(0, 0, g.width, g.height, X.ZPixmap, 0xFFFFFFFF)
        return Image.frombytes("RGB", (g.width, g.height), raw.data, "raw", "BGRX")
    finally:
        d.close()


def close_window(display_name: str, title: str) -> None:
    """Send WM_DELETE_WINDOW to the top-level window named ``title``, as a window manager's close button does."""
    from Xlib import X
    from Xlib.display import Display
    from Xlib.protocol.event import ClientMessage

    d = Display(display_name)
    try:
        protocols, delete = d.intern_atom("WM_PROTOCOLS"), d.intern_atom("WM_DELETE_WINDOW")
        windows = [w for w in d.screen().root.query_tree().children if w.get_wm_name() == title]
        assert windows, f"no window named {title!r}"
        for w in windows:
            w.send_event(ClientMessage(window=w, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])))
        d.flush()
    finally:
        d.close()


def pump(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def read_until(lines: queue.Queue, log: list[str], prefix: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no {prefix!r} line within {timeout:.0f} s; output:\n" + "".join(log[-40:])) from None
        if line is None:
            raise AssertionError(f"output ended before {prefix!r}:\n" + "".join(log[-40:]))
        log.append(line)
        if line.startswith(prefix):
            return line[len(prefix) :].strip()


def close_until_exit(display_name: str, lines: queue.Queue, log: list[str], tries: int = 5) -> str:
    """Close the window and return the app's exit status. Under bare Xvfb (no window manager) Qt at
    times drops a first WM_DELETE_WINDOW; like a user clicking close again, it is sent again after 5 s."""
    for attempt in range(1, tries + 1):
        close_window(display_name, TITLE)
        try:
            status = read_until(lines, log, "EXIT", timeout=5 if attempt < tries else 30)
        except AssertionError:
            continue
        log.append(f"[test] the app exited after {attempt} close request(s)\n")
        return status
    raise AssertionError("the app did not exit after the window was closed")


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_gone(processes: list[psutil.Process], grace: float) -> list[psutil.Process]:
    """The processes still alive after ``grace`` seconds (QtWebEngine's zygotes exit a few ms after the app)."""
    deadline = time.monotonic() + grace
    while True:
        alive = [p for p in processes if _alive(p)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def processes_in_netns(netns: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "ns" / "net") == netns:
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def test_desktop_window_answers_offline_and_closes_cleanly(display, preset, artifacts_dir, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env.update(DISPLAY=display, PYTHONPATH=str(ROOT), AMBIGDEMO_DATA_DIR=str(tmp_path / "data"), **{DESKTOP_ASK: QUESTION})
    holder = subprocess.Popen(
        ["unshare", "-n", "sh", "-c", HOLDER, "sh", *APP],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=pump, args=(holder.stdout, lines), daemon=True).start()
    log: list[str] = []
    tree: list[psutil.Process] = []
    try:
        read_until(lines, log, "NETNS", timeout=30)
        netns = os.readlink(f"/proc/{holder.pid}/ns/net")
        assert netns != os.readlink("/proc/self/ns/net"), "the app must run without the host's network"
        report = json.loads(read_until(lines, log, REPORT_PREFIX, timeout=150))
        assert "error" not in report, report
        assert "Pretoria" in report["cards"] and "Cape Town" in report["cards"], report["cards"]
        origin = urlsplit(report["resources"][-1]).netloc
        assert origin.startswith("127.0.0.1:"), report["resources"][-1]
        assert [u for u in report["resources"] if urlsplit(u).netloc != origin] == [], "every asset is local"

        [app] = psutil.Process(holder.pid).children()
        tree = [app, *app.children(recursive=True)]
        deadline = time.monotonic() + 20
        while True:
            shot = grab(display)
            colours = {rgb: n for n, rgb in shot.getcolors(SCREEN[0] * SCREEN[1])}
            if INSERTED_GREEN in colours or ALSO_MARK in colours or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        shot.save(artifacts_dir / ("desktop-window-exe.png" if EXE else "desktop-window.png"))
        assert len(colours) > 50, "the screen is blank"
        assert INSERTED_GREEN in colours or ALSO_MARK in colours, \
            "the window shows neither a reading's highlighted edit nor an answer marked under \"also in the passages\""

        assert close_until_exit(display, lines, log) == "0", "".join(log[-40:])
        still = wait_gone(tree, grace=5.0)
        assert still == [], f"left running after the window closed: {still}"
        assert processes_in_netns(netns) == [holder.pid], "only the namespace holder may be left"
        port = int(origin.split(":")[1])
        probe = (
            "import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
            f"s.bind(('127.0.0.1', {port})); s.listen()"
        )
        nsenter = ["nsenter", "-t", str(holder.pid), "-n", sys.executable, "-c", probe]
        free = subprocess.run(nsenter, capture_output=True, text=True)
        assert free.returncode == 0, f"port {port} is still taken: {free.stderr}"
    finally:
        (artifacts_dir / "desktop.log").write_text("".join(log), encoding="utf-8")
        if holder.poll() is None:
            tree += psutil.Process(holder.pid).children(recursive=True)
        for p in tree:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        holder.stdin.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(holder.pid, signal.SIGKILL)
        holder.wait(30)
