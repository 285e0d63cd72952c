"""Memory of answers on many threads (``bench --threads``): each on its caller's thread, as Gradio runs
handlers, or pinned to the app's worker threads, side by side in fresh processes."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

from ambigdemo.bench.answers import bench_questions, current_rss_mb
from ambigdemo.config import ROOT


def threads_worker(n: int, pinned: bool, callers: int = 20, concurrency: int = 2) -> dict:
    """In a fresh process: ``n`` questions from ``callers`` threads, ``concurrency`` at a time.

    Unpinned, each answer runs on the calling thread, as Gradio runs handlers on its worker threads;
    pinned, the callers hand it to the app's ``Workers(concurrency)``. RSS is read every 20 answers.
    """
    import queue
    import threading

    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.ui.workers import Workers

    pipeline = Pipeline.load(Config.from_env())
    workers = Workers(concurrency)
    gate = threading.Semaphore(concurrency)
    inboxes = [queue.Queue() for _ in range(callers)]
    done: queue.Queue = queue.Queue()

    def caller(inbox: queue.Queue) -> None:
        while (question := inbox.get()) is not None:
            with gate:
                workers.call(pipeline.ask, question) if pinned else pipeline.ask(question)
            done.put(question)

    threads = [threading.Thread(target=caller, args=(box,), daemon=True) for box in inboxes]
    for t in threads:
        t.start()
    for k, question in enumerate(bench_questions(n)):
        inboxes[k % callers].put(question)
    rss = [{"questions": 0, "rss_mb": round(current_rss_mb())}]
    for k in range(1, n + 1):
        done.get()
        if k % 20 == 0:
            rss.append({"questions": k, "rss_mb": round(current_rss_mb())})
    for box in inboxes:
        box.put(None)
    return {"pinned": pinned, "callers": callers, "concurrency": concurrency, "rss_after": rss}


def run_threads(n: int = 200, repeats: int = 2) -> dict:
    """Unpinned and pinned answers side by side, alternating, in fresh processes; growth after the first 20."""
    runs: dict[str, list[dict]] = {"unpinned": [], "pinned": []}
    for _ in range(repeats):
        for mode in runs:
            cmd = [sys.executable, "-m", "ambigdemo", "bench", "--threads-worker", mode, "-n", str(n)]
            out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
            runs[mode].append(json.loads(out.strip().splitlines()[-1]))

    def growth(run: dict) -> int:
        return run["rss_after"][-1]["rss_mb"] - run["rss_after"][1]["rss_mb"]

    return {
        "questions": n,
        **{f"{mode}_growth_mb_median": statistics.median(growth(r) for r in rs) for mode, rs in runs.items()},
        **{f"{mode}_final_mb_median": statistics.median(r["rss_after"][-1]["rss_mb"] for r in rs) for mode, rs in runs.items()},
        "runs": runs,
    }
