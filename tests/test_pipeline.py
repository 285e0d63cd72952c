"""The whole answer path, question to Result, on questions the embedded Wikipedia corpus answers."""

from __future__ import annotations

import json
import subprocess
import sys
import re

import pytest

from ambigdemo.config import MAX_QUESTION_CHARS, ROOT
from ambigdemo.pipeline import NO_ANSWER, QuestionError, clean_question
from ambigdemo.text import mentions, normalize_answer
from ambigdemo.types import Result

EIFFEL = "When was the Eiffel Tower built?"
NETHERLANDS = "What is the capital of the Netherlands?"
NO_ANSWER_Q = "Who sings What a Beautiful Name?"
VICTORIA = "When did Queen Victoria reign?"


@pytest.fixture(scope="module")
def answered(pipeline) -> dict[str, Result]:
    """One full run (generator included) per question, shared by the tests below."""
    return {q: pipeline.ask(q) for q in (EIFFEL, NETHERLANDS, VICTORIA)}


def _norm_in(needle: str, haystack: str) -> bool:
    return normalize_answer(needle) in normalize_answer(haystack)


def test_eiffel_tower_answer_is_when_it_was_built(answered):
    result = answered[EIFFEL]
    assert result.answered
    assert any("1887" in i.answer or "1889" in i.answer for i in result.interpretations), result.interpretations


def test_netherlands_capital_includes_amsterdam(answered):
    result = answered[NETHERLANDS]
    assert any(_norm_in("Amsterdam", i.answer) for i in result.interpretations), result.interpretations


def test_a_reign_is_shown_as_the_range_its_passage_states(answered):
    """The passage states the reign as a range ("from 20 June 1837 until her death in 1901"): the card shows
    the range, as the paragraph does, not its first year alone."""
    result = answered[VICTORIA]
    assert [i.answer for i in result.interpretations] == ["20 June 1837 until her death in 1901"]


@pytest.mark.parametrize("question", [EIFFEL, NETHERLANDS, VICTORIA])
def test_result_invariants(answered, question):
    result = answered[question]
    assert result.question == question
    assert result.message == ""
    by_id = {p.id: p for p in result.passages}
    assert len(result.passages) == 8 and len(by_id) == 8
    for i in result.interpretations:
        assert i.passages, i
        assert set(i.passages) <= set(by_id), "interpretations cite retrieved passages only"
        assert any(_norm_in(i.answer, by_id[pid].text) for pid in i.passages), f"{i.answer!r} is in a cited passage"
        assert i.score > 0
    questions = [normalize_answer(i.question) for i in result.interpretations]
    if len(result.interpretations) == 1:
        assert result.interpretations[0].question == question
        assert not result.interpretations[0].edit.added and not result.interpretations[0].edit.removed
    else:
        assert normalize_answer(question) not in questions, "every rewrite differs from the prompt"
        assert len(set(questions)) == len(questions), "rewrites are distinct"
        assert all(i.edit.added or i.edit.removed for i in result.interpretations)
    answers = [normalize_answer(i.answer) for i in result.interpretations]
    assert len(set(answers)) == len(answers), "answers are distinct"


@pytest.mark.parametrize("question", [EIFFEL, NETHERLANDS, VICTORIA])
def test_paragraph_cites_existing_passages_and_names_every_answer(answered, question):
    result = answered[question]
    assert result.paragraph.strip()
    cited = [int(n) for n in re.findall(r"\[(\d+)\]", result.paragraph)]
    assert cited, "the paragraph cites its passages"
    assert all(1 <= n <= len(result.passages) for n in cited)
    for i in result.interpretations:
        assert _norm_in(i.answer, result.paragraph), f"{i.answer!r} named in the paragraph"


@pytest.mark.parametrize("question", [EIFFEL, NETHERLANDS])
def test_timings_and_json(answered, question):
    result = answered[question]
    for stage in ("retrieve", "answers", "rewrite", "summarize", "total", "first_interpretation"):
        assert result.timings_ms[stage] >= 0, stage
    assert result.timings_ms["total"] >= result.timings_ms["first_interpretation"]
    data = json.loads(json.dumps(result.to_dict()))
    assert data["question"] == question
    assert len(data["interpretations"]) == len(result.interpretations)


def test_stream_shows_interpretations_before_the_paragraph(pipeline):
    states = []
    for partial in pipeline.stream(EIFFEL):
        states.append((len(partial.interpretations), partial.paragraph, "total" in partial.timings_ms))
    first, last = states[0], states[-1]
    assert first[0] >= 1 and first[1] == "" and not first[2], "interpretations come first, alone"
    assert last[1] and last[2], "the last state holds the final paragraph"
    assert sum(1 for _, _, done in states if done) == 1


def test_unanswerable_question_gets_the_null_answer(pipeline):
    result = pipeline.ask(NO_ANSWER_Q)
    assert result.interpretations == []
    assert result.paragraph == ""
    assert result.message == NO_ANSWER
    assert result.passages, "passages are still shown"
    assert "total" in result.timings_ms


