"""Named systems, question pool and pair selection; the Compare tab's server-side rules."""

from __future__ import annotations

import json
import random

import pytest
from conftest import stored_rows

from ambigdemo.config import Config
from ambigdemo.judging.arena import Arena
from ambigdemo.judging.judgment import Judgment
from ambigdemo.judging.store import JudgmentStore
from ambigdemo.judging.systems import (
    DEFAULT_SYSTEMS,
    POOL_FILE,
    Pool,
    SpecError,
    StoredSystem,
    SystemAnswer,
    load_systems,
    next_pair,
)
from ambigdemo.ui.compare import CompareSession, answer_html, interpretation_choices, reveal_html

QUESTIONS = ["Who wrote Hamlet?", "When did World War II end?", "What is the capital of Bolivia?"]
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & [1]'


def write_stored(path, questions, tag="ref", interpretations=True, extra=None):
    with path.open("w", encoding="utf-8") as f:
        for q in questions:
            record = {"question": q, "answer": f"{tag} answer to {q} [1]"}
            if interpretations:
                record["interpretations"] = [{"question": f"{q} (first)", "answer": "one"},
                                             {"question": f"{q} (second)", "answer": "two"}]
            f.write(json.dumps(record) + "\n")
        for record in extra or []:
            f.write(json.dumps(record) + "\n")
    return path


@pytest.fixture
def stored_specs(tmp_path):
    return [f"stored:{name}={write_stored(tmp_path / f'{name}.jsonl', QUESTIONS, name)}" for name in ("x", "y", "z")]


@pytest.fixture
def store(tmp_path):
    s = JudgmentStore(tmp_path / "judgments.sqlite")
    yield s
    s.close()


def vote(pair, annotator="ann", verdict="vote", **fields):
    return Judgment.new(question=pair.question, system_a=pair.system_a, system_b=pair.system_b,
                        answer_a={"paragraph": "a"}, answer_b={"paragraph": "b"}, annotator=annotator,
                        left_is=pair.left_is, verdict=verdict,
                        **({"comprehensiveness": "tie", "fluency": "tie", "overall": "A"} if verdict == "vote" else {}), **fields)


def test_stored_systems_load_from_file(tmp_path, stored_specs):
    refs = write_stored(tmp_path / "human.jsonl", QUESTIONS[:1], "human",
                        extra=[{"question": "Who  painted\tthe Mona Lisa?", "answer": "Leonardo da Vinci."}])
    systems = load_systems(None, [f"stored:human={refs}", stored_specs[0]])
    assert list(systems) == ["stored:human", "stored:x"]
    human = systems["stored:human"]
    assert isinstance(human, StoredSystem)
    assert human.covers("who painted the mona lisa?") and not human.covers(QUESTIONS[1])
    answer = human.answer("Who wrote Hamlet?")
    assert answer.system == "stored:human" and answer.paragraph.startswith("human answer")
    assert answer.interpretations == [{"question": "Who wrote Hamlet? (first)", "answer": "one"},
                                      {"question": "Who wrote Hamlet? (second)", "answer": "two"}]
    assert human.answer("Who painted the Mona Lisa?").interpretations == []
    again = SystemAnswer.from_dict(json.loads(answer.to_json()))
    assert again == answer


def test_stored_system_found_by_name_in_data_dir(tmp_path):
    (tmp_path / "systems").mkdir()
    write_stored(tmp_path / "systems" / "human.jsonl", QUESTIONS)
    write_stored(tmp_path / "systems" / "other.jsonl", QUESTIONS)
    assert list(load_systems(None, "stored:human, stored:other", data_dir=tmp_path)) == ["stored:human", "stored:other"]
    with pytest.raises(SpecError, match="no file"):
        load_systems(None, "stored:missing,stored:human", data_dir=tmp_path)


@pytest.mark.parametrize("line, message", [
    ('{"question": "q"}', "paragraph"),
    ('{"question": "q", "answer": "a", "interpretations": [{"question": 1}]}', "interpretation"),
    ("not json", ""),
    ('["q", "a"]', "object"),
])
def test_stored_system_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "ok?", "answer": "fine"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(SpecError, match=rf"bad.jsonl:2: .*{message}"):
        StoredSystem.load("bad", path)


def test_system_specs_from_env_and_errors(monkeypatch, stored_specs):
    monkeypatch.setenv("AMBIGDEMO_COMPARE_SYSTEMS", ",".join(stored_specs[:2]))
    assert list(load_systems(None, Config.from_env().compare_systems)) == ["stored:x", "stored:y"]
    with pytest.raises(SpecError, match="unknown system"):
        load_systems(None, ["nope", stored_specs[0]])
    with pytest.raises(SpecError, match="at least two"):
        load_systems(None, [stored_specs[0]])
    with pytest.raises(SpecError, match="needs the loaded pipeline"):
        load_systems(None, ["full", stored_specs[0]])
    with pytest.raises(SpecError, match="name"):
        load_systems(None, ["stored:../etc=x.jsonl", stored_specs[0]])


