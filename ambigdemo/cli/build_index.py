"""``python -m ambigdemo build-index PASSAGES --out DIR [--embedder DIR]``: a passage index of your own.

PASSAGES is a DPR-style TSV (header ``id<TAB>text<TAB>title``) or JSONL (``id``, ``text``, ``title``).
Passages are embedded in chunks that are kept as they finish, so a killed build resumes where it
stopped when the same command runs again. Use the result with ``python app.py --index DIR`` or
``python -m ambigdemo ask QUESTION --index DIR``; the app's embedder must be the one used here.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build-index", help="embed a TSV/JSONL passage file into an index folder (resumable)")
    p.add_argument("passages", help="DPR TSV (id, text, title) or JSONL")
    p.add_argument("--out", required=True, help="index folder to write")
    p.add_argument("--embedder", help="embedder folder (default: the configured preset's, models/embedded/embedder)")
    p.add_argument("--threads", type=int, default=0, help="onnxruntime threads (0: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.config import Config
    from ambigdemo.corpus import PassageSource
    from ambigdemo.runtimes.index import ArtifactError, verify_manifest

    source = Path(args.passages)
    out = Path(args.out)
    embedder_dir = Path(args.embedder) if args.embedder else Config.from_env().preset_dir / "embedder"
    if not source.is_file():
        print(f"error: {source} does not exist", file=sys.stderr)
        return 2
    try:
        manifest = verify_manifest(embedder_dir, "python -m ambigdemo build (or download/export an embedder)")
    except ArtifactError as exc:
        print(f"error: embedder {embedder_dir}: {exc}", file=sys.stderr)
        return 2
    try:
        passages = PassageSource(source).read()
    except (ValueError, UnicodeDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not passages:
        print(f"error: {source}: no passages found", file=sys.stderr)
        return 2
    duplicate = _first_duplicate(p.id for p in passages)
    if duplicate is not None:
        print(f"error: {source}: passage id {duplicate!r} appears more than once; ids must be unique", file=sys.stderr)
        return 2

    from ambigdemo.build.indexing import CHUNK, build_index, finished_chunks
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    embedder_id = embedder_identity(embedder_dir, manifest)
    done = finished_chunks(out, passages, embedder_id)
    total = -(-len(passages) // CHUNK)
    if done:
        print(f"resuming: {done} of {total} chunks already embedded in {out / '.work'}", file=sys.stderr)
    print(f"indexing {len(passages)} passages from {source} with {embedder_id} into {out}", file=sys.stderr)
    embedder = OnnxEmbedder(embedder_dir, threads=args.threads)
    label = PassageSource(source).label
    build_index(passages, embedder, out, embedder_id, label, progress=not args.no_progress)
    print(f"index ready: {len(passages)} passages in {out}")
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


def _first_duplicate(ids) -> str | None:
    seen = set()
    for i in ids:
        if i in seen:
            return i
        seen.add(i)
    return None
