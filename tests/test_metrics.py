"""Metrics and loaders on hand-computed cases (official AmbigQA / ASQA definitions)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ambigdemo.evaluation.datasets import (
    AmbigExample,
    AmbigPrediction,
    Annotation,
    ASQAExample,
    DataError,
    NQExample,
    QAPair,
    load_ambig_predictions,
    load_ambignq,
    load_answer_predictions,
    load_nq_open,
)
from ambigdemo.evaluation.metrics import (
    ContrastGroup,
    RetrievalRun,
    answer_f1,
    bleu4,
    contrast_consistency,
    disambig_f1,
    edit_f1,
    exact_match,
    question_bleu4,
    rouge_l,
    score_ambig_example,
    score_ambigqa,
    score_asqa,
    score_nq_open,
    squad_f1,
    str_em,
)

PROMPT = "Who made the play the crucible?"


# ----------------------------------------------------------------- EDIT-F1


def test_edit_f1_paper_example_is_zero():
    # gold edit {-made, +wrote}; predicted edit {+in, +2012}: nothing in common
    assert edit_f1(PROMPT, "Who wrote the play the crucible?", "Who made the play the crucible in 2012?") == 0.0


def test_edit_f1_identical_edits_is_one():
    assert edit_f1(PROMPT, "Who wrote the play the crucible?", "who WROTE the play, the Crucible?") == 1.0


def test_edit_f1_partial_overlap():
    # gold {-made, +wrote}; predicted {-made, +wrote, +in, +2012}: 2 * 2 / (2 + 4)
    assert edit_f1(PROMPT, "Who wrote the play the crucible?", "Who wrote the play the crucible in 2012?") == pytest.approx(2 / 3)


def test_edit_f1_empty_edit_scores_zero_as_official():
    # The official script gives 0 whenever either edit is empty, even when both are.
    assert edit_f1(PROMPT, PROMPT, PROMPT) == 0.0
    assert edit_f1(PROMPT, "Who wrote the play the crucible?", PROMPT) == 0.0


def test_edit_f1_uses_first_gold_wording_only():
    gold = "Who wrote the play the crucible?|Who authored the play the crucible?"
    assert edit_f1(PROMPT, gold, "Who authored the play the crucible?") == 0.5  # {-made,+wrote} vs {-made,+authored}


# ----------------------------------------------------------------- answer F1


def test_exact_match_uses_aliases_and_squad_normalisation():
    assert exact_match(["Tony Goldwyn", "Goldwyn"], "goldwyn.")
    assert exact_match(["The Beatles"], "beatles")
    assert not exact_match(["Tony Goldwyn"], "Tony")


def test_answer_f1_aliases():
    assert answer_f1([["Tony Goldwyn", "Goldwyn"]], ["GOLDWYN"]) == 1.0


def test_answer_f1_duplicate_prediction_matches_one_gold_and_costs_precision():
    assert answer_f1([["A"], ["B"]], ["a", "a", "b"]) == pytest.approx(2 * 2 / (2 + 3))
    assert answer_f1([["A"]], ["a", "A"]) == pytest.approx(2 / 3)


def test_answer_f1_greedy_in_gold_order_like_official():
    # gold 0 takes "x" first, so gold 1 ("x" only) finds nothing although a perfect matching exists
    assert answer_f1([["x", "y"], ["x"]], ["x", "y"]) == 0.5


def test_answer_f1_empty_prediction_is_zero():
    assert answer_f1([["A"]], []) == 0.0


# ----------------------------------------------------------------- BLEU


def test_bleu4_hand_computed():
    # p1..p4 = 4/5, 3/4, 2/3, 1/2 -> (0.2) ** 0.25, same length so no brevity penalty
    assert bleu4("w1 w2 w3 w4 w5", ["w1 w2 w3 w4 w6"]) == pytest.approx(0.2 ** 0.25)


def test_bleu4_brevity_penalty_uses_closest_reference():
    assert bleu4("a b c d", ["a b c d e"]) == pytest.approx(math.exp(1 - 5 / 4))
    assert bleu4("a b c d", ["a b c d e", "a b c d x y z"]) == pytest.approx(math.exp(1 - 5 / 4))


def test_bleu4_has_no_smoothing_beyond_pycocoevalcap_guard():
    # three tokens have no 4-gram: p4 = 1e-15 / 1e-9
    assert bleu4("a b c", ["a b c"]) == pytest.approx(1e-6 ** 0.25)


def test_question_bleu4_takes_all_pipe_alternatives_as_references():
    gold = "Who authored the play the crucible? | Who wrote the play the crucible?"
    assert question_bleu4("Who wrote the play the crucible?", gold) == pytest.approx(1.0)
    assert question_bleu4("Who wrote the play the crucible?", gold.split("|")[0]) < 0.7


# ----------------------------------------------------------------- AmbigQA per question


def _multi(*pairs: tuple[str, list[str]]) -> Annotation:
    return Annotation(type="multipleQAs", qa_pairs=[QAPair(question=q, answers=a) for q, a in pairs])


def _single(*answers: str) -> Annotation:
    return Annotation(type="singleAnswer", answers=list(answers))


def _pred(*pairs: tuple[str, str]) -> AmbigPrediction:
    return AmbigPrediction(answers=[a for _, a in pairs], questions=[q for q, _ in pairs])


CRUCIBLE = AmbigExample(
    id="c",
    question="Who made the crucible?",
    annotations=[_multi(
        ("Who wrote the play the crucible?|Who authored the play the crucible?", ["Arthur Miller", "Miller"]),
        ("Who directed the film the crucible?", ["Nicholas Hytner"]),
    )],
)


def test_full_task_scores_hand_computed():
    pred = _pred(("Who authored the play the crucible?", "Miller"), ("Who directed the film the crucible?", "Someone"))
    s = score_ambig_example(CRUCIBLE, pred)
    assert s.multi
    assert s.f1_ans == 0.5  # one of two golds, one of two predictions
    assert s.f1_bleu == pytest.approx(2 * 1.0 / 4)  # matches the second gold wording exactly
    # gold edit (first wording) {-made,+wrote,+play} vs {-made,+authored,+play}: 2/3, then 2 * 2/3 / 4
    assert s.f1_edit_f1 == pytest.approx(1 / 3)


def test_question_matching_prefers_best_scoring_duplicate():
    pred = _pred(("Who made the crucible?", "Miller"), ("Who wrote the play the crucible?", "Arthur Miller"))
    s = score_ambig_example(CRUCIBLE, pred)
    assert s.f1_ans == 0.5  # the duplicate answer matches once: 2 * 1 / (2 + 2)
    assert s.f1_edit_f1 == pytest.approx(2 * 1.0 / 4)
    assert s.f1_bleu == pytest.approx(2 * 1.0 / 4)


def test_single_answer_annotation_gives_its_f1_to_question_metrics():
    ex = AmbigExample(id="s", question="When was it released?", annotations=[
        _single("1998"),
        _multi(("When was the film released?", ["1998"]), ("When was the novel released?", ["2004"])),
    ])
    one = score_ambig_example(ex, _pred(("When was it released?", "1998")))
    assert not one.multi
    assert (one.f1_ans, one.f1_bleu, one.f1_edit_f1) == (1.0, 1.0, 1.0)
    both = score_ambig_example(ex, _pred(("When was the film released?", "1998"), ("When was the novel released?", "2004")))
    assert both.f1_ans == 1.0  # max(single 2/3, multi 1)
    assert both.f1_edit_f1 == 1.0


def test_max_over_multiple_annotations():
    ex = AmbigExample(id="m", question="Who won?", annotations=[
        _multi(("Who won in 2010?", ["A"]), ("Who won in 2011?", ["B"])),
        _multi(("Who won the men's title?", ["A"])),
    ])
    s = score_ambig_example(ex, _pred(("Who won the men's title?", "a")))
    assert s.f1_ans == 1.0  # second annotation; the first gives 2/3
    assert s.f1_edit_f1 == 1.0


def test_answers_only_prediction_has_no_question_metrics():
    report = score_ambigqa([CRUCIBLE], {"c": AmbigPrediction(answers=["Miller", "Nicholas Hytner"])})
    assert report.f1_ans == 1.0
    assert report.f1_bleu is None and report.f1_edit_f1 is None


def test_report_missing_prediction_scores_zero_and_multi_subset():
    single = AmbigExample(id="s", question="Q?", annotations=[_single("x")])
    report = score_ambigqa([CRUCIBLE, single], {"s": _pred(("Q?", "x"))})
    assert (report.n, report.n_multi) == (2, 1)
    assert report.f1_ans == 0.5 and report.f1_ans_multi == 0.0
    assert report.f1_bleu == 0.0 and report.f1_edit_f1 == 0.0  # multi only: CRUCIBLE is missing


# ----------------------------------------------------------------- NQ-open


def test_nq_exact_match():
    examples = [
        NQExample(id="0", question="q0", answers=["14 December 1972 UTC", "December 1972"]),
        NQExample(id="1", question="q1", answers=["Bobby Scott"]),
        NQExample(id="2", question="q2", answers=["2017"]),
    ]
    report = score_nq_open(examples, {"0": "december 1972.", "1": "Bob Russell"})
    assert report.n == 3
    assert report.em == pytest.approx(1 / 3)


# ----------------------------------------------------------------- ASQA


class AfterByReader:
    """Deterministic reader: in the first sentence naming the question's last word, what follows ' by '."""

    name = "after-by"

    def __call__(self, question: str, context: str) -> str:
        key = question.rstrip("?").split()[-1].lower()
        for sentence in context.split("."):
            if key in sentence.lower() and " by " in sentence:
                return sentence.rsplit(" by ", 1)[1]
        return ""


