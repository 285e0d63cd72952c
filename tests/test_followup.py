"""Follow-up questions (QuAC): standalone rewriting with the real embedded model and its rules,
the ``ask`` CLI's conversations and history file, and the follow-up evaluation."""

from __future__ import annotations

import json

import pytest

from ambigdemo.evaluation import followups
from ambigdemo.evaluation.metrics import answer_shown
from ambigdemo.stages.followup import FollowUps, bound, check_standalone, needs_context, rule_rewrite, topic
from ambigdemo.types import Turn
from tests.test_cli_ask import ROOT, ask

SHAKESPEARE = [Turn("Who wrote Romeo and Juliet?", ["William Shakespeare"])]


@pytest.mark.parametrize(
    ("asked", "refers"),
    [
        ("When was he born?", True),
        ("What about Bolivia?", True),
        ("When?", True),
        ("How many people died?", True),  # leaves out what it is about
        ("What did Neil Armstrong eat on the Moon?", False),
        ("What is Saturn's largest moon?", False),
    ],
)
def test_needs_context_finds_follow_ups_that_refer_back(asked, refers):
    assert needs_context(asked) is refers


def test_check_refuses_invented_dropped_and_unfinished_rewrites():
    asked = "How many sonnets did he write?"
    assert check_standalone(asked, "How many sonnets did William Shakespeare write?", SHAKESPEARE) is None
    assert check_standalone(asked, "How many sonnets did Christopher Marlowe write?", SHAKESPEARE) == "adds words the conversation does not have"
    assert check_standalone(asked, "How many plays did William Shakespeare write?", SHAKESPEARE) is not None
    assert check_standalone(asked, "Who wrote Romeo and Juliet?", SHAKESPEARE) == "drops words of the question"
    assert check_standalone(asked, "How many sonnets did William Shakespeare write", SHAKESPEARE) == "not a single question"
    assert check_standalone(asked, asked, SHAKESPEARE) == "still refers back"


def test_rules_resolve_pronouns_ellipsis_and_bare_question_words():
    paris = [Turn("What is the capital of France?", ["Paris"]), Turn("What river is Paris on?", ["Seine"])]
    assert topic(paris) == "Paris", "the conversation is still about Paris, not the river"
    assert rule_rewrite("What is its nickname?", paris) == "What is the nickname of Paris?"
    capitals = [Turn("What is the capital of South Africa?", ["Pretoria", "Cape Town"])]
    assert rule_rewrite("What about Bolivia?", capitals) == "What is the capital of Bolivia?"
    planets = [Turn("What is the smallest planet in the Solar System?", ["Mercury"])]
    assert rule_rewrite("And the largest?", planets) == "What is the largest planet in the Solar System?"
    beatles = [Turn("Where were the Beatles formed?", ["Liverpool"])]
    assert rule_rewrite("When?", beatles) == "When were the Beatles formed?"
    assert rule_rewrite("When?", [Turn("Who discovered penicillin?", ["Alexander Fleming"])]) == "", "no auxiliary to keep"
    davinci = [Turn("Who painted the Mona Lisa?", ["Leonardo da Vinci"]), Turn("What nationality was Leonardo da Vinci?", ["Italian"])]
    assert rule_rewrite("Who was his younger contemporary?", davinci) == "Who was Leonardo da Vinci's younger contemporary?"


def test_the_embedded_model_rewrites_follow_ups_and_leaves_clear_questions_alone(pipeline):
    penicillin = [Turn("Who discovered penicillin?", ["Alexander Fleming"])]
    when = pipeline.standalone("When?", penicillin)
    assert when.source == "llm" and when.question == "When did Alexander Fleming discover penicillin?"
    assert when.edit.added and "When" not in when.edit.removed
    he = pipeline.standalone("How many sonnets did he write?", SHAKESPEARE)
    assert he.question == "How many sonnets did William Shakespeare write?" and "he" in he.edit.removed
    clear = pipeline.standalone("What is the capital of Japan?", SHAKESPEARE)
    assert (clear.question, clear.source) == ("What is the capital of Japan?", "as asked")
    first = pipeline.standalone("When was he born?", [])
    assert (first.question, first.source) == ("When was he born?", "as asked"), "no history: nothing to resolve"


def test_without_a_model_the_rules_stand_in_and_nothing_unchecked_is_used():
    rules = FollowUps(None)
    assert rules.standalone("Which mission did he command?", [Turn("Who was the first man on the moon?", ["Neil Armstrong"])]).question == (
        "Which mission did Neil Armstrong command?"
    )
    unresolved = rules.standalone("Who was in the band?", [Turn("Where were the Beatles formed?", ["Liverpool"])])
    assert (unresolved.question, unresolved.source) == ("Who was in the band?", "as asked")


def test_ask_cli_answers_a_conversation_and_keeps_its_history_file(preset, tmp_path):
    history = tmp_path / "conversation.json"
    proc = ask("Who developed the theory of relativity?", "When did he receive the Nobel Prize?", "--json", "--history", str(history))
    assert proc.returncode == 0, proc.stderr
    first, second = json.loads(proc.stdout)
    assert any("Einstein" in i["answer"] for i in first["interpretations"])
    assert second["asked"] == "When did he receive the Nobel Prize?"
    assert second["question"] == "When did Albert Einstein receive the Nobel Prize?"
    assert any(i["answer"] == "1921" for i in second["interpretations"])
    turns = json.loads(history.read_text(encoding="utf-8"))
    assert [t["question"] for t in turns] == ["Who developed the theory of relativity?", "When did Albert Einstein receive the Nobel Prize?"]

    proc = ask("What is his most famous equation?", "--history", str(history))
    assert proc.returncode == 0, proc.stderr
    assert "answered as: What is Albert Einstein's most famous equation?" in proc.stdout
    assert len(json.loads(history.read_text(encoding="utf-8"))) == 3


