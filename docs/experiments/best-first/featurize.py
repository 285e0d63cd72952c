"""Compute every feature (the model's closed-book prior among them) of collected candidates with the loaded
reader, once per file, so that the fits and replays that follow (fits.py) take seconds.

    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/featurize.py \
        docs/results/verifier-1.5b/train.jsonl:docs/results/best-first/1.5b/train.features.json \
        docs/results/verifier-1.5b/dev.jsonl:docs/results/best-first/1.5b/dev.features.json \
        docs/results/best-first/1.5b/test.jsonl:docs/results/best-first/1.5b/test.features.json

    AMBIGDEMO_READER_MODEL=0.5b PYTHONPATH=. python docs/experiments/best-first/featurize.py \
        docs/results/verifier/train.jsonl:docs/results/best-first/0.5b/train.features.json \
        docs/results/verifier/dev.jsonl:docs/results/best-first/0.5b/dev.features.json

Each argument is COLLECTED.jsonl:OUT.json (collect.py or train-verifier wrote the first); an OUT that exists is kept.
"""

import json
import sys
from pathlib import Path

from ambigdemo.building.train_verifier import featurize, records
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline


def main(pairs: list[str]) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
    for pair in pairs:
        collected, target = (Path(p) for p in pair.split(":"))
        if target.exists():
            continue
        found = featurize(records(collected), pipeline.retriever, pipeline.reader.nlp, reader=pipeline.reader)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(found) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
