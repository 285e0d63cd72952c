"""A two-annotator study in real Chromium: two systems uploaded in the admin view, a study started,
both annotators judging every pair, then the leaderboard with agreement and the quality table."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import serve
from test_compare_ui import TIMEOUT_MS, choose

TOKEN = "study-s3cret"
QUESTIONS = [
    ("q1", "Who sings what a beautiful name?", ["Hillsong Worship"]),
    ("q2", "Who won the 2018 world cup?", ["France"]),
    ("q3", "Who wrote hamlet?", ["William Shakespeare"]),
]


@pytest.fixture
def study_files(tmp_path: Path) -> dict[str, Path]:
    gold = tmp_path / "dev.json"
    gold.write_text(json.dumps([{"id": i, "question": q, "annotations": [{"type": "singleAnswer", "answer": a}]}
                                for i, q, a in QUESTIONS]))
    mine = tmp_path / "mine.json"  # AmbigQA's prediction format: ids of the question set
    mine.write_text(json.dumps({i: [{"question": q, "answer": a[0]}] for i, q, a in QUESTIONS}))
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text("\n".join(json.dumps({"question": q, "paragraph": f"It is hard to say who; maybe not {a[0]}."})
                                for _, q, a in QUESTIONS))
    return {"gold": gold, "mine": mine, "theirs": theirs}


def upload(page, elem_id: str, path: Path) -> None:
    """Put ``path`` into a File component, clearing the file it holds first. Which of the two the
    component shows (an empty drop zone's file input, or an earlier file's Clear button) is read only
    once one of them is in the page: just after the admin view opens, neither may be there yet."""
    box = page.locator(f"#{elem_id}")
    file_input, clear = box.locator("input[type=file]"), box.locator("button[aria-label=Clear]")
    file_input.or_(clear).first.wait_for(state="attached")
    if not file_input.count():
        clear.click()
    file_input.set_input_files(str(path))
    page.locator(f"#{elem_id}").get_by_text(path.stem, exact=True).first.wait_for()  # shown as "mine" ".json"


def admin_message(page, text: str) -> str:
    """The admin message once it says ``text``; if it never does, the failure quotes what it says instead (a wrong
    token, another action's message: one run of this suite timed out here once, unexplained)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    message = page.locator("#admin-message").filter(has_text=text)
    try:
        message.wait_for()
    except PlaywrightTimeout:
        shown = page.locator("#admin-message").inner_text(timeout=5_000)
        raise AssertionError(f"the admin message never said {text!r}; it says {shown!r}") from None
    return message.inner_text()


def judge_all(page, name: str) -> tuple[list[str], str]:
    """Judge every pair offered to ``name``; returns the questions and what the tab says at the end."""
    page.get_by_role("tab", name="Compare").click()
    page.locator("#annotator input, #annotator textarea").first.fill(name)
    questions = []
    while True:
        page.locator("#next-pair").click()
        page.wait_for_function("""!document.querySelector('#submit').disabled ||
            /every available pair|study is complete/.test(document.querySelector('[data-testid="compare-status"]')?.innerText || '')""")
        if page.locator("#submit").is_disabled():
            return questions, page.locator('[data-testid="compare-status"]').inner_text()
        questions.append(page.locator('[data-testid="compare-question"]').inner_text().strip())
        for group in ("#acc-a", "#acc-b"):  # the JSONL system lists no interpretations: nothing to tick there
            if page.locator(f"{group} input[type=checkbox]").count():
                page.locator(f"{group} input[type=checkbox]").first.check()
        for criterion in ("comprehensiveness", "fluency", "overall"):
            choose(page, criterion, "A" if criterion != "fluency" else "Tie")
        page.locator("#submit").click()
        status = page.locator('[data-testid="compare-status"]')
        status.filter(has_text="Judgment saved").or_(status.filter(has_text="Please read")).first.wait_for()
        if "Please read" in status.inner_text():  # the study's minimum reading time: nothing lost, submit again
            page.wait_for_timeout(1100)
            page.locator("#submit").click()
        page.locator('[data-testid="reveal"]').wait_for()


def test_two_annotators_judge_an_uploaded_study(browser, pipeline, tmp_path, study_files, artifacts_dir):
    data_dir = tmp_path / "data"
    with serve(pipeline, data_dir, admin_token=TOKEN) as url:
        admin = browser.new_page(viewport={"width": 1280, "height": 1600})
        admin.set_default_timeout(TIMEOUT_MS)
        admin.goto(url)
        admin.get_by_role("tab", name="Leaderboard").click()
        admin.get_by_text("Admin", exact=True).click()
        admin.locator("#admin-token input").fill(TOKEN)
        admin.locator("#admin-unlock").click()
        admin_message(admin, "Admin actions unlocked")

        upload(admin, "admin-questions-file", study_files["gold"])
        for name in ("mine", "theirs"):
            admin.locator("#admin-system-name input").fill(name)
            upload(admin, "admin-system-file", study_files[name])
            admin.locator("#admin-import").click()
            assert "Imported 3 answers as stored:" + name in admin_message(admin, "stored:" + name)
        admin.locator("#admin-system-name input").fill("../broken")
        admin.locator("#admin-import").click()
        assert "Not imported" in admin_message(admin, "Not imported")

        admin.locator("#admin-study-name input").fill("s1")
        admin.locator("#admin-study-systems input").fill("stored:mine,stored:theirs")
        admin.locator("#admin-attention input").fill("0")
        admin.locator("#admin-min-read input").fill("1")
        admin.locator("#admin-start-study").click()
        admin_message(admin, "Study s1 started")

        annotators = [browser.new_page(viewport={"width": 1280, "height": 1400}) for _ in range(2)]
        seen, ends = [], []
        for page, name in zip(annotators, ("Ann One", "Ann Two")):
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(url)
            questions, end = judge_all(page, name)
            seen.append(sorted(questions))
            ends.append(end)
        assert seen[0] == seen[1] == sorted(q for _, q, _ in QUESTIONS)  # overlap 2: both judged every pair
        assert "You have judged every available pair" in ends[0]  # the study still needed Ann Two
        assert "This study is complete" in ends[1]
        with sqlite3.connect(data_dir / "judgments.sqlite") as conn:
            stored = conn.execute("SELECT annotator, system_a, system_b FROM judgments").fetchall()
        assert len(stored) == 6 and {a for a, *_ in stored} == {"ann one", "ann two"}
        assert all({a, b} == {"stored:mine", "stored:theirs"} for _, a, b in stored)

        admin.locator("#lb-refresh").click()
        admin.locator('[data-testid="lb-n"]').filter(has_text="6").wait_for()
        table = admin.locator('[data-testid="lb-systems"]').inner_text()
        assert "stored:mine" in table and "stored:theirs" in table
        agreement = admin.locator('[data-testid="lb-agreement"]').inner_text()
        assert "Krippendorff" in agreement and "overall" in agreement
        admin.locator("#admin-quality-btn").click()
        quality = admin.locator('[data-testid="admin-quality"]')
        quality.wait_for()
        assert "ann one" in quality.inner_text() and "ann two" in quality.inner_text()
        admin.screenshot(path=str(artifacts_dir / "study-admin.png"), full_page=True)
        for page in [admin, *annotators]:
            page.close()
    assert json.loads((data_dir / "studies" / "s1.json").read_text())["per_pair"] == 2


def test_the_reading_notice_goes_when_the_wait_is_over_and_a_finished_study_says_so_in_view(
        browser, pipeline, tmp_path, study_files, artifacts_dir):
    """Issue 47: "Please read both answers before judging: 4 more seconds..." stayed after the wait was
    over; at 1280x900 "This study is complete" sat below the fold while both answer boxes still said
    "Press 'Next pair'"."""
    from ambigdemo.judging.predictions import load_questions
    from ambigdemo.judging.study import Study

    data_dir = tmp_path / "data"
    systems = data_dir / "systems"
    systems.mkdir(parents=True)
    question = QUESTIONS[2][1]
    for name, answer in (("mine", "William Shakespeare"), ("theirs", "Christopher Marlowe")):
        (systems / f"{name}.jsonl").write_text(json.dumps({
            "question": question, "paragraph": f"Hamlet was written by {answer} [1].",
            "interpretations": [{"question": question, "answer": answer}]}))
    read_s = 6
    Study("s2", ["stored:mine", "stored:theirs"], load_questions(study_files["gold"]), per_pair=1,
          attention_share=0.0, min_read_s=read_s).save(data_dir / "studies")
    with serve(pipeline, data_dir, study="s2") as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        page.get_by_role("tab", name="Compare").click()
        page.locator("#annotator input, #annotator textarea").first.fill("Ann Three")
        page.locator("#next-pair").click()
        page.wait_for_function("!document.querySelector('#submit').disabled")
        for criterion in ("comprehensiveness", "fluency", "overall"):
            choose(page, criterion, "A")
        page.locator("#submit").click()  # at once: well inside the study's reading time
        notice = page.locator('[data-testid="compare-status"]').filter(has_text="Please read both answers")
        notice.wait_for()
        assert notice.is_visible()
        notice.wait_for(state="hidden", timeout=(read_s + 5) * 1000)  # gone once the wait is over, by itself
        page.locator("#submit").click()
        page.locator('[data-testid="reveal"]').wait_for()
        page.locator("#next-pair").click()
        done = page.locator('[data-testid="compare-done"]')
        done.wait_for()
        assert "This study is complete" in done.inner_text()
        box = done.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 900, "the message is in view where the question was"
        for side in ("a", "b"):
            text = page.locator(f'[data-testid="answer-{side}"]').inner_text()
            assert "Press “Next pair”" not in text and "Nothing left to judge" in text
        page.screenshot(path=str(artifacts_dir / "compare-study-complete.png"))
        page.close()
