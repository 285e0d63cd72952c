"""Tune the LLM reader's passage gate (relevance ratio, minimum score, passages read) on AmbigNQ train.

Each passage is read from the same cached prefix, so the model's reply (and its rewrite for the answer
it verifies) depends only on the question and that passage. The top-k passages of every tuning
question are therefore read once, cached as JSONL (resumable), and every gate is then replayed
through the app's own code (:meth:`ReaderRun.take`, :meth:`Rewriter.rewrite`) without the model.
Only the model's likeliest reply per passage is cached and replayed: the app with
``reader_branch_passages=0``.

Questions: every train question in the corpus-supported multi-answer subset
(:func:`~ambigdemo.evaluation.support.supported_subset`, the rule behind dev's subset), up to ``n_multi``,
and a seeded sample of ``n_null`` questions none of whose gold answers is in their retrieved passages
(where any answer is wrong: NQ's null answer).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from tqdm import tqdm

from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.evaluation.metrics import answer_f1
from ambigdemo.evaluation.support import SupportIndex, supported_subset
from ambigdemo.stages.reader import LlmReader, ask_rewrite
from ambigdemo.runtimes.chat import CHATML
from ambigdemo.stages.reader.prompts import example_prefix
from ambigdemo.stages.rewrite import Rewriter
from ambigdemo.text import phrase_keys, states_any
from ambigdemo.types import Passage

RELEVANCE = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)
MIN_SCORE = tuple(round(0.3 + 0.05 * i, 2) for i in range(8))
MAX_PASSAGES = tuple(range(1, 9))
FURTHER_PASSAGES = (0, 2, 4, 7)
FURTHER_COVERAGE = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 1.0)
NULL_SLACK = 0.05  # null accuracy a further passage may cost: 3 of the 60 null questions
READ_BUDGET = 4.0  # passages read per answered question, mean: what the latency targets afford on 2 cores


@dataclass(frozen=True)
class TrainQuestion:
    """One sampled AmbigNQ train question with its retrieved passages."""

    id: str
    question: str
    answers: list[list[str]]  # gold, aliases each; [] for a null question
    passages: list[Passage]


@dataclass(frozen=True)
class Read:
    """What the model made of one passage: its reply and, if that verifies, its rewrite for the answer."""

    reply: str
    rewrite: str = ""


@dataclass(frozen=True)
class Gate:
    relevance: float
    min_score: float
    max_passages: int
    further_passages: int = 0
    further_coverage: float = 1.0


def sample(retriever, data: Path, k: int, n_multi: int, n_null: int, seed: int = 0) -> list[TrainQuestion]:
    """The tuning questions with their top-``k`` passages, in a reproducible order."""
    examples = load_ambignq(data)
    subset = supported_subset(examples, SupportIndex(retriever.index.passages))
    rng = random.Random(seed)
    multi = rng.sample(subset, min(n_multi, len(subset)))
    chosen = {s.id for s in multi}
    rest = [e for e in examples if e.id not in chosen]
    hits = retriever.batch_search([s.question for s in multi] + [e.question for e in rest], k)
    questions = [TrainQuestion(s.id, s.question, s.answers, p) for s, p in zip(multi, hits)]
    nulls = []
    for example, passages in zip(rest, hits[len(multi):]):
        aliases = [a for ann in example.annotations for a in _aliases(ann)]
        if phrase_keys(aliases) and not states_any(passages, aliases):
            nulls.append(TrainQuestion(example.id, example.question, [], passages))
    return questions + rng.sample(nulls, min(n_null, len(nulls)))


def _aliases(annotation) -> list[str]:
    return annotation.answers or [a for qa in annotation.qa_pairs or () for a in qa.answers]


def prompt_key() -> str:
    """A short hash of the turns every read starts from: a cache of reads made with other prompts is not reused."""
    return hashlib.sha1(example_prefix(CHATML).encode("utf-8")).hexdigest()[:8]


def read_all(reader: LlmReader, questions: Sequence[TrainQuestion], cache: Path) -> dict[tuple[str, str], Read]:
    """Every (question, passage) read, resuming from ``cache`` (one JSON line per read, appended)."""
    reads: dict[tuple[str, str], Read] = {}
    if cache.is_file():
        for line in cache.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
                reads[(rec["id"], rec["passage"])] = Read(rec["reply"], rec.get("rewrite", ""))
            except (ValueError, KeyError):
                continue  # a line cut by a killed run is read again
    todo = [(q, p) for q in questions for p in q.passages if (q.id, p.id) not in reads]
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("a", encoding="utf-8") as out:
        if out.tell() and not cache.read_bytes().endswith(b"\n"):
            out.write("\n")  # end the cut line, so the next read is not glued to it
        for q, p in tqdm(todo, desc="reading train passages", initial=len(reads), total=len(reads) + len(todo)):
            reply, context = reader.reply(q.question, p)
            answer = reader.read(q.question, [p]).take(p, reply)
            rewrite = ask_rewrite(context, answer.text, reader.max_rewrite_tokens) if answer else ""
            reads[(q.id, p.id)] = Read(reply, rewrite)
            out.write(json.dumps({"id": q.id, "passage": p.id, "reply": reply, "rewrite": rewrite}) + "\n")
            out.flush()
    return reads


def replay(reader: LlmReader, rewriter: Rewriter, gate: Gate, q: TrainQuestion, reads: dict, memo: dict | None = None) -> tuple[list[str], int]:
    """The answers the app shows for ``q`` under ``gate`` (after the rewriter's checks), and passages read.

    Gates that read the same passages show the same answers: ``memo`` keeps them per passage list."""
    gated = replace(reader, relevance=gate.relevance, min_score=gate.min_score, max_passages=gate.max_passages,
                    further_passages=gate.further_passages, further_coverage=gate.further_coverage, branch_passages=0)
    reading = gated.read(q.question, q.passages)
    read = reading.to_read()
    key = (q.id, tuple((p.id, least) for p, least in read))
    if memo is not None and key in memo:
        return memo[key], len(read)
    for p, least in read:
        reading.take(p, reads[(q.id, p.id)].reply, least_coverage=least)
        if len(reading.found) >= reader.max_answers:
            break
    first = {a.text: a.passages[0] for a in reading.found}

    def propose(answer) -> str:
        return reads[(q.id, first[answer.text])].rewrite if answer.text in first else ""

    answers = [i.answer for i in rewriter.rewrite(q.question, list(reading.found), propose=propose)]
    if memo is not None:
        memo[key] = answers
    return answers, len(read)


def score(reader: LlmReader, rewriter: Rewriter, gate: Gate, questions: Sequence[TrainQuestion], reads: dict, memo: dict | None = None) -> dict:
    """Answer F1 on the multi-answer questions, null accuracy, answers and passages read per question."""
    f1, null_ok, n_pred, n_read = [], [], [], []
    for q in questions:
        answers, n = replay(reader, rewriter, gate, q, reads, memo)
        if q.answers:
            f1.append(answer_f1(q.answers, answers))
            n_pred.append(len(answers))
        else:
            null_ok.append(float(not answers))
        if answers:
            n_read.append(n)
    mean = lambda xs: round(sum(xs) / len(xs), 4) if xs else 0.0  # noqa: E731
    return {
        "f1_multi": mean(f1), "null_acc": mean(null_ok), "answers_per_question": mean(n_pred),
        "passages_read": mean(n_read), "n_multi": len(f1), "n_null": len(null_ok),
    }


def shipped_gate(reader: LlmReader) -> Gate:
    """The gate ``reader`` reads with."""
    return Gate(reader.relevance, reader.min_score, reader.max_passages, reader.further_passages, reader.further_coverage)


def search_further(reader: LlmReader, rewriter: Rewriter, questions: Sequence[TrainQuestion], reads: dict) -> dict:
    """The shipped gate's passages, then up to each of ``FURTHER_PASSAGES`` more whose answers must be
    stated beside each of ``FURTHER_COVERAGE`` of the question's words; ``best``: the highest
    multi-answer F1 that keeps the gate alone's null accuracy within ``NULL_SLACK``."""
    base = replace(shipped_gate(reader), further_passages=0)
    trials, memo = [], {}
    for further, least in tqdm(list(itertools.product(FURTHER_PASSAGES, FURTHER_COVERAGE)), desc="further passages"):
        gate = replace(base, further_passages=further, further_coverage=least)
        trials.append({"gate": asdict(gate), **score(reader, rewriter, gate, questions, reads, memo)})
    alone = score(reader, rewriter, base, questions, reads, memo)
    allowed = [t for t in trials if t["null_acc"] >= alone["null_acc"] - NULL_SLACK]
    best = max(allowed, key=lambda t: (t["f1_multi"], -t["passages_read"]))
    return {"gate_alone": {"gate": asdict(base), **alone}, "null_slack": NULL_SLACK, "best": best, "trials": trials}


def search(reader: LlmReader, rewriter: Rewriter, questions: Sequence[TrainQuestion], reads: dict) -> dict:
    """Every gate of the grid, and the best two: the highest multi-answer F1 that keeps the shipped
    gate's null accuracy and reads no more passages than it (``best_same_cost``), or at most
    ``READ_BUDGET`` (``best_within_budget``); ties go to fewer passages read. ``frontier``: the best F1
    at each null accuracy.

    Weighing null accuracy into one objective instead picks a gate that almost never answers (F1 falls
    from 4.8 to 3.3 for null accuracy 0.9 on the 260 questions measured), so it is a floor, not a term."""
    trials, memo = [], {}
    grid = list(itertools.product(RELEVANCE, MIN_SCORE, MAX_PASSAGES))
    for relevance, min_score, limit in tqdm(grid, desc="gates"):
        gate = Gate(relevance, min_score, limit)
        trials.append((gate, score(reader, rewriter, gate, questions, reads, memo)))
    shipped = shipped_gate(reader)
    base = score(reader, rewriter, shipped, questions, reads, memo)

    def best(budget: float) -> dict:
        allowed = [t for t in trials if t[1]["null_acc"] >= base["null_acc"] and t[1]["passages_read"] <= budget]
        gate, metrics = max(allowed, key=lambda t: (t[1]["f1_multi"], -t[1]["passages_read"]))
        return {"gate": asdict(gate), **metrics}

    frontier, top = [], -1.0
    for gate, metrics in sorted(trials, key=lambda t: (-t[1]["null_acc"], -t[1]["f1_multi"], t[1]["passages_read"])):
        if metrics["f1_multi"] > top:
            top = metrics["f1_multi"]
            frontier.append({"gate": asdict(gate), **metrics})
    return {
        "shipped": {"gate": asdict(shipped), **base}, "best_same_cost": best(base["passages_read"]),
        "read_budget": READ_BUDGET, "best_within_budget": best(READ_BUDGET), "frontier": frontier,
    }