LONG = "The play was written by Arthur Miller. The film was directed by Nicholas Hytner."
ASQA = ASQAExample(
    id="a",
    question="Who made the crucible?",
    qa_pairs=[
        QAPair("Who wrote the play?", ["Arthur Miller"]),
        QAPair("Who directed the film?", ["Sir Nicholas Hytner", "Hytner"]),
        QAPair("Who played John Proctor?", ["Daniel Day-Lewis"]),
    ],
    long_answers=["The play was written by Arthur Miller.", "Dogs bark."],
)


def test_rouge_l_sum_best_reference():
    assert rouge_l("The cat sat on the mat.", ["The cat lay on the mat.", "Dogs bark."]) == pytest.approx(5 / 6)
    # one 7-token reference sentence fully covered by a 14-token, two-sentence answer: P 1/2, R 1
    assert rouge_l(LONG, ASQA.long_answers) == pytest.approx(2 / 3)
    assert rouge_l("", ["anything"]) == 0.0


def test_str_em_substring_of_any_alias():
    assert str_em([p.answers for p in ASQA.qa_pairs], LONG) == pytest.approx(2 / 3)


def test_squad_f1():
    assert squad_f1("Sir Nicholas Hytner", "Nicholas Hytner") == pytest.approx(0.8)
    assert squad_f1("", "") == 1.0 and squad_f1("x", "") == 0.0


