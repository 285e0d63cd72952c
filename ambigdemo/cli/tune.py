"""``tune``: fit the heuristic reader's weights and thresholds on AmbigNQ train (never on dev)."""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

from ambigdemo.config import AMBIGNQ_TRAIN as TRAIN, ROOT


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune",
        help="tune the answer heuristic on AmbigNQ train questions the corpus supports",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--data", type=Path, default=TRAIN, help="AmbigNQ train JSON (default: assets/datasets/ambignq/train_light.json)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "tune", help="report and cache folder")
    parser.add_argument("--supported", type=int, default=400, help="supported questions (every multi-answer one, then a sample)")
    parser.add_argument("--null", type=int, default=150, help="unsupported questions (teach the null answer)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--gate", action="store_true",
        help="tune the LLM reader's passage gate instead (reads each question's top-k passages once, cached, resumable)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ambigdemo.evaluation import tuning
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline

    if not args.data.is_file():
        print(f"error: {args.data} not found (AmbigNQ train_light.json)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if args.gate:
        return _tune_gate(args)
    pipeline = Pipeline.load(Config.from_env(use_generator=False))
    cache = args.out / f"items-{args.supported}-{args.null}-{args.seed}.pkl"
    if cache.is_file():
        items = pickle.loads(cache.read_bytes())
    else:
        items = tuning.collect(pipeline.retriever, pipeline.heuristic, args.data, pipeline.config.top_k, args.supported, args.null, args.seed)
        tmp = cache.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(items))
        tmp.replace(cache)
    baseline = tuning.evaluate(items, pipeline.heuristic)
    heuristic, metrics = tuning.search(items, pipeline.heuristic)
    text = tuning.report(heuristic, metrics, baseline)
    (args.out / "tune.json").write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


def _tune_gate(args: argparse.Namespace) -> int:
    from ambigdemo.config import Config
    from ambigdemo.evaluation import gate
    from ambigdemo.pipeline import Pipeline

    pipeline = Pipeline.load(Config.from_env(reader="llm", verifier="off"))  # the gate is the rules' reading
    questions = gate.sample(pipeline.retriever, args.data, pipeline.config.top_k, args.supported, args.null, args.seed)
    name = f"gate-{pipeline.config.preset}-{args.supported}-{args.null}-{args.seed}"
    reads = gate.read_all(pipeline.reader, questions, args.out / f"{name}-{gate.prompt_key()}.reads.jsonl")
    report = gate.search(pipeline.reader, pipeline.rewriter, questions, reads)
    further = gate.search_further(pipeline.reader, pipeline.rewriter, questions, reads)
    text = json.dumps({"data": str(args.data), "questions": len(questions), **report, "further": further}, indent=2)
    (args.out / f"{name}.json").write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0
