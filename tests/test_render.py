"""Result -> HTML (ui/render.py and the Ask tab's stream): structure, citation links and escaping."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

import pytest

from ambigdemo.ui import render
from ambigdemo.ui.ask import answer_stream

HOSTILE = ["<script>alert(1)</script>", "**x**", "<img src=x onerror=alert(1)>?", "Où est la tour Eiffel ? 🗼", "**Who** wrote [Harry](x) Potter?"]


class Tags(HTMLParser):
    """Start tags and their attributes, as a browser would parse them."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tag_names(html: str) -> set[str]:
    return {t for t, _ in Tags(html).tags}


ALLOWED = {"div", "span", "a", "ins", "del", "ol", "ul", "li", "b", "mark", "table", "tr", "td"}


@pytest.fixture(scope="module")
def fast(pipeline):
    return pipeline.with_options(use_generator=False)


@pytest.fixture(scope="module")
def ambiguous(fast):
    """A result with two readings to render: the 0.5B's score puts Pretoria under "also in the passages", so the
    rules (``verifier="off"``), which show both capitals, give it; what is tested here is the page, not the choice."""
    return fast.with_options(verifier="off").ask("What is the capital of South Africa?")


def all_html(result) -> str:
    return "".join(
        [
            render.interpretations_html(result),
            render.paragraph_html(result.paragraph, len(result.passages)),
            render.passages_html(result.passages),
            render.timings_html(result.timings_ms),
        ]
    )


def test_cards_one_per_interpretation_with_working_citations(ambiguous):
    html = render.interpretations_html(ambiguous)
    tags = Tags(html).tags
    cards = [a for t, a in tags if a.get("data-testid") == "interpretation"]
    assert len(cards) == len(ambiguous.interpretations) >= 2
    assert f"{len(ambiguous.interpretations)} answers: the question can be read" in html
    links = [a["href"] for t, a in tags if t == "a"]
    assert links and all(re.fullmatch(r"#passage-[1-8]", h) for h in links)
    passage_ids = {a.get("id") for t, a in Tags(render.passages_html(ambiguous.passages)).tags if t == "li"}
    assert {h[1:] for h in links} <= passage_ids, "every card citation points at a listed passage"


def test_edits_are_marked(ambiguous):
    html = render.interpretations_html(ambiguous)
    for i in ambiguous.interpretations:
        for word in i.edit.added:
            assert f"<ins>{render.escape(word)}</ins>" in html


def test_a_reading_shown_as_asked_says_it_is_not_rewritten_and_whose_reading_it_is(ambiguous):
    question = ambiguous.question
    as_asked = [
        dataclasses.replace(ambiguous.interpretations[0], question=question, source="as asked",
                            passages=["<b>Cape Town</b> & co#0"]),
        *ambiguous.interpretations[1:],
    ]
    html = render.interpretations_html(dataclasses.replace(ambiguous, interpretations=as_asked))
    assert html.count('data-testid="unrewritten"') == 1
    assert "not rewritten: the reading of “&lt;b&gt;Cape Town&lt;/b&gt; &amp; co”" in html
    assert tag_names(html) <= ALLOWED


def test_diff_html_marks_added_and_removed_words():
    html = render.diff_html("Who won the World Cup?", "Who won the 2014 FIFA World Cup?")
    assert html == "Who won the <ins>2014</ins> <ins>FIFA</ins> World Cup?"
    assert "<del>won</del>" in render.diff_html("Who won it?", "Who lost it?")


def test_cards_show_no_internal_labels(ambiguous):
    """Issue 15: cards showed "modifier · score 0.90", "qualifier", "prompt"; those stay in the JSON."""
    text = re.sub(r"<[^>]+>", " ", render.interpretations_html(ambiguous))
    for internal in ("modifier", "qualifier", "prompt", "score", "llm", "pending"):
        assert internal not in text
    assert [f"Reading {n}" in text for n in range(1, len(ambiguous.interpretations) + 1)]
    assert {i.source for i in ambiguous.interpretations} <= {"llm", "modifier", "prompt"}


def test_a_rewrite_keeps_the_question_s_own_spacing():
    """Issue 15: "<script>" was re-spaced as "< script >" in the cards."""
    html = render.diff_html("What is <script>x</script>?", "What is <script>x</script> in 1990?")
    assert html == "What is &lt;script&gt;x&lt;/script&gt; <ins>in</ins> <ins>1990</ins>?"
    assert render.diff_html("Who won the world cup in 2010?", "Who won the FIFA world cup?") == (
        "Who won the <ins>FIFA</ins> world cup <del>in</del> <del>2010</del>?"
    )


@pytest.mark.parametrize("mark", ["\u202e", "\u202d", "\u2066", "\u200f", "\x07", "\x1b"])
def test_control_and_bidi_characters_never_reach_the_page(fast, mark):
    """Issue 15: a question ending in U+202E garbled the paragraph's display."""
    result = fast.ask(f"Who wrote Harry Potter?{mark}")
    html = all_html(result) + render.diff_html(f"Who wrote it?{mark}", f"Who {mark}wrote it?")
    assert mark not in html and mark not in result.question
    assert render.escape(f"a{mark}b") == "ab"