def test_disambig_f1_with_reader():
    # "Nicholas Hytner" scores max(0.8 vs "Sir Nicholas Hytner", 2/3 vs "Hytner"); Proctor gets no answer
    assert disambig_f1(ASQA.qa_pairs, LONG, AfterByReader()) == pytest.approx((1 + 0.8 + 0) / 3)


def test_score_asqa_report_and_dr():
    report = score_asqa([ASQA], {"a": LONG}, AfterByReader())
    assert report.reader == "after-by"
    assert report.rouge_l == pytest.approx(2 / 3)
    assert report.str_em == pytest.approx(2 / 3)
    assert report.disambig_f1 == pytest.approx(0.6)
    assert report.dr == pytest.approx(math.sqrt(0.6 * 2 / 3))
    missing = score_asqa([ASQA], {}, AfterByReader())
    assert (missing.rouge_l, missing.str_em, missing.disambig_f1, missing.dr) == (0.0, 0.0, 0.0, 0.0)


# ----------------------------------------------------------------- MEQ


def test_contrast_consistency_overlap_hit_mrr():
    group = ContrastGroup(
        original=RetrievalRun(ranked=["p1", "p2", "p3", "p4"], gold=["p3"]),
        rewrites=[RetrievalRun(ranked=["p2", "p5", "p1", "p9"], gold=["p9"])],
    )
    report = contrast_consistency([group], k=3)
    assert report.overlap == pytest.approx(2 / 4)  # {p1,p2,p3} vs {p2,p5,p1}
    assert report.hit_at_k == pytest.approx(1 / 2)  # p9 is ranked 4th
    assert report.mrr == pytest.approx((1 / 3 + 0) / 2)
    assert (report.n_pairs, report.n_with_gold) == (1, 2)


def test_contrast_consistency_without_gold():
    report = contrast_consistency([ContrastGroup(RetrievalRun(["a"]), [RetrievalRun(["a"])])], k=5)
    assert report.overlap == 1.0 and report.hit_at_k is None and report.mrr is None


# ----------------------------------------------------------------- loaders


def _write(tmp_path: Path, name: str, content: object) -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


GOOD = {"id": "7", "question": "Q?", "annotations": [{"type": "singleAnswer", "answer": ["x"]}]}


