"""``tune``: fit the answer finder's weights and thresholds on AmbigNQ train (never on dev)."""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

from ambigdemo.config import AMBIGNQ_TRAIN as TRAIN, ROOT


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune",
        help="tune the answer finder on AmbigNQ train questions the corpus supports",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--data", type=Path, default=TRAIN, help="AmbigNQ train JSON (default: ../shared/data/ambignq)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "tune", help="report and cache folder")
    parser.add_argument("--supported", type=int, default=400, help="supported questions (every multi-answer one, then a sample)")
    parser.add_argument("--null", type=int, default=150, help="unsupported questions (teach the null answer)")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ambigdemo.evaluation import tuning
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline

    if not args.data.is_file():
        print(f"error: {args.data} not found (AmbigNQ train_light.json)", file=sys.stderr)
        return 2
    pipeline = Pipeline.load(Config.from_env(use_generator=False))
    args.out.mkdir(parents=True, exist_ok=True)
    cache = args.out / f"items-{args.supported}-{args.null}-{args.seed}.pkl"
    if cache.is_file():
        items = pickle.loads(cache.read_bytes())
    else:
        items = tuning.collect(pipeline.retriever, pipeline.finder, args.data, pipeline.config.top_k, args.supported, args.null, args.seed)
        tmp = cache.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(items))
        tmp.replace(cache)
    baseline = tuning.evaluate(items, pipeline.finder)
    finder, metrics = tuning.search(items, pipeline.finder)
    text = tuning.report(finder, metrics, baseline)
    (args.out / "tune.json").write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0
