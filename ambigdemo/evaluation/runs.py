"""Evaluation runs (``python -m ambigdemo evaluate``): a system over a gold file, cache its predictions, score them with ``score``.

Tasks: ``ambigqa`` (every answer with a rewrite), ``qd-gold`` (AmbigQA's question disambiguation
with the gold answers given: the questions with a multipleQAs annotation, the answers of the first
one go in, one rewrite per answer comes out), ``multi-answer`` (answers only, on the multi-answer
questions the embedded corpus supports: :mod:`ambigdemo.evaluation.support`; their ids go to ``subset.txt``)
``paragraph-gold`` (ASQA's long answer from qd-gold's inputs: the gold rewrites and answers, with
passages retrieved for each; scored by STR-EM and citation checks) and ``nq-open`` (one answer,
exact match). ``--subset FILE`` keeps only the ids listed in FILE (one per line). Systems: ``pipeline``
(the configured reader, the LLM by default), ``heuristic`` (the same pipeline with the spaCy-rule reader); for qd-gold ``copy`` (every
rewrite is the prompt question); for multi-answer ``threshold`` (the reader's answers above one
score threshold, tuned on AmbigNQ train's supported subset, as in the AmbigQA paper's baseline),
and two upper bounds that read the gold: ``ceiling`` (every gold answer found, whole words after
SQuAD normalisation, in the passages the LLM reader reads: a perfect reader of them) and
``ceiling-top-k`` (the same over all ``top_k`` retrieved passages).

Each system's predictions are appended to ``DIR/cache[.SYSTEM].jsonl`` as they are made, with the
commit that made them, so a rerun of the same code skips the ids already there (a half-written last
line is dropped) and a rerun of other code predicts them again. Then DIR gets ``gold.json[l]``
(the records scored), ``predictions[.SYSTEM].json`` (official format), ``metrics.json``,
``metrics.md`` and ``f1_by_answers.png``; ``score --data DIR/gold.json --pred
DIR/predictions.json`` reproduces the scores in ``metrics.json``.
"""

from __future__ import annotations

import functools
import json
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Union

from ambigdemo.config import AMBIGNQ_TRAIN as TRAIN
from ambigdemo.files import replace_text
from ambigdemo.evaluation.gold import disambiguate, summarize_gold
from ambigdemo.evaluation.metrics import score_files

if TYPE_CHECKING:
    from ambigdemo.config import Config
    from ambigdemo.evaluation.datasets import AmbigExample
    from ambigdemo.evaluation.fluency import Rewrite
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.runtimes.onnx import Generator

TASKS = ("ambigqa", "qd-gold", "multi-answer", "paragraph-gold", "nq-open")
SYSTEMS = ("pipeline", "heuristic", "copy", "threshold", "ceiling", "ceiling-top-k")
ONLY = {"copy": "qd-gold", "threshold": "multi-answer", "ceiling": "multi-answer", "ceiling-top-k": "multi-answer"}
SUBSET = "subset.txt"
ALSO = "also"  # a multi-answer record's source for an answer shown "also in the passages"
PLOT = "f1_by_answers.png"
MAX_BUCKET = 5
AMBIG_METRICS = {"f1_ans": "F1 answer", "f1_bleu": "F1 BLEU-4", "f1_edit_f1": "F1 EDIT-F1"}
NQ_METRICS = {"em": "exact match"}
Prediction = Union[list[dict[str, str]], str]


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Item:
    """One question to predict: its id and text, the gold answers given (qd-gold only) and its
    number of gold answers (the plot's buckets): NQ-open's answer strings, AmbigNQ's pairs in the
    first multipleQAs annotation (1 when every annotation is a single answer). ``pairs``: that
    annotation's (rewrite, aliases), the inputs of paragraph-gold."""

    id: str
    question: str
    answers: list[str]
    n_gold: int
    pairs: list[tuple[str, list[str]]] = field(default_factory=list)


@dataclass(frozen=True)
class Record:
    """One line of the prediction cache: the prediction in the official format, the source of
    each rewrite (``prompt``, ``modifier``, ``copy``...), the seconds it took and the commit of the
    code that made it (:func:`_commit`)."""

    id: str
    question: str
    prediction: Prediction
    sources: list[str]
    seconds: float
    checks: dict | None = None
    commit: str | None = None