def test_load_ambignq_records(tmp_path):
    multi = {"id": 8, "question": "R?", "annotations": [{"type": "multipleQAs", "qaPairs": [{"question": "R1?", "answer": ["y"]}]}]}
    examples = load_ambignq(_write(tmp_path, "dev.json", [GOOD, multi]))
    assert examples[1] == AmbigExample("8", "R?", [Annotation("multipleQAs", qa_pairs=[QAPair("R1?", ["y"])])])
    assert not examples[0].is_multi and examples[1].is_multi


@pytest.mark.parametrize("record, expected", [
    ({"id": "9", "question": "Q?"}, "dev.json: record 1 (id 9): 'annotations' missing"),
    ({"id": "9", "question": 3, "annotations": []}, "record 1 (id 9): 'question' must be a string"),
    ({"id": "9", "question": "Q?", "annotations": []}, "record 1 (id 9): 'annotations' must be a non-empty list"),
    ({"id": "9", "question": "Q?", "annotations": [{"type": "other"}]}, "record 1 (id 9): annotation 0: 'type' must be"),
    ({"id": "9", "question": "Q?", "annotations": [{"type": "multipleQAs", "qaPairs": [{"answer": ["a"]}]}]},
     "record 1 (id 9): annotation 0, qaPair 0: 'question' missing"),
    ({"question": "Q?"}, "record 1: 'id' missing"),
    ({"id": "7", "question": "Q?", "annotations": [{"type": "singleAnswer", "answer": ["x"]}]}, "record 1 (id 7): duplicate id"),
])
def test_load_ambignq_errors_name_file_and_record(tmp_path, record, expected):
    with pytest.raises(DataError) as err:
        load_ambignq(_write(tmp_path, "dev.json", [GOOD, record]))
    assert expected in str(err.value)
    assert "dev.json" in str(err.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(DataError, match=r"missing\.json: file not found"):
        load_ambignq(tmp_path / "missing.json")
    with pytest.raises(DataError, match=r"bad\.json: not valid JSON \(.* line 1, column \d+\)"):
        load_ambignq(_write(tmp_path, "bad.json", "[{"))
    with pytest.raises(DataError, match=r"obj\.json: expected a JSON list of examples, got an object"):
        load_ambignq(_write(tmp_path, "obj.json", {}))


def test_load_nq_open_ids_are_line_numbers(tmp_path):
    path = _write(tmp_path, "nq.jsonl", '{"question": "a", "answer": ["x"]}\n\n{"question": "b", "answer": ["y", "z"]}\n')
    assert load_nq_open(path) == [NQExample("0", "a", ["x"]), NQExample("2", "b", ["y", "z"])]
    with pytest.raises(DataError, match=r"nq2\.jsonl: line 1: 'answer' missing"):
        load_nq_open(_write(tmp_path, "nq2.jsonl", '{"question": "a", "answer": ["x"]}\n{"question": "b"}\n'))
    with pytest.raises(DataError, match=r"nq3\.jsonl: line 0: not valid JSON"):
        load_nq_open(_write(tmp_path, "nq3.jsonl", "{oops\n"))


def test_load_predictions_formats(tmp_path):
    full = load_ambig_predictions(_write(tmp_path, "p.json", {"7": [{"question": "Q1?", "answer": "x"}], "8": []}))
    assert full["7"] == AmbigPrediction(["x"], ["Q1?"])
    answers = load_ambig_predictions(_write(tmp_path, "a.json", {"7": ["x", "y"], "8": "z"}))
    assert answers == {"7": AmbigPrediction(["x", "y"]), "8": AmbigPrediction(["z"])}
    assert load_answer_predictions(_write(tmp_path, "n.json", {"0": "x", "1": ["y", "z"], "2": []})) == {"0": "x", "1": "y", "2": ""}


@pytest.mark.parametrize("content, expected", [
    ({"7": [{"question": "Q?"}]}, "pred.json: id 7: item 0: 'answer' missing"),
    ({"7": [{"question": "Q?", "answer": 3}]}, "pred.json: id 7: item 0: 'answer' must be a string"),
    ({"7": 5}, "pred.json: id 7: prediction must be a list"),
    ({"7": ["x"], "8": [{"question": "Q?", "answer": "y"}]}, "pred.json: mixes answers-only lists and question-answer pairs"),
    (["x"], "pred.json: expected a JSON object keyed by question id, got a list"),
])
def test_prediction_errors(tmp_path, content, expected):
    with pytest.raises(DataError) as err:
        load_ambig_predictions(_write(tmp_path, "pred.json", content))
    assert expected in str(err.value)
