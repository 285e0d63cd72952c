"""Where the answer path's resident memory goes: RSS after loading and after each bench question.

Modes: ``shipped``; ``no-trim``, the heap that loading the models freed kept by glibc (``give_back_freed_heap``
off, as before 2026-12-03). The bench's own worker (``ambigdemo.bench.answers.worker``) loads and answers, its RSS read
after every question.

Usage: PYTHONPATH=. python docs/results/bench/memory/measure.py MODE [-n 30] > docs/results/bench/memory/MODE.json
(the app's preset and reader, ``Config.from_env()``; one fresh process per mode).
"""
import argparse
import json

from ambigdemo.bench.answers import worker
from ambigdemo.runtimes import onnx

parser = argparse.ArgumentParser()
parser.add_argument("mode", choices=["shipped", "no-trim"])
parser.add_argument("-n", type=int, default=30)
args = parser.parse_args()
if args.mode == "no-trim":
    onnx.give_back_freed_heap = lambda: None
found = worker(args.n, use_generator=True, rss_every=1)
print(json.dumps({"mode": args.mode, "reader": found["reader_model"], "peak_rss_mb": round(found["peak_rss_mb"]),
                  "rss_after": [{**r, "rss_mb": round(r["rss_mb"])} for r in found["rss_after"]],
                  "ask_s": [round(t.get("also_done", t["total"]) / 1000, 2) for t in found["runs"]]}))
