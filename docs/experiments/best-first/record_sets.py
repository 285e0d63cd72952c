"""Record readings sets as the app reads them, as ``train-verifier --sets`` does (``record_reading`` with the shipped
1.5B score's reading: which passages, replies, lists and subjects are read does not depend on its weights), one
process per call, so that two or three run at once on 2 cores; resumable.

    AMBIGDEMO_THREADS=1 PYTHONPATH=. python docs/experiments/best-first/record_sets.py OUT_DIR assets/readings-dev.json ...

``--score FILE`` reads as another score file's settings ask (e.g. its ``also_branches`` and ``branch_min``).

Each set is written to ``OUT_DIR/STEM.jsonl`` (docs/results/verifier-1.5b/checks/: the sets the score is not fitted on;
``sets/``: the ones it is, which ``train-verifier --sets`` then finds recorded).
"""

import argparse
import json
from pathlib import Path

from ambigdemo.building.train_verifier import record_reading
from ambigdemo.config import VERIFIERS, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.reader.configure import reading_with
from ambigdemo.stages.reader.verifier import Verifier


def main(out_dir: Path, sets: list[Path], score: Path) -> None:
    config = Config.from_env(use_generator=False, verifier="off", reader_model="1.5b")
    pipeline = Pipeline.load(config)
    app = reading_with(pipeline.reader, Verifier.load(score))
    for path in sets:
        items = [(i["question"], i["answers"]) for i in json.loads(path.read_text(encoding="utf-8"))]
        record_reading(app, pipeline.retriever, items, out_dir / f"{path.stem}.jsonl", config.top_k, desc=path.stem)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--score", type=Path, default=VERIFIERS["1.5b"], help="the score file whose reading is recorded")
    args = ap.parse_args()
    main(args.out_dir, args.sets, args.score)
