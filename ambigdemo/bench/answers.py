"""Benchmarks (not tests): latency per stage, cold start, peak memory, ONNX vs PyTorch.

``python -m ambigdemo bench --json`` runs every measurement in one process tree, so ratios are
measured side by side. Each cold-start worker is a fresh ``python`` that loads the cached
artifacts, answers the questions and reports its own timings and peak RSS.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ambigdemo.config import NQ_OPEN_DEV as NQ_DEV, ROOT



def bench_questions(n: int) -> list[str]:
    """The app's examples, then NQ-open dev questions (real search questions) up to ``n``."""
    questions = [e["question"] for e in json.loads((ROOT / "assets" / "examples.json").read_text())]
    if NQ_DEV.is_file():
        with open(NQ_DEV, encoding="utf-8") as fh:
            questions += [json.loads(line)["question"] + "?" for line in fh]
    return questions[:n]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def worker(n: int, use_generator: bool, reader: str = "llm") -> dict:
    """In a fresh process: load, answer ``n`` questions, report timings and peak RSS."""
    start = time.perf_counter()
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline

    pipeline = Pipeline.load(Config.from_env(use_generator=use_generator, reader=reader))
    cold = time.perf_counter() - start
    results, rss_after = [], []
    for k, question in enumerate(bench_questions(n), 1):
        results.append(pipeline.ask(question))
        if k % 10 == 0:
            rss_after.append({"questions": k, "rss_mb": current_rss_mb()})
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "cold_start_s": cold,
        "runs": [r.timings_ms for r in results],
        "paragraph_sources": [r.paragraph_source for r in results if r.answered],
        "answered": [r.answered for r in results],
        "peak_rss_mb": rss_mb,
        "rss_after": rss_after,
        "torch_loaded": "torch" in sys.modules,
    }


def current_rss_mb() -> float:
    """This process's resident memory now (Linux), to see whether it grows with the requests served."""
    return process_rss_mb(os.getpid())


