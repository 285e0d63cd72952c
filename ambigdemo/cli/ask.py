"""``python -m ambigdemo ask "QUESTION" [--json]``: answer one question from the shell."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help="answer a question (every interpretation, with a paragraph)")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--top-k", type=int, help="passages to retrieve (default from config)")
    p.add_argument("--no-generator", action="store_true", help="evidence-based paragraph, no generator")
    p.add_argument("--index", help="an index folder built by build-index")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline, QuestionError, clean_question
    from ambigdemo.runtimes.index import ArtifactError

    overrides = {"use_generator": False} if args.no_generator else {}
    if args.top_k:
        overrides["top_k"] = args.top_k
    if args.index:
        overrides["index_dir"] = Path(args.index)
    try:
        clean_question(args.question)
        pipeline = Pipeline.load(Config.from_env(**overrides))
        result = pipeline.ask(args.question)
    except (QuestionError, ArtifactError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if pipeline.notice:
        print(pipeline.notice, file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(render_text(result))
    return 0


def render_text(result) -> str:
    """A terminal rendering: interpretations, paragraph, sources."""
    if not result.interpretations:
        return result.message
    lines = ["Ambiguous: several readings" if result.ambiguous else "One clear answer"]
    for n, i in enumerate(result.interpretations, 1):
        lines.append(f"  {n}. {i.question}  ->  {i.answer}")
    lines += ["", result.paragraph, ""]
    lines += [f"  [{n}] {p.title} ({p.id})" for n, p in enumerate(result.passages, 1)]
    lines.append("Passages: Wikipedia, CC BY-SA 4.0")
    return "\n".join(lines)
