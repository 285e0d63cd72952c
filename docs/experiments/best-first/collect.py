"""Collect the loaded reader's candidates for a readings set as train-verifier collects AmbigNQ train's (every
passage over the least score among the top 8, each with its features), one question per line, resumable, so
that a choice among them can be replayed in seconds (fits.py). A third argument reads only that many passages
(and no less likely replies): the first held-out set, read once it was no longer held out, was collected at 4, the
most the app reads.

    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/collect.py assets/readings-test.json docs/results/best-first/1.5b/test.jsonl
    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/collect.py assets/readings-heldout.json docs/results/best-first/1.5b/heldout.jsonl 4
"""

import json
import sys
from pathlib import Path

from ambigdemo.building.train_verifier import collect
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline


def main(readings: Path, out: Path, passages: int | None = None) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
    items = [(i["question"], i["answers"]) for i in json.loads(readings.read_text(encoding="utf-8"))]
    narrow = {"max_passages": passages, "branch_passages": 0} if passages else {}
    collect(pipeline.reader, pipeline.retriever, items, out, len(items), seed=None, stated_only=False, **narrow)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
