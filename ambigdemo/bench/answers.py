"""The answer benchmark (``bench``): latency per stage, cold start, peak memory, ONNX vs PyTorch.

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


def worker(n: int, use_generator: bool, reader: str = "llm", rss_every: int = 10) -> dict:
    """In a fresh process: load, answer ``n`` questions, report timings, peak RSS and the RSS after loading
    (``questions`` 0) and after every ``rss_every`` questions."""
    start = time.perf_counter()
    from ambigdemo.config import Config
    from ambigdemo.pipeline import Pipeline

    pipeline = Pipeline.load(Config.from_env(use_generator=use_generator, reader=reader))
    cold = time.perf_counter() - start
    results, rss_after = [], [{"questions": 0, "rss_mb": current_rss_mb()}]
    for k, question in enumerate(bench_questions(n), 1):
        results.append(pipeline.ask(question))
        if k % rss_every == 0:
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
        "reader_model": pipeline.reader_model,
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


def run_worker(n: int, use_generator: bool, reader: str = "llm", reader_model: str = "") -> dict:
    """``worker`` in a fresh process (``reader_model``: the reader it loads, else the configured one)."""
    cmd = [sys.executable, "-m", "ambigdemo", "bench", "--worker", "-n", str(n), "--reader", reader]
    cmd += [] if use_generator else ["--no-generator"]
    env = {**os.environ, "AMBIGDEMO_READER_MODEL": reader_model} if reader_model else None
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def summarize_runs(runs: list[dict]) -> dict:
    stages = sorted({k for r in runs for k in r})
    return {
        k: {"p50_ms": percentile([r[k] for r in runs if k in r], 0.5), "p95_ms": percentile([r[k] for r in runs if k in r], 0.95)}
        for k in stages
    }


def run_readers(readers: list[str], n: int = 50, cold_runs: int = 3) -> dict:
    """The answer benchmark of each reader (a built-in name or a built GGUF reader), side by side: rounds of one
    fresh process per reader, so a slower minute of a shared machine falls on every reader alike; medians."""
    rounds = []
    for _ in range(cold_runs):
        rounds.append({reader: run_worker(n, use_generator=True, reader_model=reader) for reader in readers})
        fell_back = sorted(r for r, w in rounds[-1].items() if w["reader_model"] != r)
        if fell_back:  # the pipeline answered with the fallback reader: its figures are not this reader's
            raise ValueError(f"not built: {', '.join(fell_back)} (build first: python -m ambigdemo build --reader-model READER)")
    report = {"questions": n, "readers": {}}
    for reader in readers:
        workers = [r[reader] for r in rounds]
        report["readers"][reader] = {
            "stages": summarize_runs([r for w in workers for r in w["runs"]]),
            "cold_start_s": statistics.median(w["cold_start_s"] for w in workers),
            "peak_rss_mb": max(w["peak_rss_mb"] for w in workers),
            "answered_share": sum(workers[0]["answered"]) / n,
        }
    return report


def onnx_vs_torch(repeats: int = 3, queries: int = 30, new_tokens: int = 32) -> dict:
    """Same inputs through ONNX Runtime (as shipped: int8 embedder, int4 generator) and PyTorch (fp32), in turn."""
    import torch
    from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer

    from ambigdemo.presets.artifacts import HF_EMBEDDER_DIR, TOKENIZER_PACKAGE, PresetPaths
    from ambigdemo.building.embedded import generator_gguf
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


def share(values: list[str], wanted: str) -> float:
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
        "generated_paragraph_share": share(workers[0]["paragraph_sources"], "generated"),
    }
    if compare:
        report["onnx_vs_torch"] = onnx_vs_torch()
    return report
