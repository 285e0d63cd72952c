"""The Ask tab: a question in, interpretation cards first, then the paragraph as it is written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import gradio as gr

from ambigdemo.config import ROOT
from ambigdemo.pipeline import Pipeline, QuestionError
from ambigdemo.ui import ANSWERING, render
from ambigdemo.ui.workers import Workers

EXAMPLES_FILE = ROOT / "assets" / "examples.json"


def load_examples(path: Path = EXAMPLES_FILE) -> list[dict]:
    """Example questions and the answers the embedded corpus gives: ``{"question", "ambiguous", "answers"}``."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


def answer_stream(pipeline: Pipeline, question: str) -> Iterator[tuple[str, str, str, str]]:
    """(cards, paragraph, passages, timings) HTML, updated as the pipeline streams."""
    try:
        for result in pipeline.stream(question):
            final = "total" in result.timings_ms
            yield (
                render.interpretations_html(result),
                render.paragraph_html(result.paragraph, len(result.passages), final, result.paragraph_pending),
                render.passages_html(result.passages),
                render.timings_html(result.timings_ms),
            )
    except QuestionError as exc:
        yield f'<div class="ad-empty" data-testid="input-error">{render.escape(str(exc))}</div>', "", "", ""


def build(pipeline: Pipeline, workers: Workers) -> None:
    """Add the Ask tab's components and events to the current Blocks; answers run on ``workers``."""
    examples = [e["question"] for e in load_examples()]
    with gr.Row():
        question = gr.Textbox(label="Question", placeholder="Who discovered oxygen?", max_lines=2, scale=5, elem_id="question")
        ask = gr.Button("Ask", variant="primary", scale=1, elem_id="ask")
    if pipeline.notice:
        gr.Markdown(render.escape(pipeline.notice))
    example_buttons = []
    if examples:
        gr.Markdown("Examples the embedded Wikipedia summaries can answer:")
        with gr.Row(elem_id="examples"):
            example_buttons = [gr.Button(text, size="sm", variant="secondary", min_width=0) for text in examples]
    cards = gr.HTML(elem_id="cards")
    paragraph = gr.HTML(elem_id="paragraph")
    with gr.Accordion("Passages (Wikipedia, CC BY-SA 4.0)", open=True):
        passages = gr.HTML(elem_id="passages")
    with gr.Accordion("Stage timings", open=False):
        timings = gr.HTML(elem_id="timings")
    outputs = [cards, paragraph, passages, timings]
    def stream(q: str):
        yield from workers.stream(answer_stream, pipeline, q)

    def ask_api(question: str) -> dict:
        """The result as JSON (the CLI's ``--json`` shape); a bad question raises a readable error."""
        try:
            return workers.call(pipeline.ask, question).to_dict()
        except QuestionError as exc:
            raise gr.Error(str(exc)) from exc

    limit = {"concurrency_id": ANSWERING, "concurrency_limit": pipeline.config.concurrency}
    unanswered = render.failed_js(render.UNANSWERED, len(outputs))
    for trigger in (ask.click, question.submit):
        trigger(stream, inputs=question, outputs=outputs, api_visibility="private", **limit).failure(
            None, js=unanswered, outputs=outputs)

    def example(text: str):
        """An example: into the question box and answered, as one event (a second event chained
        with ``.then`` never ran when the first was turned away by a full queue)."""
        for shown in workers.stream(answer_stream, pipeline, text):
            yield text, *shown

    for button in example_buttons:
        button.click(example, inputs=button, outputs=[question, *outputs], api_visibility="private",
                     show_progress_on=outputs, **limit).failure(
            None, js=render.failed_js(render.UNANSWERED, len(outputs), echo=True), inputs=button,
            outputs=[question, *outputs])
    gr.api(ask_api, api_name="ask", **limit)