def test_pool_formats(tmp_path, monkeypatch):
    lines = tmp_path / "pool.txt"
    lines.write_text("# comment\nWho wrote Hamlet?\n\nwho  wrote hamlet?\nWhen did WWII end?\n", encoding="utf-8")
    assert Pool.load(lines).questions == ("Who wrote Hamlet?", "When did WWII end?")
    listed = tmp_path / "pool.json"
    listed.write_text(json.dumps(["A?", {"question": "B?"}]), encoding="utf-8")
    assert Pool.load(listed).questions == ("A?", "B?")
    jsonl = write_stored(tmp_path / "refs.jsonl", QUESTIONS)
    monkeypatch.setenv("AMBIGDEMO_COMPARE_POOL", str(jsonl))
    assert Pool.load(Config.from_env().compare_pool).questions == tuple(QUESTIONS)
    monkeypatch.delenv("AMBIGDEMO_COMPARE_POOL")
    assert Config.from_env().compare_pool == ""
    assert Pool.load().source == str(POOL_FILE) and len(Pool.load().questions) >= 15
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(SpecError, match="empty"):
        Pool.load(empty)


def test_next_pair_never_repeats_a_judged_pair(store, stored_specs):
    arena = Arena(load_systems(None, stored_specs), Pool.from_questions(QUESTIONS))
    rng = random.Random(1)
    seen = []
    while (pair := arena.next_pair("ann", store, rng)) is not None:
        assert pair.pair_id not in seen
        assert pair.pair_id not in store.judged_pairs("ann")
        store.add(vote(pair))
        seen.append(pair.pair_id)
        assert len(seen) <= 9
    assert len(seen) == 9 == len(store.judged_pairs("ann"))  # 3 questions x 3 system pairs
    # Another annotator still gets pairs; a skip does not count as judged, but can be excluded.
    pair = arena.next_pair("other", store, rng)
    store.add(vote(pair, annotator="other", verdict="skip"))
    assert pair.pair_id not in store.judged_pairs("other")
    for _ in range(30):
        again = arena.next_pair("other", store, rng, exclude=[pair.pair_id])
        assert again is not None and again.pair_id != pair.pair_id


def test_next_pair_only_where_both_systems_answer(store, tmp_path, stored_specs):
    partial = write_stored(tmp_path / "partial.jsonl", QUESTIONS[:1], "partial")
    systems = load_systems(None, [stored_specs[0], f"stored:partial={partial}"])
    rng = random.Random(0)
    pairs = {next_pair("ann", store, rng, questions=QUESTIONS, systems=systems).question for _ in range(20)}
    assert pairs == {QUESTIONS[0]}


def test_sides_are_randomised_and_real_order_recorded(store, stored_specs):
    systems = load_systems(None, stored_specs[:2])
    rng = random.Random(7)
    pairs = [next_pair("ann", store, rng, questions=QUESTIONS[:1], systems=systems) for _ in range(200)]
    swapped = sum(p.swapped for p in pairs)
    assert 70 < swapped < 130
    for p in pairs:
        assert p.canonical == ("stored:x", "stored:y")
        assert (p.system_a, p.system_b) == (("stored:y", "stored:x") if p.swapped else ("stored:x", "stored:y"))
        assert p.left_is == p.system_a
    # The stored judgment records which system was shown on the left.
    flipped = next(p for p in pairs if p.swapped)
    stored, _ = store.add(vote(flipped))
    assert (stored.system_a, stored.system_b, stored.left_is) == ("stored:y", "stored:x", "stored:y")


def test_hostile_imported_answer_is_escaped(tmp_path, store, stored_specs):
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps({
        "question": QUESTIONS[0], "answer": HOSTILE,
        "interpretations": [{"question": "<b onmouseover=alert(2)>q</b>", "answer": "</label><script>x()</script>"}],
        "passages": [{"title": "<i>t</i>", "text": "<iframe src=javascript:alert(3)>"}],
    }) + "\n", encoding="utf-8")
    evil = StoredSystem.load("evil", path).answer(QUESTIONS[0])
    html = answer_html(evil, "A")
    for tag in ("<script", "<img", "<b ", "<iframe", "<i>"):
        assert tag not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html and "&amp;" in html
    assert '<a class="cite" href="#cmp-a-p1">[1]</a>' in html  # citations still link, inside escaped text
    assert "&lt;iframe src=javascript:alert(3)&gt;" in html
    # Checkbox labels are plain text (Gradio renders them as text nodes), kept verbatim and short.
    assert interpretation_choices(evil) == [("1. <b onmouseover=alert(2)>q</b> → </label><script>x()</script>", 0)]
    assert "<script" not in reveal_html("<script>", "b", "<img src=x>")
    # A judgment with the hostile answer and comment is stored verbatim (escaped only when shown).
    arena = Arena({**load_systems(None, stored_specs[:2]),
                   "stored:evil": StoredSystem.load("evil", path)}, Pool.from_questions(QUESTIONS[:1]))
    session = CompareSession(arena, store, random.Random(0))
    state = None
    while state is None or "stored:evil" not in (state["pair"]["system_a"], state["pair"]["system_b"]):
        state = session.new_state(arena.next_pair("ann", store, session.rng))
    for state in session.generate(state):
        pass
    kind, _, j = session.judge("ann", state, "vote", [0], [0], "A", "B", "tie", comment=HOSTILE)
    assert kind == "saved" and j.comment == HOSTILE.strip()
    assert HOSTILE in {json.loads(j.answer_a)["paragraph"], json.loads(j.answer_b)["paragraph"]}


