"""``python -m ambigdemo download PRESET [--endpoint URL]``: fetch a hub preset at its pinned revisions.

Each component's download, and the index of a preset that builds it locally (``standard``), is one
announced step with its progress bar, the libraries' output in ``models/build.log``; an interrupted
build resumes when the command runs again, offline.
Exit 0 when the preset is complete and verified, 3 with one line on stderr when the hub cannot be
reached (the app keeps using the embedded default), 2 when a file fails its checksum or the index
passages cannot be read, 1 (naming the step and the log) on any other failure.
"""

from __future__ import annotations

import argparse
import sys

EXIT_UNREACHABLE = 3


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("download", help="download a model preset from the Hugging Face Hub and build its index (resumable, verified)")
    p.add_argument("preset", nargs="?", help="preset name, e.g. standard (see --list)")
    p.add_argument("--endpoint", help="hub URL (default: HF_ENDPOINT, else https://huggingface.co)")
    p.add_argument("--models-dir", help="default: models/ (or AMBIGDEMO_MODELS_DIR)")
    p.add_argument("--list", action="store_true", help="list the presets and whether each is ready")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.config import Config
    from ambigdemo.presets.hub import ChecksumError, HubUnavailable, download, preset_state
    from ambigdemo.presets.catalog import PRESETS, get_preset
    from ambigdemo.presets.steps import BUILD_LOG, StepFailed, Steps
    from ambigdemo.runtimes.manifest import ArtifactError

    models_dir = Path(args.models_dir) if args.models_dir else Config.from_env().models_dir
    if args.list or not args.preset:
        for preset in PRESETS.values():
            print(f"{preset.name:14s} {preset_state(preset, models_dir)}\n               {preset.description}")
        return 0 if args.list else 2
    try:
        preset = get_preset(args.preset)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if preset.origin != "hub":
        print(f"preset '{preset.name}' is built locally, not downloaded: run {preset.command}", file=sys.stderr)
        return 2
    steps = Steps(models_dir / BUILD_LOG)
    try:
        paths = download(preset, models_dir, endpoint=args.endpoint, progress=not args.no_progress, steps=steps)
    except (StepFailed, ArtifactError) as exc:
        cause = exc.__cause__ if isinstance(exc, StepFailed) else exc
        if isinstance(cause, HubUnavailable):
            print(cause, file=sys.stderr)
            return EXIT_UNREACHABLE
        print(f"error: {cause if isinstance(cause, (ChecksumError, ArtifactError)) else exc}", file=sys.stderr)
        return 2 if isinstance(cause, (ChecksumError, ArtifactError)) else 1
    print(
        f"preset '{preset.name}' ready in {paths.root}. Start the app with: python app.py --preset {preset.name} "
        "(it runs offline from here, HF_HUB_OFFLINE=1 is fine)"
    )
    return 0
