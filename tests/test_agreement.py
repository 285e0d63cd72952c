"""Agreement statistics against hand-computed cases, and their wiring to stored judgments."""

from __future__ import annotations

import pytest

from ambigdemo.judging.agreement import (
    agreement,
    fleiss_kappa,
    items,
    krippendorff_alpha,
    metric_agreement,
)
from ambigdemo.judging.judgment import Judgment
from ambigdemo.judging.systems import question_key


def judge(a: str, b: str, overall: str, annotator: str, question: str = "q", **fields) -> Judgment:
    return Judgment.new(question=question, system_a=a, system_b=b, answer_a="{}", answer_b="{}",
                        annotator=annotator, overall=overall, comprehensiveness=overall, fluency="tie", **fields)


def test_fleiss_kappa_by_hand() -> None:
    rows = [[-1, -1], [0, 0], [1, 1], [-1, 0]]
    # p_j = 3/8, 3/8, 2/8 -> P_e = 22/64; mean P_i = 3/4 -> kappa = (3/4 - 22/64) / (42/64) = 26/42
    assert fleiss_kappa(rows) == pytest.approx(26 / 42)
    assert fleiss_kappa([[0, 0], [0, 0]]) is None


def test_krippendorff_alpha_is_one_when_all_agree_and_ordinal() -> None:
    assert krippendorff_alpha([[-1, -1], [0, 0], [1, 1, 1]]) == pytest.approx(1.0)
    near = krippendorff_alpha([[-1, -1], [0, 0], [1, 1], [-1, 0], [1, 1], [-1, -1]])
    far = krippendorff_alpha([[-1, -1], [0, 0], [1, 1], [-1, 1], [1, 1], [-1, -1]])
    assert 0 < far < near < 1  # ordinal: A against B disagrees more than A against tie
    assert krippendorff_alpha([[0, 0]]) is None


def test_items_orient_labels_to_systems_not_sides() -> None:
    # Both annotators prefer x; the second saw x on the right, so said "B".
    stored = [judge("x", "y", "A", "ann1"), judge("y", "x", "B", "ann2"),
              judge("x", "y", "B", "ann1", question="r"), judge("y", "x", "A", "ann2", question="r")]
    assert sorted(items(stored, "overall")) == [[-1, -1], [1, 1]]


def test_items_skip_attention_checks_skips_and_single_annotators() -> None:
    stored = [judge("check:full", "check:short", "A", "ann1"), judge("check:full", "check:short", "A", "ann2"),
              judge("x", "y", "A", "ann1", question="r"), judge("x", "y", "A", "ann2", question="r", verdict="skip"),
              judge("x", "y", "A", "ann1", question="s")]
    assert items(stored, "overall") == []


def test_agreement_per_criterion_with_intervals() -> None:
    stored = []
    for n in range(12):
        want = ("A", "B", "tie")[n % 3]
        other = want if n % 4 else ("B" if want == "A" else "A")
        stored += [judge("x", "y", want, "ann1", question=f"q{n}"), judge("x", "y", other, "ann2", question=f"q{n}")]
    rows = {r.criterion: r for r in agreement(stored, rounds=200)}
    overall = rows["overall"]
    assert overall.alpha.n == overall.fleiss.n == overall.cohen.n == 12 and overall.raters_per_item == 2
    for est in (overall.alpha, overall.fleiss, overall.cohen):
        assert -1 <= est.lower <= est.value <= est.upper <= 1
    assert 0 < overall.alpha.value < 1
    assert rows["fluency"].alpha.value is None  # every fluency label is the default tie: no variation


def test_metric_agreement_counts_decided_votes_the_metric_separates() -> None:
    stored = [judge("x", "y", "A", "ann1", question="q1"), judge("y", "x", "A", "ann1", question="q2"),
              judge("x", "y", "tie", "ann1", question="q3"), judge("x", "y", "A", "ann1", question="q4")]
    scores = {("x", "q1"): 0.9, ("y", "q1"): 0.1, ("x", "q2"): 0.8, ("y", "q2"): 0.2,
              ("x", "q3"): 1.0, ("y", "q3"): 0.0, ("x", "q4"): 0.5, ("y", "q4"): 0.5}
    result = metric_agreement(stored, "STR-EM", scores, question_key)
    assert (result.agree, result.n, result.rate) == (1, 2, 0.5)


def test_metric_scores_rank_the_answer_that_covers_both_readings_higher(pipeline) -> None:
    from ambigdemo.judging.agreement import metric_scores
    from ambigdemo.judging.predictions import GoldQuestion
    from ambigdemo.judging.systems import SystemAnswer

    question = "Who won the world cup?"
    gold = GoldQuestion("w1", question, [["France"], ["Germany"]],
                        ["The 2018 FIFA World Cup was won by France, who beat Croatia 4-2 in the final in Moscow. "
                         "The 2014 World Cup was won by Germany."],
                        ["Who won the 2018 world cup?", "Who won the 2014 world cup?"])
    answers = [SystemAnswer("good", question, "France won the 2018 World Cup, beating Croatia; Germany won the 2014 World Cup."),
               SystemAnswer("bad", question, "Brazil has won the World Cup five times.")]
    scores = metric_scores(answers, {question_key(question): gold}, question_key, pipeline.reader.answer)
    key = question_key(question)
    assert scores["STR-EM"][("good", key)] == 1.0 and scores["STR-EM"][("bad", key)] == 0.0
    assert scores["DR"][("good", key)] > scores["DR"][("bad", key)] and scores["DR"][("bad", key)] == 0.0
    assert "DR" not in metric_scores(answers, {key: gold}, question_key)  # no reader: no DR
