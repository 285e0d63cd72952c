"""The MEQ-style contrast set built from AmbigNQ dev, its retrieval and end-to-end measures, and
``evaluate --task contrast`` as a user runs it (real index, real models)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ambigdemo.config import AMBIGNQ_DEV
from ambigdemo.evaluation import contrast
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.text import normalize_answer
from tests.test_score_cli import REPO


@pytest.fixture(scope="module")
def pairs(pipeline):
    assert AMBIGNQ_DEV.is_file(), f"AmbigNQ dev set not found at {AMBIGNQ_DEV}"
    return contrast.build(load_ambignq(AMBIGNQ_DEV), pipeline.retriever.index.passages)


def test_contrast_pairs_are_minimal_edits_with_different_answers_and_fixed_candidates(pipeline, pairs):
    assert len(pairs) >= 100, "dev_light gives about a hundred pairs the corpus supports"
    assert max(sum(p.prompt == q.prompt for q in pairs) for p in pairs) <= contrast.PER_PROMPT
    text = {p.id: f" {normalize_answer(p.title + ' ' + p.text)} " for p in pipeline.retriever.index.passages}
    for pair in pairs:
        assert pair.a.question != pair.b.question
        assert not {normalize_answer(a) for a in pair.a.answers} & {normalize_answer(a) for a in pair.b.answers}
        for side in (pair.a, pair.b):
            keys = [f" {normalize_answer(a)} " for a in side.answers if normalize_answer(a)]
            assert side.candidates[0] == side.positive and len(side.candidates) == contrast.CANDIDATES
            assert len(set(side.candidates)) == contrast.CANDIDATES
            assert any(k in text[side.positive] for k in keys)
            assert not any(k in text[c] for c in side.candidates[1:] for k in keys), "negatives hold no answer"
    again = contrast.build(load_ambignq(AMBIGNQ_DEV), pipeline.retriever.index.passages)
    assert again == pairs, "the set is reproducible"


def test_retrieval_and_end_to_end_measures(pipeline, pairs, tmp_path):
    contrast.save(pairs, tmp_path / "set.jsonl")
    assert contrast.load(tmp_path / "set.jsonl") == pairs
    r = contrast.retrieval(pipeline.retriever, pairs[:20])
    assert 1 <= r["MR"] <= contrast.CANDIDATES and 0 < r["MRR"] <= 1
    assert r["recall@1"] <= r["recall@5"] <= r["recall@20"]
    assert 0 <= r["overlap@5"] <= 1 and 0 <= r["overlap@20"] <= 1
    fixed = {pairs[0].a.question: list(pairs[0].a.answers[:1]), pairs[0].b.question: []}
    summary, rows = contrast.end_to_end(lambda q: fixed[q], pairs[:1])
    assert rows[0]["right"] == [True, False] and rows[0]["changed"]
    assert summary == {"side_accuracy": 0.5, "pair_accuracy": 0.0, "answer_changed": 1.0}


def test_evaluate_contrast_cli_on_a_small_gold_file(preset, tmp_path):
    gold = [{
        "id": "capital-za", "question": "What is the capital of South Africa?",
        "annotations": [{"type": "multipleQAs", "qaPairs": [
            {"question": "What is the executive capital of South Africa?", "answer": ["Pretoria"]},
            {"question": "What is the legislative capital of South Africa?", "answer": ["Cape Town"]},
        ]}],
    }]
    data = tmp_path / "gold.json"
    data.write_text(json.dumps(gold), encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "ambigdemo", "evaluate", "--task", "contrast", "--data", str(data), "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert report["pairs"] == 1 and (out / "contrast-set.jsonl").is_file()
    [row] = report["rows"]
    assert row["right"] == [True, True] and row["changed"], row
    assert "| 1 (1) |" in (out / "metrics.md").read_text(encoding="utf-8")