def process_rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` (Linux ``VmRSS``) in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def run_worker(n: int, use_generator: bool, reader: str = "llm") -> dict:
    cmd = [sys.executable, "-m", "ambigdemo", "bench", "--worker", "-n", str(n), "--reader", reader]
    cmd += [] if use_generator else ["--no-generator"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def summarize_runs(runs: list[dict]) -> dict:
    stages = sorted({k for r in runs for k in r})
    return {
        k: {"p50_ms": percentile([r[k] for r in runs if k in r], 0.5), "p95_ms": percentile([r[k] for r in runs if k in r], 0.95)}
        for k in stages
    }


def onnx_vs_torch(repeats: int = 3, queries: int = 30, new_tokens: int = 32) -> dict:
    """Same inputs through ONNX Runtime (as shipped: int8 embedder, int4 generator) and PyTorch (fp32), in turn."""
    import torch
    from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer

    from ambigdemo.build.artifacts import HF_EMBEDDER_DIR, TOKENIZER_PACKAGE, PresetPaths, generator_gguf
    from ambigdemo.config import Config
    from ambigdemo.corpus import package_file
    from ambigdemo.runtimes.onnx import Message, OnnxChatGenerator, OnnxEmbedder

    models_dir = Config.from_env().models_dir
    paths = PresetPaths(models_dir / "embedded")
    texts = bench_questions(queries)
    onnx_embed = OnnxEmbedder(paths.embedder)
    hf_dir = package_file(TOKENIZER_PACKAGE, f"{HF_EMBEDDER_DIR}/config.json").parent
    tok, model = AutoTokenizer.from_pretrained(hf_dir), AutoModel.from_pretrained(hf_dir).eval()

    def torch_embed():
        with torch.inference_mode():
            for t in texts:
                model(**tok([t], return_tensors="pt")).last_hidden_state.mean(1)

    def ort_embed():
        for t in texts:
            onnx_embed.encode([t])

    gguf = generator_gguf(models_dir / "cache")
    gtok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    gmodel = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name).eval()
    onnx_gen = OnnxChatGenerator(paths.generator)
    onnx_gen_eos = min(onnx_gen.eos_ids)
    prompt = onnx_gen.render([Message("user", "Write two sentences about the Eiffel Tower.")])
    ids = gtok(prompt, return_tensors="pt", add_special_tokens=False)

    def torch_gen():
        with torch.inference_mode():
            gmodel.generate(**ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False, eos_token_id=onnx_gen_eos, pad_token_id=onnx_gen_eos)

    def ort_gen():
        stream = onnx_gen.stream([Message("user", "Write two sentences about the Eiffel Tower.")], new_tokens)
        for _ in stream:
            pass

    timings: dict[str, list[float]] = {k: [] for k in ("embed_torch", "embed_onnx", "gen_torch", "gen_onnx")}
    nll = generator_nll(gmodel, onnx_gen)
    for _ in range(repeats):
        for name, fn in (("embed_torch", torch_embed), ("embed_onnx", ort_embed), ("gen_torch", torch_gen), ("gen_onnx", ort_gen)):
            t = time.perf_counter()
            fn()
            timings[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in timings.items()}
    return {
        "embed_ms_per_query": {"torch": 1000 * med["embed_torch"] / len(texts), "onnx": 1000 * med["embed_onnx"] / len(texts)},
        "embed_speedup": med["embed_torch"] / med["embed_onnx"],
        "gen_tokens_per_s": {"torch": new_tokens / med["gen_torch"], "onnx": new_tokens / med["gen_onnx"]},
        "gen_speedup": med["gen_torch"] / med["gen_onnx"],
        "gen_bandwidth": bandwidth_share(paths.generator / "model.onnx", new_tokens / med["gen_onnx"]),
        "gen_nll_per_token": nll,
        "repeats": repeats,
    }


def bandwidth_share(model: Path, tokens_per_s: float, size_mb: int = 512, repeats: int = 5) -> dict:
    """Decoding reads every weight once per token: weight bytes x tokens/s against the memory bandwidth
    measured here (the median of ``repeats`` copies of a ``size_mb`` buffer, read and written)."""
    import numpy as np

    src = np.ones(size_mb * 2**20 // 8)
    dst = np.empty_like(src)
    seconds = []
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(dst, src)
        seconds.append(time.perf_counter() - t)
    bandwidth = 2 * src.nbytes / statistics.median(seconds)
    weights = model.stat().st_size
    return {
        "weights_mb": weights / 2**20,
        "measured_bandwidth_gb_s": bandwidth / 1e9,
        "ceiling_tokens_per_s": bandwidth / weights,
        "share_of_ceiling": tokens_per_s * weights / bandwidth,
    }


def generator_nll(torch_model, onnx_gen, passages: int = 20) -> dict:
    """Mean token NLL of Wikipedia passages under PyTorch (fp32) and ONNX (as shipped): what quantization costs."""
    import torch

    from ambigdemo.corpus import PassageSource
    from ambigdemo.runtimes.onnx import Message

    texts = [p.text for p in PassageSource().read()[:passages]]
    prompt = [Message("user", "Tell me about a topic.")]
    head = onnx_gen.tokenizer.encode(onnx_gen.render(prompt), add_special_tokens=False).ids
    torch_nll = []
    with torch.inference_mode():
        for text in texts:
            body = onnx_gen.tokenizer.encode(text, add_special_tokens=False).ids
            labels = torch.tensor([[-100] * len(head) + body])
            torch_nll.append(float(torch_model(input_ids=torch.tensor([head + body]), labels=labels).loss))
    return {
        "torch": statistics.mean(torch_nll),
        "onnx": statistics.mean(onnx_gen.score(prompt, t) for t in texts),
        "passages": len(texts),
    }


def _share(values: list[str], wanted: str) -> float:
    return sum(v == wanted for v in values) / len(values) if values else 0.0


def run(n: int = 50, cold_runs: int = 3, compare: bool = True) -> dict:
    """Every figure of the README's table; medians over ``cold_runs`` fresh processes."""
    workers = [run_worker(n, use_generator=True) for _ in range(cold_runs)]
    evidence_only = run_worker(n, use_generator=False, reader="heuristic")
    runs = [r for w in workers for r in w["runs"]]
    answered = [r for w in workers for r, ok in zip(w["runs"], w["answered"]) if ok]
    report = {
        "questions": n,
        "stages": summarize_runs(runs),
        "stages_answered": summarize_runs(answered),
        "stages_heuristic_no_generator": summarize_runs(evidence_only["runs"]),
        "cold_start_s": statistics.median(w["cold_start_s"] for w in workers),
        "peak_rss_mb": max(w["peak_rss_mb"] for w in workers),
        "rss_after_questions": workers[0]["rss_after"],
        "torch_on_answer_path": any(w["torch_loaded"] for w in workers),
        "answered_share": sum(workers[0]["answered"]) / n,
        "generated_paragraph_share": _share(workers[0]["paragraph_sources"], "generated"),
    }
    if compare:
        report["onnx_vs_torch"] = onnx_vs_torch()
    return report


def everyday(path: Path = ROOT / "assets" / "everyday.json") -> dict:
    """The everyday questions (assets/everyday.json) through the configured pipeline: how many get their
    answer first, how many get exactly the gold readings, and how fast, with the paragraphs' sources."""
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.text import mentions

    def right(predicted: str, aliases: list[str]) -> bool:
        return any(mentions(predicted, a) or mentions(a, predicted) for a in aliases)

    pipeline = Pipeline.load(Config.from_env())
    items = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for item in items:
        result = pipeline.ask(item["question"])
        answers, gold = [i.answer for i in result.interpretations], item["answers"]
        first = bool(answers) and right(answers[0], [a for reading in gold for a in reading]) if gold else not answers
        exact = all(any(right(p, g) for p in answers) for g in gold) and all(any(right(p, g) for g in gold) for p in answers)
        rows.append({"question": item["question"], "answers": answers, "first_right": first, "exact": exact and (bool(gold) or not answers),
                     "paragraph_source": result.paragraph_source, "timings_ms": result.timings_ms})
    answered = [r for r in rows if r["answers"]]
    return {
        "preset": pipeline.config.preset,
        "reader": pipeline.config.reader,
        "questions": len(rows),
        "first_right": sum(r["first_right"] for r in rows),
        "exact_readings": sum(r["exact"] for r in rows),
        "generated_paragraph_share": _share([r["paragraph_source"] for r in answered], "generated"),
        "stages": summarize_runs([r["timings_ms"] for r in rows]),
        "rows": rows,
    }


def threads_worker(n: int, pinned: bool, callers: int = 20, concurrency: int = 2) -> dict:
    """In a fresh process: ``n`` questions from ``callers`` threads, ``concurrency`` at a time.

    Unpinned, each answer runs on the calling thread, as Gradio runs handlers on its worker threads;
    pinned, the callers hand it to the app's ``Workers(concurrency)``. RSS is read every 20 answers.
    """
    import queue
    import threading

    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.ui.workers import Workers

    pipeline = Pipeline.load(Config.from_env())
    workers = Workers(concurrency)
    gate = threading.Semaphore(concurrency)
    inboxes = [queue.Queue() for _ in range(callers)]
    done: queue.Queue = queue.Queue()

    def caller(inbox: queue.Queue) -> None:
        while (question := inbox.get()) is not None:
            with gate:
                workers.call(pipeline.ask, question) if pinned else pipeline.ask(question)
            done.put(question)

    threads = [threading.Thread(target=caller, args=(box,), daemon=True) for box in inboxes]
    for t in threads:
        t.start()
    for k, question in enumerate(bench_questions(n)):
        inboxes[k % callers].put(question)
    rss = [{"questions": 0, "rss_mb": round(current_rss_mb())}]
    for k in range(1, n + 1):
        done.get()
        if k % 20 == 0:
            rss.append({"questions": k, "rss_mb": round(current_rss_mb())})
    for box in inboxes:
        box.put(None)
    return {"pinned": pinned, "callers": callers, "concurrency": concurrency, "rss_after": rss}


def run_threads(n: int = 200, repeats: int = 2) -> dict:
    """Unpinned and pinned answers side by side, alternating, in fresh processes; growth after the first 20."""
    runs: dict[str, list[dict]] = {"unpinned": [], "pinned": []}
    for _ in range(repeats):
        for mode in runs:
            cmd = [sys.executable, "-m", "ambigdemo", "bench", "--threads-worker", mode, "-n", str(n)]
            out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
            runs[mode].append(json.loads(out.strip().splitlines()[-1]))

    def growth(run: dict) -> int:
        return run["rss_after"][-1]["rss_mb"] - run["rss_after"][1]["rss_mb"]

    return {
        "questions": n,
        **{f"{mode}_growth_mb_median": statistics.median(growth(r) for r in rs) for mode, rs in runs.items()},
        **{f"{mode}_final_mb_median": statistics.median(r["rss_after"][-1]["rss_mb"] for r in rs) for mode, rs in runs.items()},
        "runs": runs,
    }
