"""``python -m ambigdemo build-index PASSAGES --out DIR``: a passage index of your own, built on Ray Data.

PASSAGES is a DPR-style TSV (header ``id<TAB>text<TAB>title``), JSONL or Parquet (``id``, ``text``,
``title``). It is split into shards, the shards are embedded by ONNX actors on Ray (a private local
Ray by default, a cluster with ``--ray-address``), and merged into one FAISS index (``--index-type``
flat, hnsw or ivfpq); see :mod:`ambigdemo.building.distributed`. Every finished shard is kept, so a
killed build resumes at its first unfinished shard when the same command runs again. Use the result
with ``python app.py --index DIR`` or ``python -m ambigdemo ask QUESTION --index DIR``; the app's
embedder must be the one used here.
"""

from __future__ import annotations

import argparse
import os
import sys


def register(sub: argparse._SubParsersAction) -> None:
    from ambigdemo.building.distributed import SHARD_ROWS
    from ambigdemo.runtimes.index import INDEX_TYPES

    p = sub.add_parser("build-index", help="embed a TSV/JSONL/Parquet passage file into an index folder (Ray Data, resumable)")
    p.add_argument("passages", help="DPR TSV (id, text, title), JSONL or Parquet")
    p.add_argument("--out", required=True, help="index folder to write")
    p.add_argument("--embedder", help="embedder folder (default: the configured preset's, models/embedded/embedder)")
    p.add_argument("--workers", type=int, default=min(os.cpu_count() or 1, 2), help="embedding actors, one CPU each (default: 2, or 1 on one core)")
    p.add_argument("--ray-address", help="join this Ray cluster (e.g. 10.0.0.1:6379) instead of starting a local Ray; OUT must be on storage every node sees")
    p.add_argument("--shard-rows", type=int, default=SHARD_ROWS, help=f"passages per shard, the unit of work and of resuming (default {SHARD_ROWS})")
    p.add_argument("--index-type", choices=INDEX_TYPES, default="flat", help="flat (exact), hnsw (fast, +~256 B/passage) or ivfpq (1/16 the memory, approximate)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.config import Config
    from ambigdemo.runtimes.manifest import ArtifactError, verify_manifest

    source = Path(args.passages)
    out = Path(args.out)
    embedder_dir = Path(args.embedder) if args.embedder else Config.from_env().preset_dir / "embedder"
    if not source.is_file():
        print(f"error: {source} does not exist", file=sys.stderr)
        return 2
    if args.workers < 1 or args.shard_rows < 1:
        print("error: --workers and --shard-rows must be at least 1", file=sys.stderr)
        return 2
    try:
        manifest = verify_manifest(embedder_dir, "python -m ambigdemo build (or download/export an embedder)")
    except ArtifactError as exc:
        print(f"error: embedder {embedder_dir}: {exc}", file=sys.stderr)
        return 2

    from ambigdemo.building.distributed import build_index_distributed
    from ambigdemo.presets.steps import BUILD_LOG, StepFailed, Steps

    steps = Steps(Config.from_env().models_dir / BUILD_LOG)
    embedder_id = embedder_identity(embedder_dir, manifest)
    where = f"the Ray cluster at {args.ray_address}" if args.ray_address else "a local Ray"
    steps.say(f"indexing {source} with {embedder_id} into {out} on {where}, {args.workers} workers")
    try:
        report = build_index_distributed(
            source, out, embedder_dir, embedder_id, workers=args.workers, address=args.ray_address,
            shard_rows=args.shard_rows, index_type=args.index_type, progress=not args.no_progress,
            say=steps.say, step=steps.step,
        )
    except StepFailed as exc:
        cause = exc.__cause__
        if isinstance(cause, ConnectionError):
            print(f"error: cannot reach the Ray cluster at {args.ray_address} ({cause})", file=sys.stderr)
        else:
            print(f"error: {cause if isinstance(cause, ValueError) else exc}", file=sys.stderr)
        return 2 if isinstance(cause, (ValueError, ConnectionError)) else 1
    print(f"index ready: {report.passages} passages in {out} ({report.shards} shards, {report.embedded} embedded now, "
          f"{report.resumed} kept from an earlier run; {args.index_type})")
    print(f"use it with: python app.py --index {out}   or   python -m ambigdemo ask QUESTION --index {out}")
    return 0


def embedder_identity(folder, manifest: dict) -> str:
    """A stable name for the embedder: its manifest id, else repo@revision, else the model's sha256."""
    if manifest.get("id"):
        return str(manifest["id"])
    if manifest.get("repo_id") and manifest.get("revision"):
        return f"{manifest['repo_id']}@{str(manifest['revision'])[:7]}"
    model = manifest.get("files", {}).get("model.onnx", {})
    return f"{folder.name}@sha256:{model.get('sha256', '')[:12]}"
