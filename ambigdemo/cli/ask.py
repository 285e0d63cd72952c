"""``python -m ambigdemo ask "QUESTION" ["FOLLOW-UP" ...] [--history FILE] [--json]``: answer from the shell.

Several questions are one conversation: each after the first is rewritten into a standalone question
from the earlier turns (QuAC), as is the first when ``--history`` holds earlier turns; the history
file is then updated with the new turns, so the next call continues the conversation."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ambigdemo.config import READER_MODELS, is_gguf_reader


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help="answer a question (every interpretation, with a paragraph)")
    p.add_argument("question", nargs="+", help="a question; more are follow-ups of the earlier ones")
    p.add_argument("--history", type=Path, help="JSON file of earlier turns ([{question, answers}]); updated with these turns")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--top-k", type=int, help="passages to retrieve (default from config)")
    p.add_argument("--no-generator", action="store_true", help="evidence-based paragraph, no generator")
    p.add_argument("--index", help="an index folder built by build-index")
    p.add_argument("--reader-model", metavar="READER",
                   help=f"the reader, with any preset's passages: {', '.join(READER_MODELS)}, a GGUF file's path or "
                        "hf:OWNER/REPO/FILE.gguf@REVISION (built on first use) (default: AMBIGDEMO_READER_MODEL, else the preset's own)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ambigdemo.config import Config
    from ambigdemo.files import replace_text
    from ambigdemo.pipeline import Pipeline, QuestionError, clean_question
    from ambigdemo.runtimes.manifest import ArtifactError
    from ambigdemo.types import Result, Turn

    overrides = {"use_generator": False} if args.no_generator else {}
    if args.top_k:
        overrides["top_k"] = args.top_k
    if args.index:
        overrides["index_dir"] = Path(args.index)
    if args.reader_model:
        overrides["reader_model"] = args.reader_model
    try:
        history = read_history(args.history) if args.history else []
    except ValueError as exc:
        print(f"error: {args.history}: {exc}", file=sys.stderr)
        return 2
    results = []
    try:
        for question in args.question:
            clean_question(question)
        config = Config.from_env(**overrides)
        if is_gguf_reader(config.reader_model):
            from ambigdemo.building.own_reader import build_gguf_reader
            from ambigdemo.presets.steps import BUILD_LOG, Steps

            build_gguf_reader(config.reader_model, config.readers_dir or config.models_dir,
                              Steps(config.models_dir / BUILD_LOG, terminal=sys.stderr))  # stdout stays the answer's
        pipeline = Pipeline.load(config)
        for question in args.question:
            standalone = pipeline.standalone(question, history)
            if not standalone.answerable:  # nobody to answer about: nothing asked, nothing added to the conversation
                results.append((standalone, Result(standalone.question, message=standalone.note)))
                continue
            result = pipeline.ask(standalone.question, follow_up=standalone.follows)
            results.append((standalone, result))
            history.append(Turn(standalone.question, [i.answer for i in result.interpretations]))
    except (QuestionError, ArtifactError, ValueError, RuntimeError) as exc:  # a reader file refused, a failed build
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if pipeline.notice:
        print(pipeline.notice, file=sys.stderr)
    if args.history:
        replace_text(args.history, json.dumps([vars(t) for t in history], indent=1, ensure_ascii=False) + "\n")
    if args.json:
        data = [{"asked": s.asked, "rewrite_source": s.source, "note": s.note, **r.to_dict()} for s, r in results]
        print(json.dumps(data[0] if len(data) == 1 else data, ensure_ascii=False, indent=2))
        return 0
    for n, (standalone, result) in enumerate(results):
        if n:
            print()
        if standalone.question != standalone.asked:
            print(f"{standalone.asked}  (answered as: {standalone.question})")
        if standalone.note and standalone.answerable:  # an unanswerable question's note is its message
            print(standalone.note)
        print(render_text(result, pipeline.credit))
    return 0


def read_history(path: Path) -> list:
    """Earlier turns from ``path`` (absent: none); ValueError names what is wrong."""
    from ambigdemo.types import Turn

    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON history ({exc})") from exc
    if not isinstance(data, list) or not all(
        isinstance(t, dict) and isinstance(t.get("question"), str) and isinstance(t.get("answers", []), list) for t in data
    ):
        raise ValueError('expected a JSON list of {"question": str, "answers": [str]} turns')
    return [Turn(t["question"], [str(a) for a in t.get("answers", [])]) for t in data]


def render_text(result, credit: str) -> str:
    """A terminal rendering: interpretations, paragraph, "also in the passages", sources."""
    if not result.interpretations and not result.also:
        return result.message
    numbers = {p.id: n for n, p in enumerate(result.passages, 1)}
    if not result.interpretations:
        lines = [result.message, ""]
    else:
        lines = ["Ambiguous: several readings" if result.ambiguous else "One clear answer"]
        lines += [f"  {n}. {i.question}  ->  {i.answer}" for n, i in enumerate(result.interpretations, 1)]
        lines += ["", result.paragraph, ""]
    if result.also:
        lines.append("Also in the passages (less certain):")
        lines += [f"  - {a.answer} [{numbers.get(a.passage, '?')}]: \"{a.sentence}\"" for a in result.also]
        lines.append("")
    lines += [f"  [{n}] {p.title} ({p.id})" for n, p in enumerate(result.passages, 1)]
    lines.append(credit)
    return "\n".join(lines)
