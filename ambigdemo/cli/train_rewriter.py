"""``train-rewriter``: fine-tune the embedded generator to write disambiguated questions (AmbigNQ train).

``python -m ambigdemo train-rewriter --out runs/rewriter --export models/rewriter`` trains the embedded generator (Qwen2.5-Coder-0.5B-Instruct)
(the embedded preset's GGUF) with the hyperparameters given, resumes from the last checkpoint in
``--out`` after a kill, and exports the result as an int4 ONNX generator folder; the app uses it with
``AMBIGDEMO_REWRITER=models/rewriter``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ambigdemo.config import AMBIGNQ_TRAIN as TRAIN


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-rewriter", help="fine-tune the generator to rewrite questions (resumable)", description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=TRAIN, help="AmbigNQ train JSON (default: assets/datasets/ambignq/train_light.json)")
    p.add_argument("--out", type=Path, required=True, help="run folder: checkpoints, train_config.json, final/")
    p.add_argument("--base", type=Path, help="a transformers model folder (default: the embedded generator's GGUF)")
    p.add_argument("--export", type=Path, help="also export the result as an int4 ONNX generator folder here")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--max-steps", type=int, default=-1, help="stop after N optimizer steps (default: the epochs)")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--learning-rate", type=float, default=5e-5)
    p.add_argument("--save-steps", type=int, default=100)
    p.add_argument("--limit", type=int, help="train on a random sample of N rewrites")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ambigdemo.presets.artifacts import PresetPaths
    from ambigdemo.building.embedded import generator_gguf
    from ambigdemo.config import Config
    from ambigdemo.evaluation.datasets import DataError
    from ambigdemo.building.train_rewriter import TrainConfig, export, train

    models_dir = Config.from_env().models_dir
    tokenizer = PresetPaths(models_dir / "embedded").generator / "tokenizer.json"
    if not tokenizer.is_file():
        print(f"error: {tokenizer} is missing: run python -m ambigdemo build first", file=sys.stderr)
        return 2
    if args.base:
        base, gguf_file = args.base, None
    else:
        gguf = generator_gguf(models_dir / "cache")
        base, gguf_file = gguf.parent, gguf.name
    config = TrainConfig(
        data=str(args.data), epochs=args.epochs, max_steps=args.max_steps, batch_size=args.batch_size,
        learning_rate=args.learning_rate, save_steps=args.save_steps, seed=args.seed, limit=args.limit,
    )
    try:
        final = train(config, args.out, base, tokenizer, gguf_file)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"trained: {final}")
    if args.export:
        print(f"exported: {export(final, args.export)}")
    return 0
