"""Where the "also" lap's time goes: the app (``Config.from_env()``) answers the bench questions, and cProfile runs only
while ``ReaderRun.read_for_also`` reads (after the readings and the paragraph); prints each question's lap and the
functions by cumulative time.

    AMBIGDEMO_VERIFIER=on AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/also_profile.py 30
"""

import cProfile
import pstats
import sys
import time

import ambigdemo.stages.reader as reader
from ambigdemo.bench.answers import bench_questions
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline

profile = cProfile.Profile()
read_for_also = reader.ReaderRun.read_for_also


def profiled(run):
    """``read_for_also`` with the profiler on while it reads, off while the caller takes each tier."""
    lap, start = read_for_also(run), time.perf_counter()
    while True:
        profile.enable()
        try:
            also = next(lap)
        except StopIteration:
            profile.disable()
            break
        profile.disable()
        yield also
    print(f"{time.perf_counter() - start:6.2f} s  {len(run._also_only)} further passages  {run.question.text}")


reader.ReaderRun.read_for_also = profiled
pipeline = Pipeline.load(Config.from_env())
for question in bench_questions(int(sys.argv[1])):
    pipeline.ask(question)
pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
