"""Index builds at scale on Ray Data: split, embed shards on ONNX actors, merge into one FAISS index.

1. **split** (driver, streaming): the passages (DPR TSV, JSONL or Parquet with ``id``, ``text``,
   ``title``) are checked (line-numbered errors, unique ids) and cut into Parquet shards of
   ``shard_rows`` under ``OUT/.work/``; ``plan.json``, written last, records the input's sha256, the
   embedder and the shards. A plan that matches is reused, so an interrupted build never re-splits.
2. **embed** (Ray Data): the shards not yet embedded become a dataset of shard paths;
   ``map_batches(ShardEmbedder, concurrency=workers)`` runs one ONNX embedder per actor (one CPU
   each), and each actor returns a whole shard's vectors. The driver saves them as
   ``vectors-NNNNN.npy`` (temporary name, then rename), after checking the row count. Ray restarts
   an actor whose process dies and retries its shard (Ray Data's default for actor pools), so a
   killed worker's shard is redone; a killed build resumes at its first unsaved shard.
3. **merge** (driver): shards in order -> ``passages.jsonl`` + ``index.faiss`` (flat, HNSW or
   IVF-PQ, see :func:`ambigdemo.runtimes.index.make_vectors`) + manifest, then the work folder goes.
   ``OUT/attempts.log`` stays: one line per shard attempt (started/done, node, process).

Locally ``ray.init()`` starts a private Ray on this machine; ``address`` joins a running cluster
(``ray start --head`` ...), whose nodes must all see ``OUT`` (a shared filesystem), as they would
for any Ray Data file source.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
from tqdm import tqdm

from ambigdemo.presets.indexing import passage_text
from ambigdemo.presets.steps import Step
from ambigdemo.corpus import read_passages
from ambigdemo.files import replace_text
from ambigdemo.runtimes.manifest import sha256
from ambigdemo.runtimes.index import write_index
from ambigdemo.types import Passage

SHARD_ROWS = 10_000
WORK = ".work"
PLAN = "plan.json"
ATTEMPTS = "attempts.log"


@dataclass(frozen=True)
class Plan:
    """What a build embeds: the input (by sha256), the embedder, and its shards in order."""

    source: str
    source_sha256: str
    embedder_id: str
    shard_rows: int
    shards: tuple[int, ...]  # rows per shard

    @property
    def rows(self) -> int:
        return sum(self.shards)


@dataclass(frozen=True)
class BuildReport:
    """What one run did: shards already done before it, shards it embedded, the merged index."""

    out: Path
    passages: int
    shards: int
    resumed: int
    embedded: int


def stream_passages(path: Path) -> Iterator[Passage]:
    """Passages from TSV/JSONL (:func:`ambigdemo.corpus.read_passages`) or Parquet (``id``, ``text``, ``title``)."""
    path = Path(path)
    if path.suffix != ".parquet":
        yield from read_passages(path)
        return
    import pyarrow.parquet as pq

    table = pq.ParquetFile(path)
    missing = {"id", "text"} - set(table.schema_arrow.names)
    if missing:
        raise ValueError(f"{path}: expected the columns id, text, title; missing {', '.join(sorted(missing))}")
    columns = [c for c in ("id", "text", "title") if c in table.schema_arrow.names]
    for batch in table.iter_batches(batch_size=4096, columns=columns):
        rows = batch.to_pydict()
        titles = rows.get("title") or [""] * len(rows["id"])
        for pid, text, title in zip(rows["id"], rows["text"], titles):
            yield Passage(id=str(pid), title=str(title or ""), text=str(text or ""))


def shard_path(work: Path, number: int, kind: str) -> Path:
    return work / (f"passages-{number:05d}.parquet" if kind == "passages" else f"vectors-{number:05d}.npy")


def plan_shards(source: Path, work: Path, embedder_id: str, shard_rows: int = SHARD_ROWS) -> Plan:
    """Split ``source`` into Parquet shards under ``work`` (reused when ``plan.json`` matches).

    ValueError names the file and line of malformed input, a duplicate id, or an empty input.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = Path(source)
    digest = sha256(source)
    plan_file = work / PLAN
    try:
        data = json.loads(plan_file.read_text())
        old = Plan(**{**data, "shards": tuple(data["shards"])})
        if (old.source_sha256, old.embedder_id, old.shard_rows) == (digest, embedder_id, shard_rows):
            return old
    except (OSError, ValueError, TypeError, KeyError):
        pass  # no plan yet, or one cut short: split again
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work.parent / ATTEMPTS).unlink(missing_ok=True)
    seen: set[str] = set()
    shards: list[int] = []
    batch: list[Passage] = []

    def flush() -> None:
        table = pa.table({"id": [p.id for p in batch], "title": [p.title for p in batch], "text": [p.text for p in batch]})
        path = shard_path(work, len(shards), "passages")
        pq.write_table(table, path.with_suffix(".tmp"))
        os.replace(path.with_suffix(".tmp"), path)
        shards.append(len(batch))
        batch.clear()

    for p in stream_passages(source):
        if p.id in seen:
            raise ValueError(f"{source}: passage id {p.id!r} appears more than once; ids must be unique")
        seen.add(p.id)
        batch.append(p)
        if len(batch) == shard_rows:
            flush()
    if batch:
        flush()
    if not shards:
        raise ValueError(f"{source}: no passages found")
    plan = Plan(f"{source.name} ({source.stat().st_size} bytes)", digest, embedder_id, shard_rows, tuple(shards))
    replace_text(plan_file, json.dumps(asdict(plan), indent=1))
    return plan


