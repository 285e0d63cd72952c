"""``python -m ambigdemo bench [--json]``: the benchmarks behind README's performance table."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="latency, cold start, memory, ONNX vs PyTorch (and judgments with --judgments)")
    p.add_argument("-n", type=int, default=50, help="questions (default 50)")
    p.add_argument("--cold-runs", type=int, default=3)
    p.add_argument("--no-compare", action="store_true", help="skip the ONNX vs PyTorch comparison")
    p.add_argument("--judgments", action="store_true", help="benchmark the judgment store and leaderboard instead")
    p.add_argument("--server", action="store_true",
                   help="serve the app (python app.py) and read its RSS after bursts of concurrent users")
    p.add_argument("--bursts", type=int, default=4, help="--server: bursts of users (default 4)")
    p.add_argument("--users", type=int, default=50, help="--server: concurrent users per burst (default 50)")
    p.add_argument("--same", action="store_true", help="--server: every burst asks the first burst's questions")
    p.add_argument("--sessions", type=int, nargs="+",
                   help="--server: run once per Gradio session capacity given (AMBIGDEMO_SESSIONS), side by side")
    p.add_argument("--threads", action="store_true",
                   help="RSS of answers spread over 20 threads vs pinned to the app's worker threads, side by side")
    p.add_argument("--repeats", type=int, default=2, help="--threads: runs of each mode (default 2)")
    p.add_argument("--everyday", action="store_true", help="answer assets/everyday.json with the configured preset and reader")
    p.add_argument("--readings", nargs="*", metavar="SET",
                   help="readings sets (default: assets/readings-dev.json and readings-test.json) through the LLM "
                        "reader and the heuristic, side by side; --out writes the report")
    p.add_argument("--funnel", nargs="*", metavar="SET",
                   help="follow each gold answer of these sets (readings sets or an AmbigNQ file; default: the readings "
                        "dev and test sets) through the LLM reader's stages and count where each is lost")
    p.add_argument("--build", nargs="*", metavar="READER",
                   help="build each reader (default: the built-in ones; a GGUF file's path too) in a fresh process: wall "
                        "time, peak RSS and disk")
    p.add_argument("--readers", nargs="+", metavar="READER",
                   help="the answer benchmark of each reader side by side (built-in names, built GGUF readers)")
    p.add_argument("--out", help="--readings, --funnel: folder for metrics.json and metrics.md")
    p.add_argument("--index", action="store_true",
                   help="Ray build throughput (1 vs 2 workers) and flat/IVF-PQ/HNSW recall, memory, latency")
    p.add_argument("--vectors", type=int, default=1_000_000, help="--index: vectors searched (default 1M)")
    p.add_argument("--queries", type=int, default=1000, help="--index: question vectors searched (default 1000)")
    p.add_argument("--build-passages", type=int, default=1000, help="--index: passages embedded per build (default 1000)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--threads-worker", choices=("unpinned", "pinned"), help=argparse.SUPPRESS)
    p.add_argument("--no-generator", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--reader", default="llm", help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.worker:
        from ambigdemo.bench.answers import worker

        print(json.dumps(worker(args.n, not args.no_generator, args.reader)))
        return 0
    if args.threads_worker:
        from ambigdemo.bench.threads import threads_worker

        print(json.dumps(threads_worker(args.n, args.threads_worker == "pinned")))
        return 0
    if args.threads:
        from ambigdemo.bench.threads import run_threads

        report = run_threads(args.n, args.repeats)
    elif args.index:
        from ambigdemo.bench.index import run as run_index

        report = run_index(args.vectors, args.queries, args.build_passages, args.cold_runs)
    elif args.build is not None:
        from ambigdemo.bench.build import run as run_build

        try:
            report = run_build(args.build)
        except (ValueError, RuntimeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    elif args.readers:
        from ambigdemo.bench.answers import run_readers

        try:
            report = run_readers(args.readers, args.n, args.cold_runs)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    elif args.readings is not None:
        return _readings(args)
    elif args.funnel is not None:
        return _funnel(args)
    elif args.everyday:
        from ambigdemo.bench.everyday import everyday

        report = everyday()
    elif args.server:
        from ambigdemo.bench.server import run as run_server

        if args.sessions:
            report = {f"sessions_{n}": run_server(args.bursts, args.users, env={"AMBIGDEMO_SESSIONS": str(n)}, same=args.same)
                      for n in args.sessions}
        else:
            report = run_server(args.bursts, args.users, same=args.same)
    elif args.judgments:
        from ambigdemo.bench.judgments import run as run_judgments

        report = run_judgments()
    else:
        from ambigdemo.bench.answers import run as run_bench

        report = run_bench(args.n, args.cold_runs, compare=not args.no_compare)
    print(json.dumps(report, indent=2) if args.json else _table(report))
    return 0


def _readings(args: argparse.Namespace) -> int:
    from ambigdemo.evaluation import readings

    return _report(args, args.readings, readings.run, readings.markdown, "summary")


def _funnel(args: argparse.Namespace) -> int:
    from ambigdemo.evaluation import funnel

    return _report(args, args.funnel, funnel.run, funnel.markdown, "totals")


def _report(args: argparse.Namespace, names: list[str], measure, markdown, summary: str) -> int:
    """``measure`` the given sets (default: the readings dev and test sets) with the configured pipeline,
    print the table (``--json``: the ``summary`` part) and write both to ``--out``."""
    from pathlib import Path

    from ambigdemo.config import ROOT, Config
    from ambigdemo.files import replace_text
    from ambigdemo.pipeline import Pipeline

    paths = [Path(p) for p in names] or [ROOT / "assets" / f"readings-{name}.json" for name in ("dev", "test")]
    sets = {p.stem.removeprefix("readings-"): p for p in paths}
    report = measure(Pipeline.load(Config.from_env()), sets)
    text = markdown(report)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        replace_text(out / "metrics.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        replace_text(out / "metrics.md", text + "\n")
    print(json.dumps(report[summary], indent=2) if args.json else text)
    return 0


def _table(report: dict, prefix: str = "") -> str:
    lines = []
    for key, value in report.items():
        if isinstance(value, dict):
            lines.append(_table(value, f"{prefix}{key}."))
        else:
            lines.append(f"{prefix}{key}: {round(value, 3) if isinstance(value, float) else value}")
    return "\n".join(lines)
