"""The Ask tab: a question in, interpretation cards first, then the paragraph as it is written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gradio as gr

from ambigdemo.config import ROOT
from ambigdemo.pipeline import Pipeline, QuestionError
from ambigdemo.types import Turn
from ambigdemo.ui import ANSWERING, render
from ambigdemo.ui.workers import Workers

EXAMPLES_FILE = ROOT / "assets" / "examples.json"
MAX_TURNS = 20  # turns kept (and shown) per browser session
# Clear cancels the answer in flight, and Gradio then runs that answer's failure handler as if the queue
# had turned it away. A click on Clear is marked here, in the page's capture phase, before Gradio has
# seen it (so before the cancel), and unmarked by the next Ask, an example or Enter in a question box:
# a failure while it is marked was asked for, and shows nothing.
CLEARED = "window.ambigdemoCleared === true"
PAGE_JS = """(() => {  // launch(js=...) runs this as a script in the page's head
    const mark = (e) => {
        const at = e.target instanceof Element ? e.target : null;
        if (!at) return;
        if (at.closest('#clear')) window.ambigdemoCleared = true;
        else if (at.closest('#ask, #examples button')) window.ambigdemoCleared = false;
    };
    document.addEventListener('click', mark, true);
    document.addEventListener('keydown', (e) => {
        const at = e.target instanceof Element ? e.target : null;
        if (e.key === 'Enter' && at && at.closest('#question, #standalone')) window.ambigdemoCleared = false;
    }, true);
})();"""


def load_examples(path: Path = EXAMPLES_FILE) -> list[dict]:
    """Example questions and the answers the embedded corpus gives: ``{"question", "ambiguous", "answers"}``."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


class Current:
    """Which question of one browser session is being answered. Each Ask and each Clear takes a new
    number; an answer whose number is no longer current stops without another update, so a cleared
    or replaced question never writes its turn back (held in ``gr.State``: one object per session,
    the same one in every event of that session)."""

    def __init__(self) -> None:
        self.n = 0

    def take(self) -> int:
        self.n += 1
        return self.n


def latest(current: Current, updates: Iterator[tuple]) -> Iterator[tuple]:
    """``updates`` while they belong to the session's current question; closing them stops the worker."""
    mine = current.take()
    for update in updates:
        if current.n != mine:
            updates.close()
            return
        yield update


def _shown(result, credit: str, note: str = "") -> tuple[str, str, str, str]:
    final = "total" in result.timings_ms
    return (
        render.note_html(note) + render.interpretations_html(result),
        render.paragraph_html(result.paragraph, len(result.passages), final, result.paragraph_pending),
        render.passages_html(result.passages, credit),
        render.timings_html(result.timings_ms),
    )


def _input_error(exc: Exception) -> tuple[str, str, str, str]:
    return f'<div class="ad-empty" data-testid="input-error">{render.escape(str(exc))}</div>', "", "", ""


def answer_stream(pipeline: Pipeline, question: str) -> Iterator[tuple[str, str, str, str]]:
    """(cards, paragraph, passages, timings) HTML, updated as the pipeline streams."""
    try:
        for result in pipeline.stream(question):
            yield _shown(result, pipeline.credit)
    except QuestionError as exc:
        yield _input_error(exc)


def conversation_stream(pipeline: Pipeline, asked: str, history: list[dict], rewrite: bool = True) -> Iterator[tuple]:
    """A question in a conversation (QuAC): rewritten into a standalone question from the earlier turns
    (``rewrite`` False: ``asked`` is already the standalone question, edited by the user), answered,
    and added to the history. Yields (conversation, standalone box, cards, paragraph, passages,
    timings, history); a question that cannot be asked leaves the history as it was."""
    history = list(history or [])
    turns = [Turn(t["question"], t["answers"]) for t in history]
    try:
        standalone = pipeline.standalone(asked, turns) if rewrite else pipeline.standalone(asked, [])
    except QuestionError as exc:
        yield render.conversation_html(history), gr.update(), *_input_error(exc), history
        return
    box = gr.update(value=standalone.question, visible=bool(history))
    if not standalone.answerable:  # nobody to answer about: said, and the conversation stays as it was
        yield render.conversation_html(history), box, render.note_html(standalone.note), "", "", "", history
        return
    result = None
    try:
        for result in pipeline.stream(standalone.question, follow_up=standalone.follows):
            yield render.conversation_html(history), box, *_shown(result, pipeline.credit, standalone.note), history
    except QuestionError as exc:
        yield render.conversation_html(history), box, *_input_error(exc), history
        return
    turn = {"asked": standalone.asked, "question": standalone.question, "answers": [i.answer for i in result.interpretations]}
    history = (history + [turn])[-MAX_TURNS:]
    yield render.conversation_html(history), box, *_shown(result, pipeline.credit, standalone.note), history