@dataclass(frozen=True)
class Bucket:
    """The scores of the questions with ``answers`` gold answers ("5+": five or more), as ``score``
    reports them (for AmbigQA, ``f1_bleu`` and ``f1_edit_f1`` over the ``n_multi`` multi-answer ones)."""

    answers: str
    n: int
    n_multi: int
    scores: dict[str, float | None]


def score_task(task: str) -> str:
    """The ``score`` task that scores predictions of ``task``."""
    return "nq-open" if task == "nq-open" else "ambigqa"


# --------------------------------------------------------------------------- gold


def load_items(
    task: str, data: Path, limit: int | None, passages: Sequence | None = None, subset: Path | None = None
) -> tuple[list[Item], str]:
    """The questions of ``task`` in file order (the first ``limit``), and the gold file's text for them.

    The text keeps the original records (for NQ-open, the original line numbers, which are its ids),
    so ``score`` on it scores exactly these questions. ``multi-answer`` needs the corpus ``passages``;
    ``subset`` keeps only the ids it lists.
    """
    from ambigdemo.evaluation.datasets import DataError, load_ambignq, load_nq_open

    if task == "nq-open":
        examples = [e for e in load_nq_open(data) if _wanted(e.id, subset)][:limit]
        if not examples:
            raise DataError(f"{data}: no questions")
        items = [Item(e.id, e.question, [], len(e.answers)) for e in examples]
        lines = data.read_text(encoding="utf-8").splitlines()
        return items, "\n".join(lines[: int(examples[-1].id) + 1]) + "\n"
    examples = load_ambignq(data)
    indexed = [(i, e) for i, e in enumerate(examples) if _wanted(e.id, subset)]
    if task == "multi-answer":
        from ambigdemo.evaluation.support import SupportIndex, supported_subset

        ids = {s.id for s in supported_subset([e for _, e in indexed], SupportIndex(passages or []))}
        chosen = [(i, e) for i, e in indexed if e.id in ids][:limit]
    else:
        chosen = [(i, e) for i, e in indexed if task == "ambigqa" or _pairs(e)][:limit]
    if not chosen:
        what = {
            "ambigqa": "no questions",
            "qd-gold": "no question has a multipleQAs annotation (qd-gold needs gold answers)",
            "multi-answer": "no multi-answer question whose gold answers the corpus supports",
        }.get(task, "no question has a multipleQAs annotation (the task needs gold rewrites)")
        raise DataError(f"{data}: {what}{' among the ids of ' + str(subset) if subset else ''}")
    items = [_ambig_item(task, e) for _, e in chosen]
    records = json.loads(data.read_text(encoding="utf-8"))
    return items, json.dumps([records[i] for i, _ in chosen], ensure_ascii=False)


def _wanted(id_: str, subset: Path | None) -> bool:
    return subset is None or id_ in _subset_ids(subset)


@functools.cache
def _subset_ids(path: Path) -> frozenset[str]:
    """The ids listed in ``path``, one per line (DataError if unreadable)."""
    from ambigdemo.evaluation.datasets import DataError

    try:
        return frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read the subset's ids ({exc})") from None


def _pairs(example: AmbigExample) -> list:
    """The question-answer pairs of the first multipleQAs annotation, or []."""
    return next((a.qa_pairs for a in example.annotations if not a.is_single), [])


def _ambig_item(task: str, example: AmbigExample) -> Item:
    from ambigdemo.evaluation.metrics import gold_alternatives

    pairs = _pairs(example)
    answers = [p.answers[0] for p in pairs] if task == "qd-gold" else []
    inputs = [(gold_alternatives(p.question)[0], p.answers) for p in pairs] if task != "ambigqa" else []
    return Item(example.id, example.question, answers, len(pairs) or 1, inputs)


# --------------------------------------------------------------------------- cache