class ShardEmbedder:
    """A Ray Data actor: one ONNX embedder, loaded once; each call embeds whole shards.

    Each shard it starts and finishes is a line in ``attempts.log`` (``started|done SHARD NODE PID``,
    appended whole), so a shard redone after a worker died shows as started twice.
    """

    def __init__(self, embedder_dir: str, attempts: str, threads: int = 1):
        import ray

        from ambigdemo.runtimes.onnx import OnnxEmbedder

        self.embedder = OnnxEmbedder(Path(embedder_dir), threads)
        self.attempts = attempts
        self.where = f"{ray.get_runtime_context().get_node_id()} {os.getpid()}"

    def _log(self, event: str, number: int) -> None:
        line = f"{event} {number} {self.where}\n"
        with open(self.attempts, "a", encoding="utf-8") as fh:
            fh.write(line)

    def __call__(self, batch: dict) -> dict:
        import pyarrow.parquet as pq

        numbers, rows, blobs = [], [], []
        for number, path in zip(batch["shard"], batch["path"]):
            self._log("started", int(number))
            table = pq.read_table(path, columns=["title", "text"]).to_pydict()
            texts = [passage_text(Passage("", t, x)) for t, x in zip(table["title"], table["text"])]
            vectors = self.embedder.encode_passages(texts).astype(np.float32)
            numbers.append(int(number))
            rows.append(len(vectors))
            blobs.append(vectors.tobytes())
            self._log("done", int(number))
        return {"shard": np.array(numbers), "rows": np.array(rows), "vectors": np.array(blobs, dtype=object),
                "dim": np.full(len(numbers), self.embedder.dim)}


def embed_shards(
    plan: Plan, work: Path, embedder_dir: Path, workers: int, address: str | None, progress: bool = True
) -> int:
    """Embed the shards of ``plan`` without saved vectors on Ray; returns how many it embedded."""
    import ray
    import ray.data

    _ray_logs_to_root()
    pending = [n for n in range(len(plan.shards)) if not _saved(work, n, plan.shards[n])]
    if not pending:
        return 0
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 **({} if address else {"num_cpus": max(workers, 1)}))
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.execution_options.preserve_order = False
        items = [{"shard": n, "path": str(shard_path(work, n, "passages").resolve())} for n in pending]
        ds = ray.data.from_items(items, override_num_blocks=len(items)).map_batches(
            ShardEmbedder,
            fn_constructor_kwargs={"embedder_dir": str(Path(embedder_dir).resolve()), "attempts": str((work.parent / ATTEMPTS).resolve())},
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=workers),
            num_cpus=1,
        )
        done = plan.rows - sum(plan.shards[n] for n in pending)
        bar = tqdm(total=plan.rows, initial=done, desc="embed shards", unit="passage", disable=not progress)
        embedded = 0
        for row in ds.iter_rows():
            number, rows = int(row["shard"]), int(row["rows"])
            if rows != plan.shards[number]:
                raise RuntimeError(f"shard {number}: {rows} vectors for {plan.shards[number]} passages")
            vectors = np.frombuffer(row["vectors"], dtype=np.float32).reshape(rows, int(row["dim"]))
            save_vectors(shard_path(work, number, "vectors"), vectors)
            embedded += 1
            bar.update(rows)
        bar.close()
        return embedded
    finally:
        if started_here:
            ray.shutdown()


