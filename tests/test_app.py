"""The running Gradio app through its public API (gradio_client), as a remote user calls it."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

from ambigdemo.text import normalize_answer

RESULT_KEYS = {"question", "interpretations", "paragraph", "paragraph_source", "passages", "timings_ms", "message"}
EIFFEL = "When was the Eiffel Tower built?"


@pytest.fixture(scope="module")
def client(app_url) -> Client:
    return Client(app_url, verbose=False)


def assert_result_shape(data: dict, question: str) -> None:
    assert isinstance(data, dict)
    assert RESULT_KEYS <= set(data), set(data)
    assert data["question"] == question
    assert isinstance(data["paragraph"], str) and isinstance(data["message"], str)
    for i in data["interpretations"]:
        assert set(i) >= {"question", "answer", "passages", "score", "edit"}
        assert isinstance(i["question"], str) and isinstance(i["answer"], str)
        assert isinstance(i["passages"], list) and all(isinstance(p, str) for p in i["passages"])
        assert isinstance(i["score"], float)
        assert set(i["edit"]) == {"added", "removed"}
    for p in data["passages"]:
        assert set(p) == {"id", "title", "text", "score", "lexical"}
        assert isinstance(p["score"], float) and isinstance(p["lexical"], bool)
    assert all(isinstance(v, (int, float)) for v in data["timings_ms"].values())


def test_api_lists_the_ask_endpoint(client):
    endpoints = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert "/ask" in endpoints
    [param] = endpoints["/ask"]["parameters"]
    assert param["python_type"]["type"] == "str"


def test_api_ask_returns_the_result_dict(client, pipeline):
    data = client.predict(EIFFEL, api_name="/ask")
    assert_result_shape(data, EIFFEL)
    assert any("1887" in i["answer"] or "1889" in i["answer"] for i in data["interpretations"])
    by_id = {p["id"]: p for p in data["passages"]}
    for i in data["interpretations"]:
        assert any(normalize_answer(i["answer"]) in normalize_answer(by_id[pid]["text"]) for pid in i["passages"])
    direct = pipeline.ask(EIFFEL).to_dict()
    assert [(i["question"], i["answer"]) for i in data["interpretations"]] == [
        (i["question"], i["answer"]) for i in direct["interpretations"]
    ], "the app answers exactly as the pipeline does"
    assert [p["id"] for p in data["passages"]] == [p["id"] for p in direct["passages"]]


def test_api_unanswerable_question_returns_a_message(client):
    data = client.predict("Who sings What a Beautiful Name?", api_name="/ask")
    assert_result_shape(data, "Who sings What a Beautiful Name?")
    assert data["interpretations"] == [] and data["message"]


@pytest.mark.parametrize("question", ["", "x" * 301])
def test_api_bad_question_is_an_error_and_the_app_survives(client, question):
    with pytest.raises(AppError):
        client.predict(question, api_name="/ask")
    data = client.predict("<script>alert(1)</script>", api_name="/ask")
    assert data["question"] == "<script>alert(1)</script>"


def test_api_bad_question_error_says_why(client):
    with pytest.raises(AppError, match="Please type a question"):
        client.predict("", api_name="/ask")


def test_api_has_no_stray_endpoint(client):
    endpoints = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert "/False" not in endpoints


def test_concurrent_requests_are_queued_and_all_answered(app_url):
    questions = [
        "When was the Eiffel Tower built?",
        "What is the capital of the Netherlands?",
        "Who painted the Mona Lisa?",
        "Who wrote Hamlet?",
        "Who sings What a Beautiful Name?",
        "What is the largest planet in the solar system?",
    ]
    clients = [Client(app_url, verbose=False) for _ in questions]
    start = time.monotonic()
    with ThreadPoolExecutor(len(questions)) as pool:
        results = list(pool.map(lambda cq: cq[0].predict(cq[1], api_name="/ask"), zip(clients, questions)))
    elapsed = time.monotonic() - start
    for question, data in zip(questions, results):
        assert_result_shape(data, question)
        assert data["interpretations"] or data["message"]
    assert elapsed < 180, elapsed



def test_one_concurrency_limit_covers_every_route_that_answers(pipeline, tmp_path):
    """Issue 15: the limit was per button (2 via Ask and 2 via /ask ran at once, README says 2)."""
    from ambigdemo.config import Config
    from ambigdemo.ui import ANSWERING
    from ambigdemo.ui.app import build_app

    config = Config.from_env(data_dir=tmp_path, concurrency=2)
    demo = build_app(pipeline, config)
    answering = [fn for fn in demo.fns.values() if fn.concurrency_id == ANSWERING]
    assert "ask" in {fn.api_name for fn in answering}, "the /ask API shares the limit"
    assert len(answering) >= 4, "Ask button, Enter, the examples and Compare's pair loading share it"
    assert {fn.concurrency_limit for fn in answering} == {2}
    others = [fn for fn in demo.fns.values() if fn.concurrency_id != ANSWERING and fn.fn is not None]
    assert not any("stream" in getattr(fn.fn, "__name__", "") or fn.api_name == "ask" for fn in others)


def test_a_queued_request_logs_no_deprecation_warning(tmp_path):
    """Issue 15: each queued request logged two Starlette deprecation warnings. Runs the app as a user does."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    from ambigdemo.localhost import free_port, wait_http

    port = free_port()
    env = {**os.environ, "AMBIGDEMO_DATA_DIR": str(tmp_path), "PYTHONWARNINGS": "default"}
    log = tmp_path / "app.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_http(f"http://127.0.0.1:{port}/", timeout=180)
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        for question in ("Who wrote Harry Potter?", "Who painted the Mona Lisa?"):
            assert client.predict(question, api_name="/ask")["interpretations"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = log.read_text()
    assert "Running on local URL" in text
    assert "DeprecationWarning" not in text, text[-2000:]


def test_gradio_keeps_a_bounded_number_of_sessions(pipeline, tmp_path):
    """Issue 15's RSS growth: Gradio keeps every browser session's component configs (about 0.1 MB
    here) until 10,000 sessions; the app keeps AMBIGDEMO_SESSIONS, the least recently used dropped."""
    from ambigdemo.config import Config
    from ambigdemo.localhost import free_port
    from ambigdemo.ui.app import build_app, launch

    demo = build_app(pipeline, Config.from_env(data_dir=tmp_path, sessions=3))
    launch(demo, "127.0.0.1", free_port(), prevent_thread_lock=True, quiet=True)
    try:
        for k in range(5):
            demo.state_holder[f"session-{k}"]
        demo.state_holder["session-2"]  # used again: kept
        assert list(demo.state_holder.session_data) == ["session-3", "session-4", "session-2"]
    finally:
        demo.close()


def test_a_pair_loading_shows_progress_on_the_two_answers_only(pipeline, tmp_path):
    """Issue 15's Compare "freeze": a queued pair load drew Gradio's progress overlay and queue timer on
    all 14 outputs (radios, comment, buttons), so the whole form looked frozen for the queue's wait."""
    from ambigdemo.config import Config
    from ambigdemo.ui.app import build_app

    demo = build_app(pipeline, Config.from_env(data_dir=tmp_path))
    loads = [fn for fn in demo.fns.values() if len(fn.outputs) == 15]  # 14 form outputs and Next pair
    assert len(loads) == 2, "Next pair, and Skip's next pair"
    answers = {b._id for b in demo.blocks.values() if getattr(b, "elem_id", None) in ("answer-a", "answer-b")}
    for fn in loads:
        assert {b._id for b in fn.show_progress_on} == answers