def read_cache(path: Path, questions: dict[str, str], commit: str | None = None) -> dict[str, Record]:
    """Records cached at ``path`` by ``commit`` for the ids in ``questions``; drops a half-written last line.

    DataError when a complete line is not a record or was made for another question.
    """
    from ambigdemo.evaluation.datasets import DataError

    if not path.exists():
        return {}
    raw = path.read_bytes()
    end = raw.rfind(b"\n") + 1
    if end < len(raw):
        with path.open("r+b") as f:
            f.truncate(end)
    records: dict[str, Record] = {}
    for n, line in enumerate(raw[:end].decode("utf-8").splitlines(), 1):
        try:
            record = Record(**json.loads(line))
        except (json.JSONDecodeError, TypeError) as exc:
            raise DataError(f"{path}: line {n}: not a cached prediction ({exc}); delete the file to start over") from None
        if record.id in questions and questions[record.id] != record.question:
            raise DataError(
                f"{path}: line {n}: id {record.id} was asked {record.question!r}, the data asks "
                f"{questions[record.id]!r}; use another --out for other data"
            )
        if record.commit == commit:
            records[record.id] = record
    return {k: v for k, v in records.items() if k in questions}


def predict(task: str, system: str, item: Item, pipeline: Callable[[], Pipeline]) -> Record:
    """One system's prediction for one question, timed (``pipeline`` gives the system's pipeline)."""
    start = time.perf_counter()
    if task == "multi-answer":
        return _predict_answers(system, item, pipeline(), start)
    if task == "paragraph-gold":
        return _predict_paragraph(item, pipeline(), start)
    if system == "copy":
        interpretations = [(item.question, answer, "copy") for answer in item.answers]
    else:
        found = disambiguate(pipeline(), item.question, item.answers) if task == "qd-gold" else pipeline().ask(item.question).interpretations
        interpretations = [(i.question, i.answer, i.source) for i in found]
    if task == "nq-open":
        interpretations = interpretations[:1]
        prediction: Prediction = interpretations[0][1] if interpretations else ""
    else:
        prediction = [{"question": q, "answer": a} for q, a, _ in interpretations]
    sources = [s for _, _, s in interpretations]
    return Record(item.id, item.question, prediction, sources, round(time.perf_counter() - start, 4))


def _predict_answers(system: str, item: Item, pipeline: Pipeline, start: float) -> Record:
    """Answers only: the app's (one per interpretation shown, then its "also in the passages" answers, sourced
    :data:`ALSO`), the threshold baseline's reader answers, or a ceiling's gold answers found in the passages."""
    if system.startswith("ceiling"):
        from ambigdemo.stages.reader import relevant
        from ambigdemo.evaluation.support import SupportIndex

        config = pipeline.config
        passages = pipeline.retriever.search(item.question, config.top_k)
        reader = pipeline.reader
        if system == "ceiling" and reader is not None:  # the passages the reader reads
            passages = relevant(passages, reader.relevance, reader.min_score, reader.max_passages)
        elif system == "ceiling":
            passages = relevant(passages, config.reader_relevance, config.reader_min_score, config.reader_passages)
        index, every = SupportIndex(passages), list(range(len(passages)))
        answers = [aliases[0] for _, aliases in item.pairs if index.evidence(item.question, aliases, every)]
        sources = ["gold"] * len(answers)
    elif system == "threshold":
        passages = pipeline.retriever.search(item.question, pipeline.config.top_k)
        answers, sources = [a.text for a in pipeline.heuristic.find(item.question, passages)], ["reader"]
    else:
        result = pipeline.ask(item.question)
        answers = [i.answer for i in result.interpretations] + [a.answer for a in result.also]
        sources = [i.source for i in result.interpretations] + [ALSO] * len(result.also)
    return Record(item.id, item.question, answers, sources, round(time.perf_counter() - start, 4))


def _predict_paragraph(item: Item, pipeline: Pipeline, start: float) -> Record:
    """The paragraph for the gold rewrites and answers, with its citation checks and grounded answers."""
    from ambigdemo.stages.summarize import paragraph_checks

    answers = [aliases for _, aliases in item.pairs]
    result = summarize_gold(pipeline, item.question, [rewrite for rewrite, _ in item.pairs], answers)
    checks = dict(paragraph_checks(result.paragraph, answers, result.passages), grounded=len(result.interpretations), answers=len(answers))
    seconds = round(time.perf_counter() - start, 4)
    return Record(item.id, item.question, result.paragraph, [result.paragraph_source or "none"], seconds, checks)


