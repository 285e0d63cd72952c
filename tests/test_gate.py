"""Tuning the LLM reader's passage gate: train questions read once (a cut cache line is read again), and
a replayed gate shows exactly what the app shows for the same question."""

from __future__ import annotations

import json

from ambigdemo.config import AMBIGNQ_TRAIN
from ambigdemo.evaluation import gate
from ambigdemo.text import normalize_answer


def test_reads_resume_and_replay_matches_the_app(pipeline, tmp_path):
    pipeline = pipeline.with_options(verifier="off")  # the gate tunes verify's rules' reading, which it replays
    data = tmp_path / "train-head.json"
    data.write_text(json.dumps(json.loads(AMBIGNQ_TRAIN.read_text(encoding="utf-8"))[:400]), encoding="utf-8")
    questions = gate.sample(pipeline.retriever, data, pipeline.config.top_k, n_multi=2, n_null=1)
    assert [bool(q.answers) for q in questions] == [True, True, False]
    null = questions[-1]
    text = " ".join(normalize_answer(p.title + " " + p.text) for p in null.passages)
    assert null.passages and pipeline.config.top_k <= len(null.passages) <= pipeline.config.top_k + 1 and text

    cache = tmp_path / "reads.jsonl"
    reads = gate.read_all(pipeline.reader, questions, cache)
    assert len(reads) == sum(len(q.passages) for q in questions)
    lines = cache.read_text(encoding="utf-8").splitlines()
    cache.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")  # killed mid-line
    again = gate.read_all(pipeline.reader, questions, cache)
    assert again == reads, "the cut line is read again, the others come from the cache"
    size = cache.stat().st_size
    assert gate.read_all(pipeline.reader, questions, cache) == reads and cache.stat().st_size == size, "nothing is read a third time"

    shipped = gate.shipped_gate(pipeline.reader)
    further = gate.Gate(shipped.relevance, shipped.min_score, shipped.max_passages, 4, 0.5)
    for g in (shipped, further):
        app = pipeline.with_options(use_generator=False, reader_branch_passages=0,  # the gate replays likeliest replies only
                                    reader_further_passages=g.further_passages, reader_further_coverage=g.further_coverage)
        for q in questions:
            replayed, _ = gate.replay(pipeline.reader, pipeline.rewriter, g, q, reads)
            assert replayed == [i.answer for i in app.ask(q.question).interpretations], g

    report = gate.search(pipeline.reader, pipeline.rewriter, questions, reads)
    shipped, same, budget = report["shipped"], report["best_same_cost"], report["best_within_budget"]
    assert same["passages_read"] <= shipped["passages_read"] and budget["passages_read"] <= gate.READ_BUDGET
    assert shipped["f1_multi"] <= same["f1_multi"] <= budget["f1_multi"]
    assert min(same["null_acc"], budget["null_acc"]) >= shipped["null_acc"]
    nulls = [r["null_acc"] for r in report["frontier"]]
    assert nulls == sorted(nulls, reverse=True), "the frontier trades null accuracy for F1, one step at a time"

    report = gate.search_further(pipeline.reader, pipeline.rewriter, questions, reads)
    alone, best = report["gate_alone"], report["best"]
    assert len(report["trials"]) == len(gate.FURTHER_PASSAGES) * len(gate.FURTHER_COVERAGE)
    assert best["f1_multi"] >= alone["f1_multi"] and best["null_acc"] >= alone["null_acc"] - gate.NULL_SLACK
    none = [t for t in report["trials"] if t["gate"]["further_passages"] == 0]
    assert all({**t, "gate": None} == {**alone, "gate": None} for t in none), "no further passage: the gate alone"
