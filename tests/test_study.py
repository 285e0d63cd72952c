"""Bring-your-own systems, study assignment, attention checks and annotator quality, on real files and SQLite."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ambigdemo.judging.arena import Arena
from ambigdemo.judging.predictions import guess_format, load_questions, read_predictions, save_system
from ambigdemo.judging.quality import annotator_reports, flagged
from ambigdemo.judging.rating import compute_leaderboard
from ambigdemo.judging.judgment import Judgment
from ambigdemo.judging.store import JudgmentStore
from ambigdemo.judging.study import FULL, SHORT, Study, eligible_for_check
from ambigdemo.judging.systems import SpecError, SystemAnswer, load_systems
from ambigdemo.ui.compare import CompareSession

GOLD = [
    {"id": "q1", "question": "Who sings what a beautiful name?", "annotations": [
        {"type": "multipleQAs", "qaPairs": [
            {"question": "Who wrote and first sang What a Beautiful Name in 2016?", "answer": ["Hillsong Worship"]},
            {"question": "Who sang the 2017 cover of What a Beautiful Name?", "answer": ["Lauren Daigle"]}]}]},
    {"id": "q2", "question": "When did the new family guy season come out?", "annotations": [
        {"type": "singleAnswer", "answer": ["September 30, 2018", "2018"]}]},
    {"id": "q3", "question": "Who won the world cup?", "annotations": [
        {"type": "singleAnswer", "answer": ["France"]}]},
]
LONG = ("Hillsong Worship first recorded What a Beautiful Name in 2016 on the album Let There Be Light, "
        "and the song was later covered by several other artists.")


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(GOLD), encoding="utf-8")
    return path


def test_ambigqa_predictions_read_with_their_question_set(tmp_path: Path, gold_file: Path) -> None:
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({"q1": [{"question": "Who first sang it?", "answer": "Hillsong Worship"},
                                        {"question": "Who covered it?", "answer": "Lauren Daigle"}],
                                 "q2": [{"question": "When did season 17 come out?", "answer": "2018"}]}))
    assert guess_format(preds) == "ambigqa"
    answers = read_predictions(preds, "stored:spanseq", questions=load_questions(gold_file))
    first = answers[0]
    assert first.question == "Who sings what a beautiful name?"
    assert first.interpretations == [{"question": "Who first sang it?", "answer": "Hillsong Worship"},
                                     {"question": "Who covered it?", "answer": "Lauren Daigle"}]
    assert first.paragraph == "Who first sang it?: Hillsong Worship\nWho covered it?: Lauren Daigle"


def test_asqa_predictions_and_an_asqa_question_set(tmp_path: Path) -> None:
    asqa = tmp_path / "asqa.json"
    asqa.write_text(json.dumps({"dev": {"q1": {
        "ambiguous_question": "Who sings what a beautiful name?",
        "qa_pairs": [{"question": "Who first sang it?", "short_answers": ["Hillsong Worship"]}],
        "annotations": [{"long_answer": LONG}]}}}))
    preds = tmp_path / "long.json"
    preds.write_text(json.dumps({"q1": LONG}))
    questions = load_questions(asqa)
    assert questions[0].short_answers == [["Hillsong Worship"]] and questions[0].long_answers == [LONG]
    assert guess_format(preds) == "asqa"
    assert read_predictions(preds, "stored:long", questions=questions)[0].paragraph == LONG


def test_bad_prediction_files_name_what_is_wrong_and_write_nothing(tmp_path: Path, gold_file: Path) -> None:
    questions = load_questions(gold_file)
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"q1": ["Hillsong Worship"], "nope": ["x"], "gone": ["y"]}))
    with pytest.raises(SpecError, match="2 ids are not in the question set: nope, gone"):
        read_predictions(unknown, "stored:x", questions=questions)
    with pytest.raises(SpecError, match="give the question set"):
        read_predictions(unknown, "stored:x")
    lines = tmp_path / "mine.jsonl"
    lines.write_text('{"question": "Who won the world cup?", "paragraph": "France [1]."}\n\n{"question": "q2?"}\n')
    with pytest.raises(SpecError, match=r"mine.jsonl:3: \"paragraph\" must be a non-empty string"):
        read_predictions(lines, "stored:mine")
    assert not (tmp_path / "systems").exists()
    with pytest.raises(SpecError, match="system name"):
        save_system("../escape", [], tmp_path / "systems")


def test_save_system_replaces_the_file_whole(tmp_path: Path, gold_file: Path) -> None:
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({"q1": ["Hillsong Worship", "Lauren Daigle"], "q3": ["France"]}))
    answers = read_predictions(preds, "stored:a", questions=load_questions(gold_file))
    path = save_system("a", answers, tmp_path / "systems")
    assert [json.loads(line)["paragraph"] for line in path.read_text().splitlines()] == [
        "Hillsong Worship; Lauren Daigle", "France"]
    assert list((tmp_path / "systems").iterdir()) == [path]  # no partial file left beside it
    loaded = load_systems(None, ["stored:a", f"stored:b={path}"], tmp_path)
    assert loaded["stored:a"].covers("who won the WORLD cup?")


def _two_systems(tmp_path: Path, readings: int = 1) -> dict:
    """Two stored systems answering every GOLD question; with ``readings`` 2, each answer lists a
    second interpretation, named in a sentence of its own."""
    folder = tmp_path / "systems"
    for name, tag in (("mine", "Mine"), ("theirs", "Theirs")):
        second = f" Read the other way, it is {tag} Two." if readings > 1 else ""
        rows = [{"question": g["question"], "paragraph": f"{LONG} In short: {tag}.{second}",
                 "interpretations": [{"question": g["question"], "answer": tag},
                                     {"question": "Read the other way?", "answer": f"{tag} Two"}][:readings]}
                for g in GOLD]
        folder.mkdir(exist_ok=True)
        (folder / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return load_systems(None, ["stored:mine", "stored:theirs"], tmp_path)


def _study(gold_file: Path, **kw) -> Study:
    return Study("s1", ["stored:mine", "stored:theirs"], load_questions(gold_file), **kw)


def _vote(pair, annotator: str, overall: str = "A") -> Judgment:
    return Judgment.new(question=pair.question, system_a=pair.system_a, system_b=pair.system_b, answer_a="{}",
                        answer_b="{}", annotator=annotator, comprehensiveness="tie", fluency="tie", overall=overall, started_at="2026-01-01T00:00:00+00:00",
                        created_at="2026-01-01T00:00:30+00:00")


def test_assignment_fills_the_overlap_target_and_balances_sides(tmp_path: Path, gold_file: Path) -> None:
    study = _study(gold_file, per_pair=2, attention_share=0.0)
    arena = Arena(_two_systems(tmp_path), load_study_pool(study), study=study)
    store = JudgmentStore(tmp_path / "j.sqlite")
    rng = random.Random(1)
    seen: dict[str, list[str]] = {}
    for annotator in ("ann1", "ann2", "ann3"):
        while (pair := arena.next_pair(annotator, store, rng)) is not None:
            store.add(_vote(pair, annotator))
            seen.setdefault(annotator, []).append(pair.pair_id)
    assert sorted(seen["ann1"]) == sorted(seen["ann2"]) and len(seen["ann1"]) == 3
    assert "ann3" not in seen  # every pair already has its 2 judgments
    assert set(store.pair_counts().values()) == {2}
    left = store.left_counts("ann1")
    assert abs(left.get("stored:mine", 0) - left.get("stored:theirs", 0)) <= 1


def load_study_pool(study: Study):
    from ambigdemo.judging.systems import Pool

    return Pool.from_questions([q.question for q in study.questions])


def _check_vote(pair, annotator: str, comprehensiveness: str) -> Judgment:
    return Judgment.new(question=pair.question, system_a=pair.system_a, system_b=pair.system_b, answer_a="{}",
                        answer_b="{}", annotator=annotator, comprehensiveness=comprehensiveness, fluency="tie",
                        overall="tie", started_at="2026-01-01T00:00:00+00:00", created_at="2026-01-01T00:00:30+00:00")


def test_attention_checks_and_quality_flags(tmp_path: Path, gold_file: Path) -> None:
    study = _study(gold_file, per_pair=1, attention_share=0.99)
    arena = Arena(_two_systems(tmp_path, readings=2), load_study_pool(study), study=study)
    assert len(arena.checks) == 3
    store = JudgmentStore(tmp_path / "j.sqlite")
    rng = random.Random(3)
    check = arena.next_pair("careless", store, rng)
    assert {check.system_a, check.system_b} == {FULL, SHORT}
    full, short = arena.answer(FULL, check.question), arena.answer(SHORT, check.question)
    assert [i["answer"] for i in full.interpretations] == ["Mine", "Mine Two"]
    assert [i["answer"] for i in short.interpretations] == ["Mine"], "the copy covers fewer interpretations"
    assert short.paragraph == f"{LONG} In short: Mine.", "it ends on a whole sentence, not on '…'"
    assert {arena.shown_name(s, check.question) for s in (FULL, SHORT)} == {"stored:mine"}, "revealed as any pair"
    for annotator, vote in (("careless", "copy"), ("fair-looking", "tie"), ("careful", "full")):
        for _ in range(3):
            pair = arena.next_pair(annotator, store, rng)
            if pair is None or FULL not in (pair.system_a, pair.system_b):
                continue
            good = "A" if pair.system_a == FULL else "B"
            store.add(_check_vote(pair, annotator, {"full": good, "tie": "tie", "copy": {"A": "B", "B": "A"}[good]}[vote]))
    reports = {r.annotator: r for r in annotator_reports(store.iter_all(), min_read_s=60)}
    assert reports["careless"].attention_passed == 0 and reports["careless"].attention_total == 3
    assert any("attention" in f for f in reports["careless"].flags)
    assert reports["fair-looking"].attention_passed == 0, "a tie is no fair verdict where one side lists fewer readings"
    assert reports["careful"].attention_passed == 3
    assert any("reading time 30 s" in f for f in reports["careful"].flags)
    board = compute_leaderboard(store.iter_all(), rounds=0)
    assert all(not s.system.startswith("check:") for s in board.systems)


def test_a_one_reading_answer_is_never_an_attention_check(tmp_path: Path, gold_file: Path) -> None:
    """Issue 47: a check built from a one-reading answer ("Who discovered penicillin? -> Alexander
    Fleming") showed the same tick on both sides, and the annotator who fairly chose tie failed 4 of 4."""
    study = _study(gold_file, per_pair=1, attention_share=0.99)
    arena = Arena(_two_systems(tmp_path, readings=1), load_study_pool(study), study=study)
    assert arena.checks == []
    store = JudgmentStore(tmp_path / "j.sqlite")
    pair = arena.next_pair("ann", store, random.Random(3))
    assert FULL not in (pair.system_a, pair.system_b) and SHORT not in (pair.system_a, pair.system_b)


@pytest.mark.parametrize("paragraph, interpretations, eligible", [
    (f"{LONG} In short: Mine.", [{"question": "q?", "answer": "Mine"}], False),  # one reading: a tie is fair
    (f"Mine says {LONG}", [{"question": "q?", "answer": "Mine"}], False),
    (f"Mine says {LONG} Yours is the other.",
     [{"question": "q?", "answer": "Mine"}, {"question": "q2?", "answer": "Yours"}], True),
    (f"Mine and Yours say {LONG}",  # every sentence names the second answer: the copy would still name it
     [{"question": "q?", "answer": "Mine"}, {"question": "q2?", "answer": "Yours"}], False),
    ("I don't know: the passages I read do not say who sings it, so I cannot answer this question.", [], False),
    ("Mine. Yours.", [{"question": "q?", "answer": "Mine"}, {"question": "q2?", "answer": "Yours"}], False),  # too short
])
def test_an_attention_check_needs_a_cut_copy_that_is_clearly_worse(paragraph, interpretations, eligible) -> None:
    """Issues 34 and 47: a check whose cut copy is no worse (an "I don't know" answer, a one-reading
    answer) made a fair tie fail; the copy must list fewer interpretations and name none it dropped."""
    answer = SystemAnswer("stored:mine", "Who sings it?", paragraph, interpretations, [])
    assert eligible_for_check(answer) is eligible


def test_a_complete_study_says_so_to_a_new_annotator(tmp_path: Path, gold_file: Path) -> None:
    """Issue 34: someone who had judged nothing was told "You have judged every available pair"."""
    study = _study(gold_file, per_pair=1, attention_share=0.0)
    arena = Arena(_two_systems(tmp_path), load_study_pool(study), study=study)
    store = JudgmentStore(tmp_path / "j.sqlite")
    session = CompareSession(arena, store, random.Random(0))
    assert session.none_left().startswith("You have judged")  # not complete yet
    while (pair := arena.next_pair("early", store, session.rng)) is not None:
        store.add(_vote(pair, "early", "A"))
    assert arena.next_pair("newcomer", store, session.rng) is None
    assert session.none_left() == "This study is complete: every pair has all the judgments it needs. Thank you!"


def test_an_outlier_is_flagged_and_can_be_left_out() -> None:
    judgments = []
    for n in range(30):
        left, right, x_side = ("x", "y", "A") if n % 2 else ("y", "x", "B")  # x preferred, shown on either side
        for annotator in ("a", "b", "c"):
            judgments.append(Judgment.new(question=f"q{n}", system_a=left, system_b=right, answer_a="{}",
                                          answer_b="{}", annotator=annotator, comprehensiveness="tie", fluency="tie",
                                          overall=x_side))
        judgments.append(Judgment.new(question=f"q{n}", system_a=left, system_b=right, answer_a="{}", answer_b="{}",
                                      annotator="contrarian", comprehensiveness="tie", fluency="tie",
                                      overall={"A": "B", "B": "A"}[x_side]))
    reports = {r.annotator: r for r in annotator_reports(judgments)}
    assert reports["contrarian"].outlier_p < 0.01 and reports["a"].outlier_p > 0.5
    assert flagged(judgments) == {"contrarian"}
    kept = compute_leaderboard(judgments, rounds=0, exclude=flagged(judgments))
    assert kept.n_judgments == 90 and kept.systems[0].system == "x"


def test_a_study_file_round_trips_and_names_its_errors(tmp_path: Path, gold_file: Path) -> None:
    study = _study(gold_file)
    study.save(tmp_path)
    assert Study.load("s1", tmp_path) == study
    with pytest.raises(SpecError, match="no study 'other'"):
        Study.load("other", tmp_path)
    with pytest.raises(SpecError, match="two or more systems"):
        Study("s2", ["stored:mine"], study.questions)


def test_a_verdict_before_the_minimum_reading_time_is_refused_and_loses_nothing(tmp_path: Path, gold_file: Path) -> None:
    from ambigdemo.ui.compare import CompareSession

    study = _study(gold_file, per_pair=1, attention_share=0.0, min_read_s=60)
    arena = Arena(_two_systems(tmp_path), load_study_pool(study), study=study)
    store = JudgmentStore(tmp_path / "j.sqlite")
    session = CompareSession(arena, store, random.Random(0))
    state = session.new_state(arena.next_pair("ann", store, session.rng))
    for state in session.generate(state):
        pass
    kind, message, _ = session.judge("ann", state, "vote", (), (), "A", "tie", "A")
    assert kind == "rejected" and "Please read both answers" in message and "60" in message
    assert store.count() == 0 and not state["done"]
    state["read_from"] -= 60
    assert session.judge("ann", state, "vote", (), (), "A", "tie", "A")[0] == "saved"
    assert session.judge("ann", state, "skip")[0] == "repeat"
