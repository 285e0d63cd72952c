"""The Gradio Blocks app and its launch settings."""

from __future__ import annotations

import warnings

import gradio as gr

from ambigdemo import __version__
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.judging.arena import Arena
from ambigdemo.judging.store import open_store
from ambigdemo.judging.study import Study
from ambigdemo.space import LivePipeline
from ambigdemo.ui import ask, compare, contrast, leaderboard, render
from ambigdemo.ui.workers import Workers

TITLE = "ambigdemo: ambiguous question answering"
STATUS_REFRESH_S = 20
INTRO = (
    "Ask a question that may have more than one right answer. ambigdemo retrieves Wikipedia passages, "
    "finds every distinct answer, rewrites the question once per answer (added words in green, removed "
    "in red), and writes one paragraph that covers them all, citing its passages."
)


# Gradio's queue route still names a status code Starlette renamed; Starlette warns on every queued
# request (two lines each, hundreds a session) about code that is not ours.
warnings.filterwarnings("ignore", message=r"'HTTP_422_UNPROCESSABLE_ENTITY' is deprecated")


def build_app(pipeline: Pipeline, config: Config, workers: Workers | None = None) -> gr.Blocks:
    """The app's Blocks; answers run on ``workers`` (the caller closes them when the server stops), else on
    threads of its own."""
    store = open_store(config.data_dir, config.judgments_db, config.annotator_daily_cap, config.hub_dataset,
                       config.hub_token)
    workers = workers or Workers(config.concurrency)
    arena = Arena.from_study(pipeline, Study.load(config.study, config.studies_dir), config.data_dir) if config.study else None
    with gr.Blocks(title=TITLE, delete_cache=(leaderboard.EXPORT_TTL_S, leaderboard.EXPORT_TTL_S)) as demo:
        gr.Markdown(f"## {TITLE}\n{INTRO}")
        if isinstance(pipeline, LivePipeline):  # a Space: which corpus answers, while a better one downloads
            status = gr.Markdown(render.escape(pipeline.status), elem_id="preset-status")
            refresh = lambda: render.escape(pipeline.status)  # noqa: E731
            demo.load(refresh, outputs=status, queue=False)
            gr.Timer(STATUS_REFRESH_S).tick(refresh, outputs=status, queue=False)
        memory = compare.browser_memory()
        with gr.Tabs() as tabs:
            with gr.Tab("Ask", id="ask"):
                ask.build(pipeline, workers)
            with gr.Tab("Contrast", id="contrast"):
                contrast.build(pipeline, workers)
            with gr.Tab("Compare", id="compare"):
                comparing = compare.build(pipeline, store, config, arena, workers=workers, page=demo, tabs=tabs,
                                          memory=memory)
            with gr.Tab("Leaderboard", id="leaderboard") as leaderboard_tab:
                leaderboard.build(store, config, tab=leaderboard_tab, start_study=lambda study: comparing.use(
                    Arena.from_study(pipeline, study, config.data_dir)))
        gr.Markdown(f"<small>ambigdemo {__version__} · preset `{config.preset}` · Wikipedia text {pipeline.retriever.index.licence}</small>")
    demo.queue(default_concurrency_limit=config.concurrency, max_size=config.queue_size)
    demo.state_session_capacity = config.sessions  # Gradio keeps ~0.1-0.4 MB per browser session
    return demo


def launch(demo: gr.Blocks, host: str = "127.0.0.1", port: int = 7860, **kwargs):
    """Serve ``demo`` with the app's CSS and the session capacity ``build_app`` set (``launch`` would
    otherwise reset it to Gradio's 10,000)."""
    kwargs.setdefault("state_session_capacity", demo.state_session_capacity)
    return demo.launch(server_name=host, server_port=port, css=render.CSS + compare.PAGE_CSS, js=ask.PAGE_JS,
                       footer_links=["api"], **kwargs)