def _ray_logs_to_root() -> None:
    """Ray's and Ray Data's console handlers write to the terminal; hand their records to the root
    logger instead (the build log during a :class:`~ambigdemo.presets.steps.Steps` step)."""
    for name in ("ray", "ray.data"):
        logger = logging.getLogger(name)
        for handler in [h for h in logger.handlers if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)]:
            logger.removeHandler(handler)
        logger.propagate = True


def save_vectors(path: Path, vectors: np.ndarray) -> None:
    """A shard's vectors, under a temporary name first: a file that exists is whole."""
    tmp = path.with_name(path.stem + ".tmp.npy")
    np.save(tmp, vectors)
    os.replace(tmp, path)


def _saved(work: Path, number: int, rows: int) -> bool:
    path = shard_path(work, number, "vectors")
    if not path.is_file():
        return False
    try:
        return np.load(path, mmap_mode="r").shape[0] == rows
    except (ValueError, OSError):
        return False


def merge(plan: Plan, work: Path, out: Path, index_type: str = "flat", progress: bool = True) -> int:
    """Shards in order -> one index folder (passages, FAISS vectors of ``index_type``, manifest)."""
    import pyarrow.parquet as pq

    passages: list[Passage] = []
    parts = []
    for number in tqdm(range(len(plan.shards)), desc="merge shards", unit="shard", disable=not progress):
        table = pq.read_table(shard_path(work, number, "passages")).to_pydict()
        passages += [Passage(i, t, x) for i, t, x in zip(table["id"], table["title"], table["text"])]
        parts.append(np.load(shard_path(work, number, "vectors")))
    vectors = np.concatenate(parts)
    write_index(out, passages, vectors, index_type=index_type, embedder=plan.embedder_id, source=plan.source,
                shards=len(plan.shards))
    return len(passages)


def build_index_distributed(
    source: Path, out: Path, embedder_dir: Path, embedder_id: str, *, workers: int = 2, address: str | None = None,
    shard_rows: int = SHARD_ROWS, index_type: str = "flat", progress: bool = True, say: Callable[[str], None] = print,
    step: Step = nullcontext,
) -> BuildReport:
    """Split, embed on Ray, merge, each inside ``step(name)``; rerun the same call to resume after a kill
    (``say`` tells how far it got)."""
    out = Path(out)
    work = out / WORK
    fresh = not out.exists()
    with step(f"split {Path(source).name} into shards of {shard_rows} passages"):
        try:
            plan = plan_shards(source, work, embedder_id, shard_rows)
        except ValueError:
            if fresh:
                shutil.rmtree(out, ignore_errors=True)
            raise
    saved = [n for n, rows in enumerate(plan.shards) if _saved(work, n, rows)]
    resumed = len(saved)
    if resumed:
        say(f"resuming: {resumed} of {len(plan.shards)} shards already embedded in {work}")
    left = plan.rows - sum(plan.shards[n] for n in saved)
    with step(f"embed {left} passages in {len(plan.shards) - resumed} shards on Ray"):
        embedded = embed_shards(plan, work, embedder_dir, workers, address, progress)
    with step(f"merge {len(plan.shards)} shards into one {index_type} index"):
        count = merge(plan, work, out, index_type, progress)
    shutil.rmtree(work, ignore_errors=True)
    return BuildReport(out, count, len(plan.shards), resumed, embedded)
