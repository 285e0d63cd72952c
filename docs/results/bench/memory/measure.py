"""Where the answer path's resident memory goes: RSS after loading and after each bench question.

Modes: ``shipped``; ``no-trim``, the heap that loading the models freed kept by glibc (``give_back_freed_heap``
off, as before 2026-12-03).

Usage: PYTHONPATH=. python docs/results/bench/memory/measure.py MODE [-n 30] > docs/results/bench/memory/MODE.json
(the app's preset and reader, ``Config.from_env()``; one fresh process per mode).
"""
import argparse
import json
import resource
import time

from ambigdemo.bench.answers import bench_questions, current_rss_mb
from ambigdemo.runtimes import onnx

parser = argparse.ArgumentParser()
parser.add_argument("mode", choices=["shipped", "no-trim"])
parser.add_argument("-n", type=int, default=30)
args = parser.parse_args()
if args.mode == "no-trim":
    onnx.give_back_freed_heap = lambda: None

from ambigdemo.config import Config  # noqa: E402
from ambigdemo.pipeline import Pipeline  # noqa: E402

pipeline = Pipeline.load(Config.from_env())
rows = [{"questions": 0, "rss_mb": round(current_rss_mb())}]
seconds = []
for k, question in enumerate(bench_questions(args.n), 1):
    start = time.perf_counter()
    pipeline.ask(question)
    seconds.append(time.perf_counter() - start)
    rows.append({"questions": k, "rss_mb": round(current_rss_mb())})
print(json.dumps({"mode": args.mode, "reader": pipeline.reader_model, "rss_after": rows,
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                  "ask_s": [round(s, 2) for s in seconds]}))
