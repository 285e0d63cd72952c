"""The Contrast tab: a question and a minimal edit of it side by side (MEQ's contrast consistency):
the edit, each one's answers and passages, the passages both retrieve, and whether the answer changed."""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from ambigdemo.pipeline import Pipeline, QuestionError
from ambigdemo.ui import ANSWERING, render
from ambigdemo.ui.workers import Workers

PICK_HINT = "Type a minimal edit of A as B, or pick one of A's readings above, then Compare."


def contrast_stream(pipeline: Pipeline, a: str, b: str) -> Iterator[tuple[str, dict]]:
    """(result HTML, readings dropdown update): A's answer first, then both side by side."""
    try:
        first = pipeline.ask(a)
    except QuestionError as exc:
        yield f'<div class="ad-empty" data-testid="input-error">A: {render.escape(str(exc))}</div>', gr.update()
        return
    readings = [i.question for i in first.interpretations if i.question != first.question]
    pick = gr.update(choices=readings, value=None, visible=bool(readings))
    if not (b or "").strip():
        yield render.contrast_html(first, None, pipeline.credit) + f'<div class="ad-empty">{PICK_HINT}</div>', pick
        return
    yield render.contrast_html(first, None, pipeline.credit), pick
    try:
        second = pipeline.ask(b)
    except QuestionError as exc:
        yield f'<div class="ad-empty" data-testid="input-error">B: {render.escape(str(exc))}</div>', pick
        return
    yield render.contrast_html(first, second, pipeline.credit), pick


def build(pipeline: Pipeline, workers: Workers) -> None:
    """Add the Contrast tab's components and events to the current Blocks (answers only: no paragraph)."""
    answers_only = pipeline.with_options(use_generator=False)
    gr.Markdown("Edit a question a little and see whether the answer follows the edit.")
    with gr.Row():
        a = gr.Textbox(label="A: a question", placeholder="What is the capital of South Africa?", max_lines=2, elem_id="contrast-a")
        b = gr.Textbox(label="B: a minimal edit of A", placeholder="What is the legislative capital of South Africa?", max_lines=2, elem_id="contrast-b")
    readings = gr.Dropdown(label="Or use one of A's readings as B", choices=[], visible=False, elem_id="contrast-readings")
    go = gr.Button("Compare", variant="primary", elem_id="contrast-go")
    result = gr.HTML(elem_id="contrast-result")

    def compare(qa: str, qb: str):
        yield from workers.stream(contrast_stream, answers_only, qa, qb)

    limit = {"concurrency_id": ANSWERING, "concurrency_limit": pipeline.config.concurrency}
    for trigger in (go.click, a.submit, b.submit):
        trigger(compare, inputs=[a, b], outputs=[result, readings], api_visibility="private", **limit).failure(
            None, js=render.failed_js(render.UNANSWERED, 1), outputs=[result])
    readings.input(lambda choice: choice or gr.update(), inputs=readings, outputs=b, api_visibility="private", queue=False)
