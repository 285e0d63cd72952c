"""``evaluate``: run a system over a gold file, cache its predictions, score them (``evaluation.runs``)."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from ambigdemo.cli.score import _table
from ambigdemo.config import AMBIGNQ_TRAIN as TRAIN
from ambigdemo.evaluation.contrast import TASK as CONTRAST
from ambigdemo.evaluation.followups import TASK as FOLLOWUP
from ambigdemo.evaluation.runs import ONLY, PLOT, SYSTEMS, TASKS, evaluate, markdown, score_task
from ambigdemo.loading import reader_model


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="run the pipeline over a gold file and score it (resumable)",
        description="Run a system over a gold file, cache its predictions (resumable) and score them as score does.",
    )
    parser.add_argument("--data", required=True, help="gold file: AmbigNQ JSON, NQ-open JSONL, or conversations (assets/followups.json)")
    parser.add_argument(
        "--task", choices=TASKS + (FOLLOWUP, CONTRAST), required=True,
        help=f"{FOLLOWUP}: rewriting follow-up questions (QuAC); {CONTRAST}: minimally edited question pairs built from AmbigNQ (MEQ)",
    )
    parser.add_argument("--out", required=True, help="output folder (its cache makes reruns resume)")
    parser.add_argument("--limit", type=_positive, help="only the first N questions of the task")
    parser.add_argument(
        "--system", nargs="+", choices=SYSTEMS, default=["pipeline"],
        help="systems to run side by side (copy: qd-gold only; threshold: multi-answer only); default pipeline",
    )
    parser.add_argument("--subset", type=Path, help="only the question ids listed in this file (e.g. a multi-answer subset.txt)")
    parser.add_argument("--train", type=Path, default=TRAIN, help="AmbigNQ train JSON that tunes the threshold baseline")
    parser.set_defaults(func=run)


def _side_task(args: argparse.Namespace, module, wrote: str) -> int:
    """``followup`` and ``contrast``: ``module.run`` makes the report, written as metrics.json and metrics.md."""
    import json

    from ambigdemo.config import Config
    from ambigdemo.evaluation.datasets import DataError
    from ambigdemo.files import replace_text
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.runtimes.manifest import ArtifactError

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        report = module.run(lambda: Pipeline.load(Config.from_env(use_generator=False)), Path(args.data), out, args.limit)
    except (DataError, ArtifactError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = module.markdown(report)
    replace_text(out / "metrics.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    replace_text(out / "metrics.md", text + "\n")
    print(text)
    print(f"wrote {out}/{wrote}")
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run(args: argparse.Namespace) -> int:
    from ambigdemo.config import Config
    from ambigdemo.evaluation.datasets import DataError
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.runtimes.manifest import ArtifactError

    wrong = [s for s in args.system if ONLY.get(s, args.task) != args.task]
    if wrong:
        print(f"error: --system {wrong[0]} needs --task {ONLY[wrong[0]]}", file=sys.stderr)
        return 2
    if args.task in (FOLLOWUP, CONTRAST):
        from ambigdemo.evaluation import contrast, followups

        if args.task == FOLLOWUP:
            return _side_task(args, followups, "metrics.json, metrics.md")
        return _side_task(args, contrast, "contrast-set.jsonl, metrics.json, metrics.md")
    config = Config.from_env(use_generator=args.task == "paragraph-gold")  # the paragraph task measures the writer
    try:
        report = evaluate(
            args.task, Path(args.data), Path(args.out), config, functools.cache(lambda: Pipeline.load(config)),
            systems=tuple(dict.fromkeys(args.system)), limit=args.limit, train=args.train, subset=args.subset,
            judge=functools.cache(lambda: reader_model(config)),
        )
    except (DataError, ArtifactError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.task == "paragraph-gold":
        print(markdown(report))
    for name, system in report["systems"].items() if args.task != "paragraph-gold" else ():
        print(f"{name} ({system['predictions']}):")
        print(_table(score_task(args.task), system["scores"]))
    print(f"wrote {args.out}/metrics.json, metrics.md, {PLOT}")
    return 0