def test_paragraph_links_only_existing_passages():
    html = render.paragraph_html("A [1]. B [2][8]. C [9]. D [0].", 8)
    hrefs = [a["href"] for t, a in Tags(html).tags if t == "a"]
    assert hrefs == ["#passage-1", "#passage-2", "#passage-8"]
    assert "[9]" in html and "[0]" in html, "out-of-range citations stay plain text"
    assert 'data-testid="paragraph"' in html
    assert "writing" in render.paragraph_html("draft", 8, final=False)
    pending = render.paragraph_html("Checked [1].", 8, final=False, pending="Being <written>")
    assert '<span class="ad-pending" data-testid="pending">Being &lt;written&gt;</span>' in pending
    assert pending.index("Checked") < pending.index("ad-pending") < pending.index("writing")
    assert render.paragraph_html("", 8) == ""


def test_single_answer_and_no_answer(fast):
    single = fast.ask("Who painted the Mona Lisa?")
    if len(single.interpretations) == 1:
        assert "One answer found in the passages" in render.interpretations_html(single)
    none = fast.ask("Who sings What a Beautiful Name?")
    html = render.interpretations_html(none)
    assert 'data-testid="no-answer"' in html and "No answer found" in html


@pytest.mark.parametrize("question", HOSTILE)
def test_hostile_questions_are_rendered_escaped(fast, question):
    html = "".join(list(answer_stream(fast, question))[-1])
    assert "<script" not in html.lower()
    assert tag_names(html) <= ALLOWED, tag_names(html)
    for _, attrs in Tags(html).tags:
        assert not any(k.startswith("on") for k in attrs), attrs
    if "<" in question and 'data-testid="interpretation"' in html:
        assert "&lt;" in html


def test_hostile_text_from_every_field_is_escaped(ambiguous):
    evil = "<script>alert(1)</script>**bold** [1]"
    interps = [dataclasses.replace(i, question=i.question + evil, answer=evil) for i in ambiguous.interpretations]
    passages = [dataclasses.replace(p, title=evil, text=evil) for p in ambiguous.passages]
    result = dataclasses.replace(ambiguous, question=evil, interpretations=interps, passages=passages, paragraph=evil)
    result.timings_ms = {evil: 1.0}
    html = all_html(result)
    assert "<script" not in html.lower()
    assert html.count("&lt;script&gt;") >= len(interps) + len(passages) + 2
    assert tag_names(html) <= ALLOWED


def test_ask_tab_stream_shows_an_input_error_for_empty_and_long_questions(fast):
    """Issue 15: "42" was answered "Bible"; punctuation and other scripts get a message saying what the app answers."""
    for question, message in (
        ("", "Please type a question."),
        ("y" * 301, "limited to 300 characters"),
        ("42", "is not a question in words"),
        ("?!?", "is not a question in words"),
        ("Кто написал Гарри Поттера?", "another language"),
    ):
        [(cards, paragraph, passages, timings)] = list(answer_stream(fast, question))
        assert 'data-testid="input-error"' in cards and message in cards
        assert paragraph == passages == timings == ""


def test_ask_tab_stream_yields_cards_then_a_final_paragraph(fast):
    updates = list(answer_stream(fast, "<b>When</b> was the Eiffel Tower built?"))
    cards, paragraph, passages, timings = updates[-1]
    assert 'data-testid="interpretation"' in cards
    assert 'data-testid="paragraph"' in paragraph and "writing" not in paragraph
    assert 'id="passage-1"' in passages and "CC BY-SA" in passages
    assert "total" in timings
    assert "<b>When</b>" not in cards + paragraph


def test_conversation_turns_are_escaped_and_show_the_standalone_question():
    from ambigdemo.ui.render import conversation_html

    html = conversation_html([
        {"asked": "Who wrote <b>Hamlet</b>?\u202e", "question": "Who wrote <b>Hamlet</b>?", "answers": ["William Shakespeare"]},
        {"asked": "When was he born?", "question": "When was William Shakespeare born?", "answers": []},
    ])
    assert "<b>Hamlet" not in html and "&lt;b&gt;Hamlet" in html and "\u202e" not in html
    assert "answered as: When was William Shakespeare born?" in html
    assert "cannot answer from the passages" in html
    assert html.count('data-testid="turn"') == 2 and conversation_html([]) == ""


def test_the_contrast_tab_shows_each_sides_less_certain_answers_under_also(fast):
    """The score puts Pretoria under "also in the passages" for the capital of South Africa: the Contrast tab's side
    shows it there too, its number that of the side's own passage list (no link into the Ask tab)."""
    result = fast.ask("What is the capital of South Africa?")
    assert result.also, "the 0.5B's score shows a less certain capital"
    html = render.contrast_html(result, None)
    tags = Tags(html).tags
    also = [attrs for tag, attrs in tags if attrs.get("data-testid") == "also"]
    assert len(also) == len(result.also) and all(a.answer in html for a in result.also)
    assert "Also in the passages" in html and not any(tag == "a" for tag, _ in tags)
    assert tag_names(html) <= ALLOWED
