"""What a second pipeline costs in memory when it shares the first one's reader session, and when it loads its own.

Usage: PYTHONPATH=. python docs/results/bench/reader-share/measure.py > docs/results/bench/reader-share/rss.txt
(the app's preset and reader, ``Config.from_env()``; a Space switching presets loads its second pipeline with ``share``).
"""
import psutil

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline


def rss_gb() -> float:
    return psutil.Process().memory_info().rss / 2**30


config = Config.from_env()
first = Pipeline.load(config)
before = rss_gb()
shared = Pipeline.load(config, share=first)
sharing = rss_gb()
own = Pipeline.load(config)
after = rss_gb()
assert shared.generator is first.generator and own.generator is not first.generator
print(f"reader: {first.reader_model}")
print(f"the first pipeline: {before:.2f} GB RSS")
print(f"+ a second one sharing its reader session: {sharing - before:+.2f} GB")
print(f"+ a third one loading its own: {after - sharing:+.2f} GB")