def run_system(
    task: str, system: str, items: Sequence[Item], cache: Path, pipeline: Callable[[], Pipeline], progress: bool = True, commit: str | None = None
) -> list[Record]:
    """Every item's record, predicting (and appending to ``cache``) only those not cached by ``commit`` yet."""
    from tqdm import tqdm

    done = read_cache(cache, {i.id: i.question for i in items}, commit)
    todo = [i for i in items if i.id not in done]
    with cache.open("a", encoding="utf-8") as f, tqdm(
        total=len(items), initial=len(items) - len(todo), desc=f"{task} {system}", unit="q", disable=not progress
    ) as bar:
        for item in todo:
            done[item.id] = replace(predict(task, system, item, pipeline), commit=commit)
            f.write(json.dumps(asdict(done[item.id]), ensure_ascii=False) + "\n")
            f.flush()
            bar.update()
    return [done[i.id] for i in items]


# --------------------------------------------------------------------------- evaluate


def evaluate(
    task: str,
    data: Path,
    out: Path,
    config: Config,
    pipeline: Callable[[], Pipeline],
    systems: Sequence[str] = ("pipeline",),
    limit: int | None = None,
    progress: bool = True,
    train: Path = TRAIN,
    subset: Path | None = None,
    judge: Callable[[], Generator] | None = None,
) -> dict:
    """Run, score and report every system; returns what ``metrics.json`` holds.

    ``pipeline`` is called (and should cache its result) only when a prediction is not cached yet;
    ``train`` tunes the ``threshold`` system; ``subset`` lists the ids to keep; ``judge`` gives the
    language model of qd-gold's fluency report (``fluency.md``; without one, form checks only).
    """
    from ambigdemo.evaluation.fluency import fluency_markdown, fluency_report

    commit = _commit()
    passages = pipeline().retriever.index.passages if task == "multi-answer" else None
    items, gold_text = load_items(task, data, limit, passages, subset)
    out.mkdir(parents=True, exist_ok=True)
    gold = out / ("gold.jsonl" if task == "nq-open" else "gold.json")
    replace_text(gold, gold_text)
    if task == "multi-answer":
        replace_text(out / SUBSET, "".join(f"{i.id}\n" for i in items))
    reports = {}
    for system in systems:
        suffix = "" if system == "pipeline" else f".{system}"
        extra, factory = {}, pipeline
        if system == "threshold":
            factory, extra["threshold"] = _threshold_system(pipeline, train)
        elif system == "heuristic":
            factory = functools.cache(lambda: pipeline().with_options(reader="heuristic"))
        records = run_system(task, system, items, out / f"cache{suffix}.jsonl", factory, progress, commit)
        for name, tier in tiers(task, system, records).items():
            reports[name] = _system_report(task, name, items, tier, gold, out, extra)
            if task == "qd-gold":
                reports[name]["fluency"] = fluency_report(_rewrites(items, tier), judge() if judge else None)
    report = {
        "task": task,
        "data": str(data),
        "limit": limit,
        "n": len(items),
        "mean_gold_answers": round(sum(i.n_gold for i in items) / len(items), 4),
        "gold": gold.name,
        "commit": commit,
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items() if k != "admin_token"},
        "systems": reports,
    }
    replace_text(out / "metrics.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    replace_text(out / "metrics.md", markdown(report))
    if task != "paragraph-gold":
        plot(report, out / PLOT)
    if task == "qd-gold":
        replace_text(out / "fluency.md", "\n".join(fluency_markdown(name, r["fluency"]) for name, r in reports.items()))
    return report


def tiers(task: str, system: str, records: list[Record]) -> dict[str, list[Record]]:
    """The records scored under each name: for multi-answer, ``system`` scores its readings only and
    ``system+also`` its readings with the "also in the passages" answers (``_predict_answers`` keeps both)."""
    if task != "multi-answer" or not any(ALSO in r.sources for r in records):
        return {system: list(records)}

    def readings_only(r: Record) -> Record:
        kept = [(a, s) for a, s in zip(r.prediction, r.sources) if s != ALSO]
        return replace(r, prediction=[a for a, _ in kept], sources=[s for _, s in kept])
    return {system: [readings_only(r) for r in records], f"{system}+also": list(records)}


def _system_report(task: str, name: str, items: Sequence[Item], records: list[Record], gold: Path, out: Path, extra: dict) -> dict:
    """One system's predictions file (``predictions[.NAME].json``) and its scores."""
    suffix = "" if name == "pipeline" else f".{name}"
    predictions = out / f"predictions{suffix}.json"
    replace_text(predictions, json.dumps({r.id: r.prediction for r in records}, ensure_ascii=False))
    long_form = task == "paragraph-gold"
    return {
        "predictions": predictions.name,
        "scores": paragraph_scores(items, records) if long_form else score_files(score_task(task), str(gold), str(predictions)),
        "by_answers": [] if long_form else [asdict(b) for b in buckets(task, items, gold, predictions)],
        "sources": dict(Counter(s for r in records for s in r.sources).most_common()),
        "seconds_per_question": round(sum(r.seconds for r in records) / len(records), 4),
        "mean_answers": round(sum(_n_answers(r.prediction) for r in records) / len(records), 4),
        "score_command": f"python -m ambigdemo score --task {score_task(task)} --data {gold} --pred {predictions} --json",
        **extra,
    }


def _rewrites(items: Sequence[Item], records: Sequence[Record]) -> list[Rewrite]:
    """Each predicted rewrite beside the gold rewrite of the same answer (predictions keep the given order)."""
    from ambigdemo.evaluation.fluency import Rewrite

    return [
        Rewrite(item.question, predicted["question"], gold)
        for item, record in zip(items, records)
        for predicted, (gold, _) in zip(record.prediction, item.pairs)
    ]


def paragraph_scores(items: Sequence[Item], records: Sequence[Record]) -> dict:
    """paragraph-gold: mean STR-EM against every gold answer, the share of gold answers the passages
    ground, of sentences that cite, of paragraphs citing in every sentence, and uncited statements."""
    from ambigdemo.evaluation.metrics import str_em

    checks = [r.checks or {} for r in records]
    sentences = sum(c.get("sentences", 0) for c in checks)
    return {
        "str_em": sum(str_em([a for _, a in i.pairs], r.prediction) for i, r in zip(items, records)) / len(items),
        "grounded": sum(c.get("grounded", 0) for c in checks) / max(1, sum(c.get("answers", 0) for c in checks)),
        "cited_sentences": sum(c.get("cited", 0) for c in checks) / max(1, sentences),
        "all_cited": sum(c.get("cited", 0) == c.get("sentences", 0) for c in checks) / len(items),
        "uncited_answers": sum(c.get("uncited_answers", 0) for c in checks),
        "n": len(items),
    }


def _threshold_system(pipeline: Callable[[], Pipeline], train: Path) -> tuple[Callable[[], Pipeline], dict]:
    """The threshold baseline's pipeline (its heuristic tuned on ``train`` now) and the tuning record."""
    from ambigdemo.evaluation.tuning import threshold_baseline

    base = pipeline()
    heuristic, record = threshold_baseline(base.retriever, base.heuristic, train, base.config.top_k)
    tuned = replace(base, heuristic=heuristic)
    return lambda: tuned, record


def _n_answers(prediction: Prediction) -> int:
    return 1 if isinstance(prediction, str) else len(prediction)


def buckets(task: str, items: Sequence[Item], gold: Path, predictions: Path) -> list[Bucket]:
    """The official scores (``score``'s) of the questions grouped by number of gold answers."""
    from ambigdemo.evaluation import datasets, metrics

    if task == "nq-open":
        examples, preds, score = datasets.load_nq_open(gold), datasets.load_answer_predictions(predictions), metrics.score_nq_open
    else:
        examples, preds, score = datasets.load_ambignq(gold), datasets.load_ambig_predictions(predictions), metrics.score_ambigqa
    groups: dict[int, list] = {}
    for item, example in zip(items, examples):
        groups.setdefault(min(item.n_gold, MAX_BUCKET), []).append(example)
    return [_bucket(n, score(group, preds).to_dict()) for n, group in sorted(groups.items())]


def _bucket(n_gold: int, scores: dict) -> Bucket:
    label = f"{n_gold}+" if n_gold == MAX_BUCKET else str(n_gold)
    return Bucket(label, scores.pop("n"), scores.pop("n_multi", 0), scores)


# --------------------------------------------------------------------------- report


def markdown(report: dict) -> str:
    """The scores of every system as a markdown table (x100, as papers print them)."""
    task = report["task"]
    if task == "nq-open":
        head = ["system", "questions", "EM"]
    elif task == "multi-answer":
        head = ["system", "questions", "F1 answer", "F1 answer (multi)", f"answers per question (gold {report['mean_gold_answers']:.2f})"]
    elif task == "paragraph-gold":
        head = ["system", "questions", "STR-EM", "gold answers in the passages", "sentences citing", "paragraphs citing in every sentence", "answers stated uncited"]
    else:
        head = ["system", "questions", "F1 answer", "multi-answer", "F1 answer (multi)", "F1 BLEU-4", "F1 EDIT-F1", "rewrites kept as the prompt"]
    head += ["s / question"]
    rows = []
    for name, system in report["systems"].items():
        s = system["scores"]
        if task == "nq-open":
            cells = [s["n"], _pct(s["em"])]
        elif task == "multi-answer":
            cells = [s["n"], _pct(s["f1_ans"]), _pct(s["f1_ans_multi"]), f"{system['mean_answers']:.2f}"]
        elif task == "paragraph-gold":
            cells = [s["n"], _pct(s["str_em"]), _pct(s["grounded"]), _pct(s["cited_sentences"]), _pct(s["all_cited"]), s["uncited_answers"]]
        else:
            kept = system["sources"].get("prompt", 0) + system["sources"].get("copy", 0)
            cells = [s["n"], _pct(s["f1_ans"]), s["n_multi"], _pct(s["f1_ans_multi"]), _pct(s["f1_bleu"]), _pct(s["f1_edit_f1"])]
            cells.append(f"{kept} / {sum(system['sources'].values())}")
        rows.append([name, *cells, f"{system['seconds_per_question']:.3f}"])
    limit = f", first {report['limit']}" if report["limit"] else ""
    lines = [
        f"**{task}** on `{report['data']}` ({report['n']} questions{limit}); commit `{report['commit']}`",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(str(c) for c in row) + " |" for row in rows),
    ]
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def plot(report: dict, path: Path) -> None:
    """Grouped bars: each system's per-question scores by number of gold answers (PNG, Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = NQ_METRICS if report["task"] == "nq-open" else AMBIG_METRICS
    if report["task"] == "qd-gold":
        names = {k: v for k, v in names.items() if k != "f1_ans"}
    systems = report["systems"]
    first = next(iter(systems.values()))["by_answers"]
    labels = [b["answers"] for b in first]
    counts = [b["n_multi"] if report["task"] == "qd-gold" else b["n"] for b in first]
    series = [(f"{system} {title}", [b["scores"].get(metric) for b in r["by_answers"]]) for system, r in systems.items() for metric, title in names.items()]
    series = [(label, values) for label, values in series if any(v is not None for v in values)]
    fig = Figure(figsize=(max(6.0, 1.2 * len(labels) * max(1, len(series)) / 2), 4.0), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(series))
    for k, (label, values) in enumerate(series):
        xs = [x + (k - (len(series) - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, [100 * (v or 0.0) for v in values], width, label=label)
    ax.set_xticks(range(len(labels)), [f"{a}\n(n={n})" for a, n in zip(labels, counts)])
    ax.set_xlabel("gold answers")
    ax.set_ylabel("score (x100)")
    note = "" if report["task"] == "nq-open" else "; BLEU, EDIT-F1 over multi-answer questions"
    ax.set_title(f"{report['task']}: scores by number of gold answers{note}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="png")


def _commit() -> str | None:
    """The checkout's short commit, ``-dirty`` if tracked files other than ``docs/results`` (the
    outputs of evaluations) differ from it; None outside git."""
    from ambigdemo.config import ROOT

    git = ["git", "-C", str(ROOT)]
    try:
        head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        changed = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs/results"],
            capture_output=True, text=True, timeout=10,
        )
    except OSError:
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("-dirty" if changed.stdout.strip() else "")