def build(pipeline: Pipeline, workers: Workers) -> None:
    """Add the Ask tab's components and events to the current Blocks; answers run on ``workers``.

    The tab is a conversation: each question after the first is read as a follow-up of the earlier
    ones (per browser session, in ``gr.State``) and answered as the standalone question shown, which
    the user can edit; Clear starts over; an example starts a new conversation. A question asked while
    another is answered replaces it, and Clear stops the one being answered."""
    examples = [e["question"] for e in load_examples()]
    history = gr.State([])
    current = gr.State(Current())
    conversation = gr.HTML(elem_id="conversation")
    with gr.Row():
        question = gr.Textbox(label="Question (follow-ups may refer to earlier answers)", placeholder="Who discovered oxygen?",
                              max_lines=2, scale=5, elem_id="question")
        ask = gr.Button("Ask", variant="primary", scale=1, elem_id="ask")
        clear = gr.Button("Clear", variant="secondary", scale=0, min_width=80, elem_id="clear")
    standalone = gr.Textbox(label="Answered as (edit and press Enter to ask this instead)", visible=False, max_lines=2, elem_id="standalone")
    if pipeline.notice:
        gr.Markdown(render.escape(pipeline.notice))
    example_buttons = []
    if examples:
        gr.Markdown("Examples the embedded Wikipedia summaries can answer:")
        with gr.Row(elem_id="examples"):
            example_buttons = [gr.Button(text, size="sm", variant="secondary", min_width=0) for text in examples]
    cards = gr.HTML(elem_id="cards")
    paragraph = gr.HTML(elem_id="paragraph")
    with gr.Accordion(f"Passages (Wikipedia, {pipeline.retriever.index.licence})", open=True):
        passages = gr.HTML(elem_id="passages")
    with gr.Accordion("Stage timings", open=False):
        timings = gr.HTML(elem_id="timings")
    shown = [cards, paragraph, passages, timings]
    outputs = [conversation, standalone, *shown, history]

    def converse(q: str, turns: list[dict], now: Current):
        yield from latest(now, workers.stream(conversation_stream, pipeline, q, turns))

    def reask(edited: str, turns: list[dict], now: Current):
        """The user's own standalone question in place of the last turn's rewrite."""
        yield from latest(now, workers.stream(conversation_stream, pipeline, edited, turns[:-1], False))

    def ask_api(question: str) -> dict:
        """The result as JSON (the CLI's ``--json`` shape); a bad question raises a readable error."""
        try:
            return workers.call(pipeline.ask, question).to_dict()
        except QuestionError as exc:
            raise gr.Error(str(exc)) from exc

    # "multiple": a question asked while another is answered starts at once and replaces it (Gradio's
    # default for a click, "once", dropped it without a sign while the box kept showing it).
    limit = {"concurrency_id": ANSWERING, "concurrency_limit": pipeline.config.concurrency}
    unanswered = render.failed_js(render.UNANSWERED, len(shown), unless=CLEARED)
    answering = []
    # Progress shows where the answer goes. Shown on every output, it lay over Ask and Clear (the empty
    # conversation above them) until the first results came.
    for trigger, fn, box in ((ask.click, converse, question), (question.submit, converse, question), (standalone.submit, reask, standalone)):
        event = trigger(fn, inputs=[box, history, current], outputs=outputs, api_visibility="private",
                        show_progress_on=shown, trigger_mode="multiple", **limit)
        event.failure(None, js=unanswered, outputs=shown)
        answering.append(event)

    def example(text: str, now: Current):
        """An example starts a new conversation: into the question box and answered, as one event (a
        second event chained with ``.then`` never ran when the first was turned away by a full queue)."""
        for update in latest(now, workers.stream(conversation_stream, pipeline, text, [])):
            yield text, *update

    for button in example_buttons:
        event = button.click(example, inputs=[button, current], outputs=[question, *outputs], api_visibility="private",
                             show_progress_on=shown, trigger_mode="multiple", **limit)
        event.failure(None, js=render.failed_js(render.UNANSWERED, len(shown), echo=True, unless=CLEARED), inputs=button,
                      outputs=[question, *shown])
        answering.append(event)

    def start_over(now: Current):
        """Clear: the answer in flight is stopped (cancelled, and its number is no longer current)."""
        now.take()
        return "", gr.update(value="", visible=False), "", "", "", "", [], ""

    # The page cancels the answer in flight before Clear reaches Python: start_over makes the answer's number
    # stale, and an answer that sees it ends by itself, so a cancel sent after start_over could find nothing to
    # cancel (and the page would end that answer one way or the other, by chance).
    clear.click(None, cancels=answering, queue=False)
    clear.click(start_over, inputs=current, outputs=[*outputs, question], api_visibility="private", queue=False)
    gr.api(ask_api, api_name="ask", **limit)
