"""Rewrite fluency: form checks, and the judge LM (the real embedded generator) preferring a fluent rewrite."""

from __future__ import annotations

import pytest

from ambigdemo.evaluation.fluency import SAMPLES, Rewrite, fluency_markdown, fluency_report, form_problems, perplexity_ratio

PROMPT = "Who sings what a beautiful name?"


@pytest.mark.parametrize(
    ("rewrite", "problems"),
    [
        ("Who sings what a beautiful name in the 2016 album?", []),
        ("Who sings what a beautiful name in the?", ["dangling word"]),
        ("Who sings sings what a beautiful name?", ["repeated word"]),
        ("When was what a beautiful name released?", ["question word changed"]),
        ("Hillsong Worship sings it.", ["not one question", "question word changed"]),
    ],
)
def test_form_problems(rewrite, problems):
    assert form_problems(PROMPT, rewrite) == problems


@pytest.fixture(scope="module")
def judge(pipeline):
    assert pipeline.summarizer.generator is not None
    return pipeline.summarizer.generator


def test_judge_prefers_a_fluent_rewrite_to_word_salad(judge):
    prompt = "Who was the president of the United States?"
    fluent = perplexity_ratio(judge, prompt, "Who was the president of the United States in 1999?")
    stutter = perplexity_ratio(judge, prompt, "Who was the president of the the United States in in?")
    salad = perplexity_ratio(judge, prompt, "Who the of was president States United 1999 in the?")
    assert 0 < fluent < 1.5 < stutter < salad
    assert perplexity_ratio(judge, prompt, prompt) == pytest.approx(1.0)


def test_report_counts_changed_rewrites_and_samples_beside_gold(judge):
    gold = "Who sings what a beautiful name in the 2016 album?"
    rewrites = [Rewrite(PROMPT, PROMPT, gold)] + [Rewrite(PROMPT, f"Who sings what a beautiful name in {y}?", gold) for y in range(1990, 2020)]
    rewrites.append(Rewrite(PROMPT, "Who sings sings what a beautiful name?", gold))
    report = fluency_report(rewrites, judge, seed=3)
    assert (report["rewrites"], report["changed"]) == (32, 31)
    assert report["problems"] == {"repeated word": 1}
    assert report["well_formed"] == pytest.approx(30 / 31)
    assert report["perplexity_ratio_mean"] > 0 and report["perplexity_ratio_median"] > 0
    assert len(report["samples"]) == SAMPLES and all(s["gold"] == gold for s in report["samples"])
    assert report == fluency_report(rewrites, judge, seed=3)  # the samples are seeded
    table = fluency_markdown("rules", report)
    assert table.startswith("**rules**: 31 of 32 rewrites differ") and table.count("\n| Who sings") == SAMPLES
