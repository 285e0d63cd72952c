"""Command line: ``python -m ambigdemo COMMAND``. Each command lives in its own module here.

A command module defines ``register(subparsers)`` which adds its parser and sets ``func``;
heavy imports stay inside the handler so ``--help`` and unrelated commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = (
    "ask", "build", "bench", "score", "evaluate", "tune", "judgments", "download", "export", "build_index",
    "train_rewriter", "train_retriever", "train_verifier",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ambigdemo", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"ambigdemo.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
