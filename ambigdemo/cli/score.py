"""``score``: official AmbigQA or NQ-open metrics of a prediction file against a gold file."""

from __future__ import annotations

import argparse
import json
import sys

TASKS = ("ambigqa", "nq-open")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score predictions against gold data with the official metrics",
        description="Official AmbigQA or NQ-open metrics of a prediction file against a gold file.",
    )
    parser.add_argument("--task", choices=TASKS, required=True)
    parser.add_argument("--data", required=True, help="gold file: AmbigNQ JSON or NQ-open JSONL")
    parser.add_argument("--pred", required=True, help="predictions in the official format, keyed by question id")
    parser.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ambigdemo.evaluation.datasets import DataError
    from ambigdemo.evaluation.metrics import score_files

    try:
        scores = score_files(args.task, args.data, args.pred)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(scores) if args.json else _table(args.task, scores))
    return 0


def _table(task: str, scores: dict) -> str:
    if task == "nq-open":
        rows = [("questions", str(scores["n"])), ("exact match", _fmt(scores["em"]))]
        return "\n".join(f"{name:<12} {value:>7}" for name, value in rows)
    rows = [
        ("metric", "all", "multi"),
        ("F1 answer", _fmt(scores["f1_ans"]), _fmt(scores["f1_ans_multi"])),
        ("F1 BLEU-4", "", _fmt(scores["f1_bleu"])),
        ("F1 EDIT-F1", "", _fmt(scores["f1_edit_f1"])),
        ("questions", str(scores["n"]), str(scores["n_multi"])),
    ]
    return "\n".join(f"{name:<12} {a:>7} {b:>7}" for name, a, b in rows)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