def test_without_generator_the_paragraph_is_the_evidence_paragraph(pipeline):
    fast = pipeline.with_options(use_generator=False, top_k=4)
    result = fast.ask(EIFFEL)
    assert len(result.passages) == 4
    assert result.paragraph.startswith("\u201cWhen was the Eiffel Tower built?\u201d") or result.paragraph.startswith(
        "The answer to"
    )
    assert pipeline.config.top_k == 8 and pipeline.config.use_generator, "the original is untouched"


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("question", ["", "   ", "\n\t ", None])
def test_empty_question_is_rejected(pipeline, question):
    with pytest.raises(QuestionError, match="Please type a question"):
        pipeline.ask(question)


def test_too_long_question_is_rejected_with_the_limit(pipeline):
    question = "a" * (MAX_QUESTION_CHARS + 1)
    with pytest.raises(QuestionError) as exc:
        pipeline.ask(question)
    assert f"{MAX_QUESTION_CHARS} characters" in str(exc.value)
    assert str(MAX_QUESTION_CHARS + 1) in str(exc.value)


def test_question_limits_count_collapsed_whitespace():
    assert MAX_QUESTION_CHARS == 300
    assert clean_question("  Who   wrote\nHamlet? ") == "Who wrote Hamlet?"
    assert len(clean_question("b" * 300)) == 300
    assert clean_question("word " * 60 + "   ")  # 300 chars once trailing space is trimmed
    with pytest.raises(QuestionError):
        clean_question("b" * 301)


@pytest.mark.parametrize(
    "question",
    [
        "<script>alert(1)</script>",
        "**x**",
        "Où est la tour Eiffel ? 🗼",
        "埃菲尔铁塔是什么时候建造的？",
        "When was the Eiffel Tower built? \u200b\u202e",
        "?",
    ],
)
def test_odd_questions_are_answered_or_rejected_without_crashing(pipeline, question):
    fast = pipeline.with_options(use_generator=False)
    try:
        result = fast.ask(question)
    except QuestionError as exc:
        assert str(exc)
        return
    assert result.question == clean_question(question)
    assert result.answered or result.message == NO_ANSWER
    json.dumps(result.to_dict(), ensure_ascii=False)


EXAMPLES = json.loads((ROOT / "assets" / "examples.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["question"] for e in EXAMPLES])
def test_every_example_in_the_app_gets_its_listed_answers(pipeline, example):
    """Every listed answer is shown, as a reading or under "also in the passages"; an example listed as
    unambiguous gets one reading, an ambiguous one more than one answer on screen."""
    result = pipeline.with_options(use_generator=False).ask(example["question"])
    readings = {i.answer for i in result.interpretations}
    found = readings | {a.answer for a in result.also}
    assert example["answers"], "every listed example is one the embedded corpus answers"
    for answer in example["answers"]:
        assert any(mentions(f, answer) for f in found), (answer, found)
    if example["ambiguous"]:
        assert len(found) > 1, found
    else:
        assert len(readings) == 1, readings


def test_the_answer_path_never_imports_torch(tmp_path):
    """torch is for export only: loading the pipeline and answering must not import it (thinc would)."""
    code = (
        "import sys\n"
        "from ambigdemo.config import Config\n"
        "from ambigdemo.pipeline import Pipeline\n"
        "Pipeline.load(Config.from_env()).ask('Who painted the Mona Lisa?')\n"
        "print(sorted(m for m in ('torch', 'transformers', 'optimum') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_pipeline_loaded_beside_another_shares_its_reader_session_only_for_the_same_model(pipeline, reader_15b):
    """A Space loads its second preset beside the pipeline serving (``share``): the same reader model is one
    session, answering as the first does; another reader model is loaded on its own."""
    from dataclasses import replace

    from ambigdemo.pipeline import Pipeline

    config = replace(pipeline.config, use_generator=False)
    same = Pipeline.load(config, share=pipeline)
    assert same.generator is pipeline.generator is not None and same.heuristic.nlp is pipeline.heuristic.nlp
    shown = [i.answer for i in same.ask(NETHERLANDS).interpretations]
    assert shown == [i.answer for i in pipeline.with_options(use_generator=False).ask(NETHERLANDS).interpretations]
    other = Pipeline.load(replace(config, reader_model="1.5b"), share=pipeline)
    assert (other.reader_model, pipeline.reader_model) == ("1.5b", "0.5b")
    assert other.generator is not pipeline.generator and other.generator.folder == reader_15b


def test_the_apps_reader_does_not_name_the_subject_again_in_its_paragraph(pipeline, reader_15b):
    """Issue 47: the 1.5B copied its fact's aside into the paragraph: "William Shakespeare wrote Hamlet,
    often shortened to Hamlet, a tragedy ..."."""
    from dataclasses import replace

    from ambigdemo.pipeline import Pipeline

    result = Pipeline.load(replace(pipeline.config, reader_model="1.5b"), share=pipeline).ask("Who wrote Hamlet?")
    assert [i.answer for i in result.interpretations] == ["William Shakespeare"]
    assert "Shakespeare" in result.paragraph and result.paragraph.count("Hamlet") == 1, result.paragraph
