"""``judgments``: export, import, rank and reset the stored human judgments.

The database is ``Config.from_env().judgments_db`` unless ``--db`` names one. The CLI is local
shell access, so only two actions ask for the admin token (``--token`` must equal the environment's
``AMBIGDEMO_ADMIN_TOKEN``, which must be set):

* ``reset`` always;
* ``export`` when the database lives on a Space's persistent ``/data`` volume (annotator data).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

SPACE_VOLUME = Path("/data")


def register(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", type=Path, help="judgments database (default: from AMBIGDEMO_DATA_DIR)")
    parser = subparsers.add_parser("judgments", help="export, import, rank or reset human judgments")
    actions = parser.add_subparsers(dest="action", required=True)

    export = actions.add_parser("export", parents=[common], help="write all judgments to a file")
    export.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    export.add_argument("--out", type=Path, required=True)
    export.add_argument("--token", default="", help="admin token (needed on a Space's /data volume)")
    export.set_defaults(func=_export)

    load = actions.add_parser("import", parents=[common], help="add judgments from an exported file")
    load.add_argument("file", type=Path)
    load.add_argument("--format", choices=("jsonl", "csv"), default=None, help="default: from the suffix")
    load.set_defaults(func=_import)

    board = actions.add_parser("leaderboard", parents=[common], help="rank the systems")
    board.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    board.add_argument("--plot", type=Path, help="also draw the strengths to this PNG")
    board.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (0: no intervals)")
    board.add_argument("--seed", type=int, default=0)
    board.set_defaults(func=_leaderboard)

    reset = actions.add_parser("reset", parents=[common], help="delete every judgment (admin)")
    reset.add_argument("--token", default="", help="must equal AMBIGDEMO_ADMIN_TOKEN")
    reset.set_defaults(func=_reset)


def _db_path(args: argparse.Namespace) -> Path:
    from ambigdemo.config import Config

    return args.db or Config.from_env().judgments_db


def on_space_volume(db: Path) -> bool:
    """Whether ``db`` lives on a Space's persistent ``/data`` volume."""
    return SPACE_VOLUME in db.resolve().parents


def _refused(token: str) -> bool:
    """Check ``token`` against ``AMBIGDEMO_ADMIN_TOKEN``; print why and return True when refused."""
    from ambigdemo.judging.store import check_admin_token

    try:
        check_admin_token(token, os.environ.get("AMBIGDEMO_ADMIN_TOKEN", ""))
    except PermissionError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return True
    return False


def _open(args: argparse.Namespace):
    from ambigdemo.judging.store import JudgmentStore

    return JudgmentStore(_db_path(args))


def _export(args: argparse.Namespace) -> int:
    if on_space_volume(_db_path(args)) and _refused(args.token):
        return 2
    n = _open(args).export(args.out, args.format)
    print(f"exported {n} judgments to {args.out}")
    return 0


def _import(args: argparse.Namespace) -> int:
    added, skipped = _open(args).import_file(args.file, args.format or "")
    print(f"added {added}, skipped {skipped}")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from ambigdemo.judging.rating import compute_leaderboard, plot_strengths

    board = compute_leaderboard(_open(args).iter_all(), rounds=args.rounds, seed=args.seed)
    print(json.dumps(board.to_dict(), indent=2) if args.json else board.to_markdown())
    if args.plot:
        plot_strengths(board, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _reset(args: argparse.Namespace) -> int:
    if _refused(args.token):
        return 2
    deleted = _open(args).reset(args.token, os.environ["AMBIGDEMO_ADMIN_TOKEN"])
    print(f"deleted {deleted} judgments")
    return 0