def test_judge_rules_and_idempotency(tmp_path, stored_specs):
    store = JudgmentStore(tmp_path / "capped.sqlite", daily_cap=2)
    arena = Arena(load_systems(None, stored_specs), Pool.from_questions(QUESTIONS))
    session = CompareSession(arena, store, random.Random(3))
    state = session.new_state(arena.next_pair("ann", store, session.rng))
    kind, message, _ = session.judge("ann", state, "vote", [], [], "A", "A", "A")
    assert kind == "rejected" and "both answers" in message  # answers not generated yet
    states = list(session.generate(state))
    assert len(states) == 2 and session.complete(state)
    assert session.judge("", state, "vote", [], [], "A", "A", "A")[0] == "rejected"
    kind, message, _ = session.judge("ann", state, "vote", [], [], "A", None, "A")
    assert kind == "rejected" and "fluency" in message
    kind, message, first = session.judge("ann", state, "vote", [1, 1, "0", 9, "x"], [], "A", "tie", "B")
    assert kind == "saved" and "1 verdict today" in message
    assert first.acc_a == [0, 1] and first.acc_a_total == 2 and first.acc_b == [] and first.acc_b_total == 2
    assert json.loads(first.answer_a)["system"] == state["pair"]["system_a"]
    kind, message, again = session.judge("ann", state, "vote", [], [], "B", "B", "B")  # double click
    assert kind == "repeat" and again.id == first.id and store.count() == 1
    assert message == ("Judgment saved. You have given 1 verdict today (daily cap 2). "
                       "Saved once: repeated submissions of this pair are ignored.")
    # The same pair shown again (new client_key) is refused by the store.
    fresh = session.new_state(arena.next_pair("ann", store, session.rng))
    fresh["pair"] = state["pair"]
    list(session.generate(fresh))
    kind, message, _ = session.judge("ann", fresh, "vote", [], [], "A", "A", "A")
    assert kind == "blocked" and "already judged" in message
    # Skips are free; both_bad counts; then the daily cap applies.
    skip = session.new_state(arena.next_pair("ann", store, session.rng))
    assert session.judge("ann", skip, "skip")[0] == "saved"
    bad = session.new_state(arena.next_pair("ann", store, session.rng))
    list(session.generate(bad))
    kind, _, j = session.judge("ann", bad, "both_bad", [], [], "A", None, "A")  # radios still set: not stored
    assert kind == "saved" and (j.verdict, j.overall, j.comprehensiveness, j.fluency) == ("both_bad", None, None, None)
    row = next(r for r in stored_rows(store.path) if r["id"] == j.id)
    assert (row["comprehensiveness"], row["fluency"], row["overall"]) == (None, None, None)
    assert j.label("overall") == "tie"
    capped = session.new_state(arena.next_pair("ann", store, session.rng))
    list(session.generate(capped))
    kind, message, _ = session.judge("ann", capped, "vote", [], [], "A", "A", "A")
    assert kind == "blocked" and "daily cap" in message
    store.close()


def test_pipeline_systems_share_models_and_serialise(pipeline, store):
    systems = load_systems(pipeline)
    assert list(systems) == list(DEFAULT_SYSTEMS)
    assert systems["evidence"].pipeline.retriever is systems["k4"].pipeline.retriever is pipeline.retriever
    assert systems["k4"].pipeline.config.top_k == 4
    question = "What is the capital of the Netherlands?"
    top = systems["top-passage"].answer(question)
    assert top.interpretations == [] and len(top.passages) == 1 and top.paragraph == top.passages[0]["text"]
    evidence = systems["evidence"].answer(question)
    assert evidence.interpretations and evidence.paragraph and "[" in evidence.paragraph
    assert any("Amsterdam" in i["answer"] or "Hague" in i["answer"] for i in evidence.interpretations)
    for answer in (top, evidence):
        assert SystemAnswer.from_dict(json.loads(json.dumps(answer.to_dict()))) == answer


def test_default_pool_questions_are_answered(pipeline):
    evidence = load_systems(pipeline, ["evidence", "top-passage"])["evidence"]
    pool = Pool.load()
    assert 15 <= len(pool.questions) <= 20
    unanswered = [q for q in pool.questions if not evidence.answer(q).interpretations]
    assert not unanswered
