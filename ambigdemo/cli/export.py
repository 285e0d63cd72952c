"""``python -m ambigdemo export MODEL_DIR --task {embed,generate} [--int8 | --int4] [--out DIR]``.

Turns a local Hugging Face model folder into the ONNX folder layout the app loads (needs torch and
optimum, which the answer path never imports). An embedder goes to ``models/custom/embedder`` and
a generator to ``models/custom/generator`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_OUT = {"embed": "embedder", "generate": "generator"}
SPEC_OPTIONS = ("pooling", "query_prefix", "passage_prefix", "max_length")  # EmbedderSpec fields set by flags


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a local HF model folder to the app's ONNX layout")
    p.add_argument("model_dir", help="a transformers/sentence-transformers folder (config.json, weights, tokenizer)")
    p.add_argument("--task", required=True, choices=sorted(DEFAULT_OUT), help="embed: sentence embedder; generate: chat LM")
    quant = p.add_mutually_exclusive_group()
    quant.add_argument("--int8", dest="quant", action="store_const", const="int8", help="dynamic int8 weights, per channel (embedders)")
    quant.add_argument(
        "--int4", dest="quant", action="store_const", const="int4",
        help="4-bit block-wise weights, MatMulNBits (generators: the fastest decoding on CPU)",
    )
    p.add_argument("--out", help="output folder (default: models/custom/embedder or models/custom/generator)")
    p.add_argument("--gguf-file", help="generate only: a GGUF file inside MODEL_DIR to convert")
    g = p.add_argument_group("embedder.json (embed only; how vectors are pooled and which prefixes to add)")
    g.add_argument("--pooling", choices=["mean", "cls"], help="mean (default; sentence-transformers, e5) or cls (bge)")
    g.add_argument("--query-prefix", help="prepended to questions, e.g. 'query: ' for e5 (default: none)")
    g.add_argument("--passage-prefix", help="prepended to passages, e.g. 'passage: ' for e5 (default: none)")
    g.add_argument("--max-length", type=int, help="tokens kept per text (default: as without embedder.json)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.config import Config

    src = Path(args.model_dir)
    if not src.is_dir():
        print(f"error: {src} is not a folder", file=sys.stderr)
        return 2
    if args.task == "generate" and args.gguf_file and not (src / args.gguf_file).is_file():
        print(f"error: {src / args.gguf_file} does not exist", file=sys.stderr)
        return 2
    if args.task == "embed" and args.gguf_file:
        print("error: --gguf-file applies to --task generate only", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Config.from_env().models_dir / "custom" / DEFAULT_OUT[args.task]
    try:
        from ambigdemo.building.export import export_embedder, export_generator
        from ambigdemo.runtimes.specs import EmbedderSpec
    except ImportError as exc:  # pragma: no cover - the packages are in requirements.txt
        print(f"error: export needs torch, transformers and optimum ({exc}); pip install -r requirements.txt", file=sys.stderr)
        return 2
    try:
        spec = EmbedderSpec(**{k: getattr(args, k) for k in SPEC_OPTIONS if getattr(args, k) is not None})
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"exporting {src} ({args.task}, {args.quant or 'fp32'}) to {out}")
    if args.task == "embed":
        export_embedder(src, out, quant=args.quant, spec=spec)
    else:
        export_generator(src, out, quant=args.quant, gguf_file=args.gguf_file)
    print(f"done: {out}")
    return 0
