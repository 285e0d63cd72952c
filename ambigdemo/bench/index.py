"""``python -m ambigdemo bench --index``: build throughput on Ray (1 vs 2 workers) and index types at scale.

* **build**: the same passages embedded by :func:`ambigdemo.building.distributed.embed_shards` with 1
  and with 2 Ray actors (one CPU each), alternated ``repeats`` times in one local Ray, beside one
  in-process embedder using every core; passages/s, median over the repeats.
* **search**: ``vectors`` unit vectors made from the embedded index's real passage vectors, each
  copied with Gaussian noise (so near neighbours are hard to tell apart), searched with real
  question vectors (the app's examples, then NQ-open dev questions). Exact top-100 from the flat index is
  the reference; per index type: recall@10 and @100 of those vectors and of the passages behind
  them, bytes, build seconds, single-query p50 ms.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import faiss
import numpy as np

from ambigdemo.runtimes.index import make_vectors

NOISE = 0.03  # per-dimension std of the copies' noise; unit vectors have ~0.05 per dimension
SEARCH_SETTINGS = {"ivfpq": ("nprobe", (16, 64, 250)), "hnsw": ("efSearch", (64, 128, 256, 512))}


def synthetic_vectors(base: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """``n`` unit vectors: the rows of ``base`` repeated, each copy with Gaussian noise, renormalised."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, base.shape[1]), dtype=np.float32)
    for start in range(0, n, 100_000):
        rows = base[np.arange(start, min(start + 100_000, n)) % len(base)]
        block = rows + rng.normal(0, NOISE, rows.shape).astype(np.float32)
        out[start : start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def recall(found: np.ndarray, exact: np.ndarray, k: int, passages: int = 0) -> float:
    """Mean share of the exact top-``k`` that the approximate top-``k`` holds; with ``passages``, of the
    distinct passages behind them (vector i is a copy of passage i mod ``passages``): whether the
    index finds the right texts, whichever noisy copy it returns."""
    if passages:
        found, exact = found % passages, exact % passages
    return float(np.mean([len(set(f[:k]) & set(e[:k])) / len(set(e[:k])) for f, e in zip(found, exact)]))


def query_p50_ms(index: faiss.Index, queries: np.ndarray, k: int = 10) -> float:
    times = []
    for q in queries[:200]:
        start = time.perf_counter()
        index.search(q[None, :], k)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def search_table(base: np.ndarray, queries: np.ndarray, n: int) -> dict:
    vectors = synthetic_vectors(base, n)
    report: dict = {"vectors": n, "dim": int(vectors.shape[1]), "queries": len(queries), "noise": NOISE}
    exact_ids = None
    for kind in ("flat", "ivfpq", "hnsw"):
        start = time.perf_counter()
        index = make_vectors(vectors, kind)
        built = time.perf_counter() - start
        row = {"bytes": len(faiss.serialize_index(index)), "build_s": round(built, 1)}
        if kind == "flat":
            exact_ids = index.search(queries, 100)[1]
            row |= {"recall@10": 1.0, "recall@100": 1.0, "passage_recall@10": 1.0, "passage_recall@100": 1.0,
                    "query_p50_ms": round(query_p50_ms(index, queries), 2)}
            report[kind] = row
            continue
        name, values = SEARCH_SETTINGS[kind]
        target = faiss.extract_index_ivf(index) if kind == "ivfpq" else index.hnsw
        default = getattr(target, name)
        for value in sorted(set(values) | {default}):
            setattr(target, name, value)
            ids = index.search(queries, 100)[1]
            row[f"{name}={value}" + (" (default)" if value == default else "")] = {
                "recall@10": round(recall(ids, exact_ids, 10), 3),
                "recall@100": round(recall(ids, exact_ids, 100), 3),
                "passage_recall@10": round(recall(ids, exact_ids, 10, len(base)), 3),
                "passage_recall@100": round(recall(ids, exact_ids, 100, len(base)), 3),
                "query_p50_ms": round(query_p50_ms(index, queries), 2),
            }
        report[kind] = row
        del index
    return report


def build_table(passages: int = 1000, shard_rows: int = 125, repeats: int = 3) -> dict:
    """Ray build throughput with 1 and 2 workers (alternated, one Ray), beside one in-process embedder."""
    import ray

    from ambigdemo.presets.artifacts import EMBEDDER_ID
    from ambigdemo.building.distributed import embed_shards, plan_shards
    from ambigdemo.presets.indexing import passage_text
    from ambigdemo.config import Config
    from ambigdemo.corpus import read_passages
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    paths = Config.from_env().preset_dir
    rows = []
    with open(paths / "index" / "passages.jsonl", encoding="utf-8") as fh:
        for _, line in zip(range(passages), fh):
            rows.append(line)
    times: dict[str, list[float]] = {"ray_1_worker": [], "ray_2_workers": [], "in_process_all_cores": []}
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "passages.jsonl"
        source.write_text("".join(rows), encoding="utf-8")
        texts = [passage_text(p) for p in read_passages(source)]
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
        try:
            for repeat in range(repeats):
                for workers in (1, 2):
                    work = Path(tmp) / f"w{workers}-{repeat}" / ".work"
                    plan = plan_shards(source, work, EMBEDDER_ID, shard_rows)
                    start = time.perf_counter()
                    embed_shards(plan, work, paths / "embedder", workers, None, progress=False)
                    times["ray_1_worker" if workers == 1 else "ray_2_workers"].append(time.perf_counter() - start)
                embedder = OnnxEmbedder(paths / "embedder")
                start = time.perf_counter()
                embedder.encode_passages(texts)
                times["in_process_all_cores"].append(time.perf_counter() - start)
        finally:
            ray.shutdown()
    report: dict = {"passages": len(rows), "shard_rows": shard_rows, "repeats": repeats}
    for name, values in times.items():
        report[name] = {"passages_per_s": round(len(rows) / statistics.median(values), 1), "runs_s": [round(v, 1) for v in values]}
    report["ratio_2_vs_1_workers"] = round(report["ray_2_workers"]["passages_per_s"] / report["ray_1_worker"]["passages_per_s"], 2)
    return report


def question_vectors(limit: int = 1000) -> np.ndarray:
    """Real question vectors from the configured preset's embedder: the examples, then NQ-open dev."""
    from ambigdemo.bench.answers import bench_questions
    from ambigdemo.config import Config
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    return OnnxEmbedder(Config.from_env().preset_dir / "embedder").encode_query(bench_questions(limit))


def run(vectors: int = 1_000_000, queries: int = 1000, build_passages: int = 1000, repeats: int = 3) -> dict:
    from ambigdemo.config import Config
    from ambigdemo.runtimes.index import PassageIndex

    index = PassageIndex.load(Config.from_env().preset_dir / "index")
    base = index.vectors.reconstruct_n(0, index.vectors.ntotal)
    return {
        "build": build_table(build_passages, repeats=repeats),
        "search": search_table(base, question_vectors(queries), vectors),
    }