def test_ask_cli_refuses_a_broken_history_file_and_keeps_it(tmp_path):
    history = tmp_path / "conversation.json"
    history.write_text('{"question": "not a list"', encoding="utf-8")
    proc = ask("When?", "--history", str(history))
    assert proc.returncode == 2 and "not a JSON history" in proc.stderr
    assert history.read_text(encoding="utf-8") == '{"question": "not a list"'


def test_followup_set_is_large_enough_and_scores_rewrites_and_answers(pipeline):
    items = followups.load(ROOT / "assets" / "followups.json")
    assert len(items) >= 30 and {i.split for i in items} == {"dev", "test"}
    assert any(not i.answers for i in items), "the set has follow-ups the passages cannot answer"
    assert answer_shown([["1912"]], ["15 April 1912"]) and not answer_shown([], ["1912"]) and answer_shown([], [])
    report = followups.evaluate(pipeline, [i for i in items if i.asked == "When did he receive the Nobel Prize?"])
    row = report["rows"][0]
    assert row["exact"] and row["rewritten"]["correct"] and row["gold rewrite"]["correct"]
    assert not row["as asked"]["correct"], "asked as is, the follow-up has no subject to find"
    assert report["splits"]["all"]["rewrite_exact_match"] == 100.0


def test_two_pronouns_never_become_the_same_name():
    darwin = [Turn("Who introduced the theory of natural selection?", ["Charles Darwin"]), Turn("Where was Charles Darwin buried?", ["Westminster Abbey"])]
    assert rule_rewrite("Who presented it with him?", darwin) == ""
    assert rule_rewrite("Where was he buried?", darwin[:1]) == "Where was Charles Darwin buried?"


def test_a_follow_up_the_passages_cannot_answer_says_so(pipeline):
    from ambigdemo.pipeline import CANNOT_ANSWER, NO_ANSWER

    fast = pipeline.with_options(use_generator=False)
    question = "What did Neil Armstrong eat on the Moon?"
    assert fast.ask(question, follow_up=True).message == CANNOT_ANSWER
    assert fast.ask(question).message == NO_ANSWER


def test_a_first_question_whose_pronoun_refers_to_nothing_gets_a_note():
    """Issue 34: "When was he born?" right after Clear was answered about an unrelated work with no warning."""
    lonely = FollowUps().standalone("When was he born?", [])
    assert (lonely.question, lonely.source) == ("When was he born?", "as asked")
    assert lonely.note.startswith("“he” refers to nothing earlier in this conversation")
    assert FollowUps().standalone("Who wrote Hamlet?", []).note == ""
    assert FollowUps().standalone("When was he born?", [Turn("Who wrote Hamlet?", ["William Shakespeare"])]).note == ""


@pytest.mark.parametrize("asked, answerable", [
    ("When was he born?", False),  # issue 47: answered with readings about people the user never named
    ("What is its capital?", False),
    ("When was it built?", False),
    ("When did they split up?", False),
    ("Who wrote it?", True),  # an object pronoun: answered as typed, with the note
    ("Who played him in Gandhi?", True),
    ("Who wrote Hamlet?", True),
    ("Which city is its capital?", False),  # after a copula the possessive is the subject's: it refers back
    ("Which of its moons is the largest?", False),
    ("Which planet is known for its Great Red Spot?", True),  # bound by the question's own "which planet"
    ("Which band released their first album in 1963?", True),
    ("Who founded his own political party?", True),
])
def test_a_first_question_whose_subject_is_only_a_pronoun_is_not_answered(asked, answerable):
    """A newcomer's "Which planet is known for its Great Red Spot?" was refused ("“its” refers to nothing earlier"):
    a possessive the question's own wh-subject binds refers to no one said before, and needs no note."""
    lonely = FollowUps().standalone(asked, [])
    assert lonely.answerable is answerable
    assert bool(lonely.note) is (asked != "Who wrote Hamlet?" and not (answerable and bound(asked)))
    if not answerable:
        assert "there is no one to answer about" in lonely.note and "naming who or what you mean" in lonely.note
    assert FollowUps().standalone(asked, [Turn("Who wrote Hamlet?", ["William Shakespeare"])]).answerable


def test_a_new_question_asked_in_a_conversation_is_not_called_a_follow_up(pipeline):
    """A newcomer asks unrelated questions one after another in the Ask tab: one the passages cannot answer said
    "The passages cannot answer this follow-up (QuAC's CANNOTANSWER)", as if it referred to the one before."""
    from ambigdemo.pipeline import CANNOT_ANSWER, NO_ANSWER
    from ambigdemo.ui.ask import conversation_stream
    from ambigdemo.ui.render import escape

    fast = pipeline.with_options(use_generator=False)
    history = [{"asked": "Who was the first person to walk on the Moon?", "question": "Who was the first person to walk on the Moon?",
                "answers": ["Neil Armstrong"]}]
    *_, new = conversation_stream(fast, "What did Neil Armstrong eat on the Moon?", history)
    *_, follow_up = conversation_stream(fast, "What did he eat on the Moon?", history)
    assert follow_up[1]["value"] == "What did Neil Armstrong eat on the Moon?"  # the same question, asked by reference
    assert escape(NO_ANSWER) in new[2] and escape(CANNOT_ANSWER) not in new[2]
    assert escape(CANNOT_ANSWER) in follow_up[2]
    assert len(new[-1]) == len(follow_up[-1]) == 2  # either way a turn of the conversation
