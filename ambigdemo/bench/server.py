"""``bench --server``: the real app under bursts of concurrent users, its RSS read after each burst.

The app runs as users start it (``python app.py``) in its own process with a throwaway data folder.
Each simulated user is a fresh ``gradio_client.Client`` (a new Gradio session) that asks one
question through ``/ask``; a burst is ``users`` of them at once, so the queue fills the way it does
when a class opens the Space together. After each burst the server's resident memory is read from
``/proc/<pid>/status``; answers, turned-away requests and latencies are counted.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from ambigdemo.bench.answers import bench_questions, percentile, process_rss_mb
from ambigdemo.config import ROOT
from ambigdemo.localhost import wait_http


def _ask(url: str, question: str) -> tuple[str, float]:
    """One user: a new session asks one question; ("answered" | "busy" | "error", seconds)."""
    from gradio_client import Client

    start = time.perf_counter()
    try:
        Client(url, verbose=False).predict(question, api_name="/ask")
        return "answered", time.perf_counter() - start
    except Exception as exc:  # the client raises for a full queue; anything else is an error
        kind = "busy" if "queue is full" in str(exc).lower() else "error"
        return kind, time.perf_counter() - start


def run(bursts: int = 4, users: int = 50, port: int = 7899, env: dict[str, str] | None = None,
        same: bool = False) -> dict:
    """Serve the app, send ``bursts`` bursts of ``users`` concurrent one-question users, report RSS.

    ``same``: every burst asks the first burst's questions again, so growth after the first burst is
    per request (a leak), not the allocators' high-water mark rising with new, longer inputs.
    """
    questions = bench_questions(users if same else bursts * users)
    with tempfile.TemporaryDirectory() as data_dir:
        server_env = {**os.environ, "AMBIGDEMO_DATA_DIR": data_dir, "GRADIO_ANALYTICS_ENABLED": "False",
                      **(env or {})}
        proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, env=server_env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}/"
        try:
            wait_http(url, 300.0, proc)
            rss = [{"requests": 0, "rss_mb": round(process_rss_mb(proc.pid))}]
            outcomes: list[tuple[str, float]] = []
            for b in range(bursts):
                chunk = questions[:users] if same else questions[b * users:(b + 1) * users]
                with ThreadPoolExecutor(max_workers=users) as pool:
                    outcomes += list(pool.map(lambda q: _ask(url, q), chunk))
                rss.append({"requests": len(outcomes), "rss_mb": round(process_rss_mb(proc.pid))})
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    answered = [s for kind, s in outcomes if kind == "answered"]
    return {
        "bursts": bursts,
        "users_per_burst": users,
        "answered": len(answered),
        "busy": sum(kind == "busy" for kind, _ in outcomes),
        "errors": sum(kind == "error" for kind, _ in outcomes),
        "answer_s_p50": round(statistics.median(answered), 2) if answered else None,
        "answer_s_p95": round(percentile(answered, 0.95), 2) if answered else None,
        "rss_after": rss,
        "same_questions_every_burst": same,
        "env": env or {},
    }
