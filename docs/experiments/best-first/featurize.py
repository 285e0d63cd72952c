"""Compute every feature (the model's closed-book prior included) of the committed train and dev candidates
of the loaded reader, once, into OUT/{train,dev}.features.json, so the fits and replays that follow take seconds.

    AMBIGDEMO_READER_MODEL=1.5b python docs/experiments/best-first/featurize.py docs/results/verifier-1.5b docs/results/best-first/1.5b
"""

import json
import sys
from pathlib import Path

from ambigdemo.building.train_verifier import featurize, records
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline


def main(collected: Path, out: Path) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
    out.mkdir(parents=True, exist_ok=True)
    for split in ("dev", "train"):
        target = out / f"{split}.features.json"
        if target.exists():
            continue
        found = featurize(records(collected / f"{split}.jsonl"), pipeline.retriever, pipeline.reader.nlp, reader=pipeline.reader)
        target.write_text(json.dumps(found) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
