"""The desktop app: the Gradio app served on a free 127.0.0.1 port, shown in a native pywebview window.

Needs ``pip install -r requirements-desktop.txt`` (pywebview with Qt WebEngine). Every asset comes
from the local server, so it works offline; closing the window closes the server and the process.
"""

from __future__ import annotations

import json
import os
import sys
import time

import gradio as gr

from ambigdemo.config import desktop_question
from ambigdemo.localhost import free_port
from ambigdemo.ui.app import launch

REPORT_PREFIX = "AMBIGDEMO_DESKTOP_REPORT "
INSTALL_HINT = "the desktop app needs pywebview with Qt: pip install -r requirements-desktop.txt"

_ASK_JS = """(() => {
  const box = document.querySelector('#question textarea');
  const button = document.querySelector('#ask');
  if (!box || !button) return false;
  box.value = %s;
  box.dispatchEvent(new Event('input', {bubbles: true}));
  button.click();
  return true;
})()"""
_DONE_JS = """(() => {
  if (document.querySelector('[data-testid=no-answer], [data-testid=input-error]')) return true;
  const p = document.querySelector('[data-testid=paragraph]');
  return !!p && !p.querySelector('.ad-writing');
})()"""
_REPORT_JS = """({
  cards: document.querySelector('#cards').innerText,
  resources: performance.getEntriesByType('resource').map(e => e.name).concat([location.href]),
})"""


def run(demo: gr.Blocks, width: int = 1200, height: int = 900) -> None:
    """Serve ``demo`` on 127.0.0.1, open it in a window and block until the window is closed."""
    try:
        import webview
    except ImportError as exc:
        raise SystemExit(f"error: {INSTALL_HINT} ({exc})") from exc
    if sys.platform.startswith("linux"):
        os.environ.setdefault("PYWEBVIEW_GUI", "qt")  # what requirements-desktop.txt installs; not GTK first
        if os.geteuid() == 0:
            os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # Chromium's sandbox refuses root
    port = free_port()
    launch(demo, "127.0.0.1", port, prevent_thread_lock=True, quiet=True, inbrowser=False, share=False)
    try:
        window = webview.create_window(demo.title, f"http://127.0.0.1:{port}/", width=width, height=height)
        question = desktop_question()
        if question:
            webview.start(_ask_and_report, (window, question))
        else:
            webview.start()
    finally:
        demo.close()


def _until(window, js: str, deadline: float) -> bool:
    """Evaluate ``js`` in the window until it is truthy; False once ``deadline`` passes."""
    while not window.evaluate_js(js):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


def _ask_and_report(window, question: str, timeout: float = 120.0) -> None:
    """Test hook (``AMBIGDEMO_DESKTOP_ASK``): ask in the window, then print the cards' text and every
    URL the page loaded as one ``AMBIGDEMO_DESKTOP_REPORT {json}`` line on stdout."""
    deadline = time.monotonic() + timeout
    done = _until(window, _ASK_JS % json.dumps(question), deadline) and _until(window, _DONE_JS, deadline)
    report = window.evaluate_js(_REPORT_JS) if done else {"error": f"no answer within {timeout:.0f} s"}
    print(REPORT_PREFIX + json.dumps(report), flush=True)
