"""The Compare and Leaderboard tabs in a real headless Chromium against the real app."""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import sqlite3
from pathlib import Path

import gradio as gr
from conftest import ROOT, stored_rows

from ambigdemo.config import Config
from ambigdemo.judging.rating import compute_leaderboard
from ambigdemo.judging.judgment import Judgment
from ambigdemo.judging.store import JudgmentStore
from ambigdemo.judging.systems import DEFAULT_SYSTEMS
from ambigdemo.ui import leaderboard

TIMEOUT_MS = 120_000


def db_path() -> Path:
    """The app's judgment database (the app_url fixture sets AMBIGDEMO_DATA_DIR for its lifetime)."""
    return Config.from_env().judgments_db


def rows(sql: str, *args) -> list[tuple]:
    with sqlite3.connect(f"file:{db_path()}?mode=ro", uri=True) as conn:
        return conn.execute(sql, args).fetchall()


def open_compare(browser, app_url, name: str):
    page = browser.new_page(viewport={"width": 1280, "height": 1400})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)
    page.get_by_role("tab", name="Compare").click()
    page.locator("#annotator input, #annotator textarea").first.fill(name)
    return page


SAME = "Both systems gave the same answer here"


def shown(page) -> str:
    """The id of the pair on screen ("" before the first)."""
    return page.evaluate("""document.querySelector('[data-testid="compare-question"]')?.dataset.shown || ''""")


def load_pair(page, tries: int = 8) -> None:
    """Next pair until one can be judged (pairs whose two answers read the same are not asked about).
    Each try waits for a new pair and for its load to end (Next pair is on again), so a page still
    showing the last pair's state is not read as the new one's."""
    for _ in range(tries):
        before = shown(page)
        page.locator("#next-pair").click()
        page.locator(f'[data-testid="compare-question"]:not([data-shown="{before}"])').wait_for()
        page.wait_for_function("!document.querySelector('#next-pair').disabled")
        if not page.locator("#submit").is_disabled():
            return
        assert SAME in page.locator('[data-testid="compare-status"]').inner_text()
    raise AssertionError(f"no judgeable pair in {tries} tries")


def choose(page, criterion: str, label: str) -> None:
    page.locator(f"#crit-{criterion} label").filter(has_text=re.compile(rf"^\s*{label}\s*$")).click()


def fill_verdict(page) -> None:
    for group in ("#acc-a", "#acc-b"):
        boxes = page.locator(f"{group} input[type=checkbox]")
        if boxes.count():  # top-passage lists no interpretations: nothing to tick
            boxes.first.check()
    choose(page, "comprehensiveness", "A")
    choose(page, "fluency", "Tie")
    choose(page, "overall", "B")
    page.locator("#comment textarea").fill("<b>bold?</b> fine")


def test_judge_two_pairs_then_leaderboard(browser, app_url, artifacts_dir):
    before = rows("SELECT count(*) FROM judgments WHERE verdict != 'skip'")[0][0]
    page = open_compare(browser, app_url, "Playwright Alice")
    assert page.locator("#submit").is_disabled()
    revealed = []
    for n in range(2):
        load_pair(page)
        assert page.locator('[data-testid="compare-question"]').inner_text().strip()
        assert not page.locator('[data-testid="reveal"]').is_visible()  # systems hidden before the verdict
        fill_verdict(page)
        page.locator("#submit").click()
        page.locator('[data-testid="reveal"]').wait_for()
        status = page.locator('[data-testid="compare-status"]').inner_text()
        assert "Judgment saved" in status, status
        assert f"{n + 1} verdict" in status
        pair = (page.locator('[data-testid="system-a"]').inner_text(), page.locator('[data-testid="system-b"]').inner_text())
        assert set(pair) <= set(DEFAULT_SYSTEMS) and pair[0] != pair[1]
        assert page.locator("#submit").is_disabled()
        revealed.append(pair)
        if n == 0:
            page.screenshot(path=str(artifacts_dir / "compare.png"), full_page=True)
    stored = rows("SELECT system_a, system_b, left_is, overall, comprehensiveness, fluency, comment FROM judgments "
                  "WHERE annotator = 'playwright alice' ORDER BY rowid")
    assert [(a, b) for a, b, *_ in stored] == revealed
    assert all(r[2] == r[0] and r[3:] == ("B", "A", "tie", "<b>bold?</b> fine") for r in stored)

    page.get_by_role("tab", name="Leaderboard").click()
    page.locator("#lb-refresh").click()
    page.locator('[data-testid="lb-n"]').filter(has_text=str(before + 2)).wait_for()
    count = page.locator('[data-testid="lb-count"]').inner_text()
    assert f"{before + 2} judgments counted" in count
    table = page.locator('[data-testid="lb-systems"]').inner_text()
    for system in {s for pair in revealed for s in pair}:
        assert system in table
    assert page.locator('[data-testid="lb-matrix"]').is_visible()
    assert "Position bias" in page.locator('[data-testid="lb-checks"]').inner_text()
    page.locator("#lb-plot img").wait_for()
    if not os.environ.get("AMBIGDEMO_ADMIN_TOKEN"):
        assert "Admin actions are disabled" in page.content()
    page.locator("#lb-plot img").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "leaderboard.png"), full_page=True)
    page.close()


def controls(page) -> dict:
    """What a pair's controls show: the criteria chosen, the ticks per side and the comment."""
    return {
        **{c: page.locator(f"#crit-{c} input:checked").evaluate_all("xs => xs.map(x => x.value)")
           for c in ("comprehensiveness", "fluency", "overall")},
        "acc-a": page.locator("#acc-a input:checked").count(), "acc-b": page.locator("#acc-b input:checked").count(),
        "comment": page.locator("#comment textarea").input_value(),
    }


EMPTY = {"comprehensiveness": [], "fluency": [], "overall": [], "acc-a": 0, "acc-b": 0, "comment": ""}


def tick_last(page, group: str) -> list[int]:
    """Tick the side's last interpretation; returns the stored indices this should give."""
    boxes = page.locator(f"{group} input[type=checkbox]")
    if not boxes.count():
        return []
    boxes.last.check()
    return [boxes.count() - 1]


def test_three_pairs_in_a_row_store_exactly_what_was_clicked(browser, app_url):
    """Issue 34: Fluency and Overall stayed selected on the next pair and were stored with a Skip or a
    Both bad. Each pair must start empty; a skip or both-bad verdict stores no criterion."""
    page = open_compare(browser, app_url, "Playwright Erin")
    clicked = []
    load_pair(page)
    assert controls(page) == EMPTY
    acc_a, acc_b = tick_last(page, "#acc-a"), tick_last(page, "#acc-b")
    choose(page, "comprehensiveness", "B")
    choose(page, "fluency", "A")
    choose(page, "overall", "A")
    page.locator("#comment textarea").fill("first")
    question = page.locator('[data-testid="compare-question"]').inner_text()
    page.locator("#submit").click()
    page.locator('[data-testid="reveal"]').wait_for()
    clicked.append({"question": question, "verdict": "vote", "comprehensiveness": "B", "fluency": "A",
                    "overall": "A", "acc_a": acc_a, "acc_b": acc_b, "comment": "first"})

    load_pair(page)
    assert controls(page) == EMPTY, "the last pair's choices came back"
    choose(page, "fluency", "B")  # chosen, then the annotator decides both answers are bad
    choose(page, "overall", "B")
    page.locator("#comment textarea").fill("both wrong")
    question = page.locator('[data-testid="compare-question"]').inner_text()
    page.locator("#both-bad").click()
    page.locator('[data-testid="compare-status"]').filter(has_text="Saved: both answers bad").wait_for()
    clicked.append({"question": question, "verdict": "both_bad", "comprehensiveness": None, "fluency": None,
                    "overall": None, "acc_a": [], "acc_b": [], "comment": "both wrong"})

    load_pair(page)
    assert controls(page) == EMPTY
    choose(page, "fluency", "A")
    question, before = page.locator('[data-testid="compare-question"]').inner_text(), shown(page)
    page.locator("#skip").click()  # stores the skip, then loads the next pair
    page.locator(f'[data-testid="compare-question"]:not([data-shown="{before}"])').wait_for()
    page.wait_for_function("!document.querySelector('#next-pair').disabled")
    clicked.append({"question": question, "verdict": "skip", "comprehensiveness": None, "fluency": None,
                    "overall": None, "acc_a": [], "acc_b": [], "comment": ""})
    assert controls(page) == EMPTY

    stored = stored_rows(db_path())
    mine = [r for r in stored if r["annotator"] == "playwright erin"]
    assert [{k: json.loads(r[k]) if k.startswith("acc_") and not k.endswith("total") else r[k]
             for k in clicked[0]} for r in mine] == clicked
    assert all(r["left_is"] == r["system_a"] and r["system_a"] != r["system_b"] for r in mine)
    page.close()


BROWSER_STATE = "() => Object.entries(localStorage).filter(([k]) => k.includes('ambigdemo-compare')).map(([, v]) => v).join()"


def test_a_reload_brings_back_the_name_the_unfinished_pair_and_the_work_on_it(browser, app_url, artifacts_dir):
    """Issue 34: a reload mid-judgment returned to the Ask tab with the name empty and the pair gone.
    Issue 47: it kept the pair but dropped the ticks, the criteria and the comment already given, and a
    name entered in one go (pasted, or filled by a password manager) was not kept."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)
    page.get_by_role("tab", name="Compare").click()
    page.locator("#annotator input, #annotator textarea").first.fill("Playwright Fay")  # one input event, as a paste
    load_pair(page)
    question, pair = page.locator('[data-testid="compare-question"]').inner_text(), shown(page)
    acc_a, acc_b = tick_last(page, "#acc-a"), tick_last(page, "#acc-b")
    choose(page, "comprehensiveness", "B")
    choose(page, "overall", "Tie")
    before = page.evaluate(BROWSER_STATE)
    page.locator("#comment textarea").fill("<i>half</i> done")
    page.wait_for_function(f"() => ({BROWSER_STATE})() !== {json.dumps(before)}")  # the comment is kept too
    page.reload()
    page.locator(f'[data-testid="compare-question"][data-shown="{pair}"]').wait_for()
    assert page.get_by_role("tab", name="Compare").get_attribute("aria-selected") == "true"
    assert page.locator("#annotator input, #annotator textarea").first.input_value() == "Playwright Fay"
    assert "unfinished pair is back" in page.locator('[data-testid="compare-status"]').inner_text()
    page.wait_for_function("() => document.querySelector('#comment textarea').value !== ''")
    assert controls(page) == {"comprehensiveness": ["B"], "fluency": [], "overall": ["tie"], "acc-a": len(acc_a),
                              "acc-b": len(acc_b), "comment": "<i>half</i> done"}
    page.screenshot(path=str(artifacts_dir / "compare-after-reload.png"))
    if os.environ.get("AMBIGDEMO_UPDATE_SCREENSHOT"):
        shutil.copyfile(artifacts_dir / "compare-after-reload.png", ROOT / "docs" / "images" / "compare-after-reload.png")
    choose(page, "fluency", "A")
    page.locator("#submit").click()
    page.locator('[data-testid="reveal"]').wait_for()
    stored = [r for r in stored_rows(db_path()) if r["annotator"] == "playwright fay"]
    assert [(r["question"], r["comprehensiveness"], r["fluency"], r["overall"], json.loads(r["acc_a"]),
             json.loads(r["acc_b"]), r["comment"]) for r in stored] == [
        (question, "B", "A", "tie", acc_a, acc_b, "<i>half</i> done")]
    page.reload()  # a judged pair does not come back (the page opens on Ask); the name does
    page.locator("#question textarea").wait_for()
    page.get_by_role("tab", name="Compare").click()
    page.wait_for_function("""() => [...document.querySelectorAll('#annotator input, #annotator textarea')]
        .some(x => x.value === 'Playwright Fay')""")
    # a loading event's timer ("0.1s") over the tabs is no question: read the question once none is left
    page.wait_for_function(r"() => !/^[\d.]+s$/.test(document.querySelector('#compare-question').innerText.trim())")
    assert not page.locator("#compare-question").inner_text().strip()
    assert controls(page) == EMPTY
    context.close()


def test_next_pair_is_off_while_a_pair_is_answered(browser, app_url):
    """A click on Next pair while the pair was still being answered was dropped without a sign (one load
    per button at a time), so the button looked live but did nothing: it is off until the pair is ready."""
    page = open_compare(browser, app_url, "Playwright Dan")
    page.eval_on_selector("#next-pair", """b => {
        window.nextStates = [];
        new MutationObserver(() => window.nextStates.push(b.disabled)).observe(b, {attributes: true});
    }""")
    load_pair(page)
    states = page.evaluate("window.nextStates")
    assert states.index(True) < len(states) - 1 and states[-1] is False, f"Next pair off, then on again: {states}"
    before = shown(page)
    page.locator("#next-pair").click()
    page.locator(f'[data-testid="compare-question"]:not([data-shown="{before}"])').wait_for()
    page.close()


def test_double_click_stores_one_judgment(browser, app_url):
    page = open_compare(browser, app_url, "Playwright Bob")
    load_pair(page)
    fill_verdict(page)
    # Two clicks in the same event-loop turn, before the UI can disable the button.
    page.eval_on_selector("#submit", "b => { b.click(); b.click(); }")
    # The second click reaches the server after the first and gets the stored judgment back.
    page.locator('[data-testid="compare-status"]').filter(has_text="Saved once").wait_for()
    page.locator('[data-testid="reveal"]').wait_for()
    assert "Judgment saved" in page.locator('[data-testid="compare-status"]').inner_text()
    assert rows("SELECT count(*) FROM judgments WHERE annotator = 'playwright bob'") == [(1,)]
    page.locator("#submit").dblclick(force=True)  # disabled now: no effect
    page.wait_for_timeout(500)
    assert rows("SELECT count(*) FROM judgments WHERE annotator = 'playwright bob'") == [(1,)]
    # Skip stores a skip (not a verdict) and loads another pair.
    load_pair(page)
    question = page.locator('[data-testid="compare-question"]')
    first, shown = question.inner_text(), question.get_attribute("data-shown")
    page.locator("#skip").click()
    page.locator(f'[data-testid="compare-question"]:not([data-shown="{shown}"])').wait_for()
    page.wait_for_function(
        f"""!document.querySelector('#submit').disabled ||
            (document.querySelector('[data-testid="compare-status"]')?.innerText || '').includes({SAME!r})"""
    )
    assert rows("SELECT verdict FROM judgments WHERE annotator = 'playwright bob' ORDER BY rowid") == [("vote",), ("skip",)]
    assert rows("SELECT question FROM judgments WHERE verdict = 'skip' AND annotator = 'playwright bob'") == [(first,)]
    assert not page.locator('[data-testid="reveal"]').is_visible()
    page.close()


def test_leaderboard_html_escapes_system_names(tmp_path):
    store = JudgmentStore(tmp_path / "j.sqlite")
    for n, overall in enumerate(("A", "B", "A")):
        store.add(Judgment.new(question="q?", system_a="<script>x</script>", system_b="stored:b&c",
                               answer_a={}, answer_b={}, annotator=f"ann{n}", comprehensiveness="tie",
                               fluency="tie", overall=overall))
    html = leaderboard.table_html(compute_leaderboard(store.iter_all(), rounds=20))
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html and "stored:b&amp;c" in html
    assert '<b data-testid="lb-n">3</b>' in html
    store.close()


def test_admin_actions_need_the_configured_token(tmp_path, monkeypatch):
    monkeypatch.setattr(leaderboard, "WRONG_TOKEN_DELAY_S", 0)
    store = JudgmentStore(tmp_path / "j.sqlite")
    with gr.Blocks() as disabled:
        leaderboard.build(store, Config(data_dir=tmp_path, admin_token=""))
    assert not any(getattr(b, "elem_id", None) == "admin-token" for b in disabled.blocks.values())
    assert leaderboard._authorised("anything", Config(admin_token="")).startswith("no admin token")
    config = Config(data_dir=tmp_path, admin_token="s3cret")
    with gr.Blocks() as enabled:
        leaderboard.build(store, config)
    ids = {getattr(b, "elem_id", None) for b in enabled.blocks.values()}
    assert {"admin-token", "admin-export", "admin-reset"} <= ids
    assert leaderboard._authorised("wrong", config) == "wrong admin token"
    assert leaderboard._authorised("s3cret", config) == ""
    store.close()



def test_every_side_that_lists_interpretations_shows_its_ticks_and_pairs_stay_blind(browser, app_url, artifacts_dir):
    """Issue 15: a side saying "Lists 1 interpretation: tick below" had no checkbox group (#acc-b absent) in
    11 of 12 fresh sessions, and its ACC was stored as 0; "Passages (4)" told which system wrote it."""
    for n in range(3):
        page = open_compare(browser, app_url, f"Fresh Session {n}")
        load_pair(page)
        for side in ("a", "b"):
            meta = page.locator(f'[data-testid="answer-{side}"] .cmp-meta').inner_text()
            listed = re.search(r"Lists (\d+) interpretation", meta)
            boxes = page.locator(f"#acc-{side} input[type=checkbox]")
            assert boxes.count() == (int(listed.group(1)) if listed else 0), (side, meta)
            summary = page.locator(f'[data-testid="answer-{side}"] summary')
            assert all(not re.search(r"\d", summary.nth(k).inner_text()) for k in range(summary.count()))
        a = page.locator('[data-testid="answer-a"] .cmp-paragraph').inner_text()
        b = page.locator('[data-testid="answer-b"] .cmp-paragraph').inner_text()
        assert " ".join(a.split()) != " ".join(b.split()), "word-identical answers are not asked about"
        page.screenshot(path=str(artifacts_dir / f"compare-fresh-{n}.png"), full_page=True)
        page.close()


def test_an_export_goes_to_a_fresh_unguessable_place_and_earlier_ones_are_deleted(tmp_path):
    """Issue 15: an exported file's URL could be downloaded by anyone who had it."""
    store = JudgmentStore(tmp_path / "j.sqlite")
    folder = tmp_path / "exports"
    folder.mkdir()
    first, n = leaderboard.export_for_admin(store, folder, "csv")
    second, _ = leaderboard.export_for_admin(store, folder, "jsonl")
    assert n == 0 and second.is_file() and second.suffix == ".jsonl"
    assert not first.exists() and not first.parent.exists(), "the earlier export is gone"
    assert first.parent != second.parent and len(second.parent.name) >= 24, "each export gets its own random folder"
    assert leaderboard.EXPORT_TTL_S <= 3600
    store.close()


def test_the_leaderboards_plots_and_exports_live_in_one_folder_deleted_with_it(tmp_path):
    """Each app start left an empty ``ambigdemo-export-*`` folder (and the plots' folder) behind in the temp dir."""
    store = JudgmentStore(tmp_path / "j.sqlite")
    view = leaderboard.LeaderboardView(store)
    path, _ = leaderboard.export_for_admin(store, view.exports, "jsonl")
    folder = view.exports.parent
    assert path.is_file() and path.is_relative_to(folder) and view._plots.parent == folder
    del view
    gc.collect()
    assert not folder.exists()
    store.close()


def in_view(page, selector: str) -> str:
    """A JS condition: ``selector`` lies wholly inside the viewport."""
    return f"""(() => {{ const r = document.querySelector('{selector}')?.getBoundingClientRect();
        return !!r && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }})()"""


def test_judging_on_a_phone(browser, app_url, artifacts_dir):
    """Issue 34 at 390x844: answer A's ticks came before answer B (a pair was ~2,500 px tall), the
    confirmation and Next pair were out of sight after Submit, and Leaderboard hid behind the tab menu.
    ``AMBIGDEMO_UPDATE_SCREENSHOT=1`` writes docs/images/compare-phone.png."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)
    tabs = page.get_by_role("tab")
    tabs.first.wait_for()
    assert tabs.all_inner_texts() == ["Ask", "Contrast", "Compare", "Leaderboard"]  # none in an overflow menu
    assert all(tabs.nth(i).is_visible() for i in range(4))
    page.get_by_role("tab", name="Compare").tap()
    page.locator("#annotator input, #annotator textarea").first.fill("Playwright Phone")
    load_pair(page)
    switch = page.locator("#side-switch")
    assert switch.is_visible()
    assert page.locator("#answer-a").is_visible() and not page.locator("#answer-b").is_visible()
    ticks = page.locator("#acc-a input[type=checkbox]")
    if ticks.count():
        ticks.first.check()
    switch.locator("label", has_text="Answer B").tap()
    page.locator("#answer-b").wait_for(state="visible")
    assert not page.locator("#answer-a").is_visible() and page.locator("#acc-b").is_visible()
    assert page.locator("#crit-overall").is_visible()  # the criteria stay below whichever side is shown
    page.screenshot(path=str(artifacts_dir / "compare-phone.png"), full_page=False)
    if os.environ.get("AMBIGDEMO_UPDATE_SCREENSHOT"):
        page.locator("#compare-question").scroll_into_view_if_needed()
        page.screenshot(path=str(Path(__file__).resolve().parent.parent / "docs" / "images" / "compare-phone.png"))
    choose(page, "comprehensiveness", "A")
    choose(page, "fluency", "Tie")
    choose(page, "overall", "B")
    before = shown(page)
    page.locator("#submit").tap()
    page.locator('[data-testid="reveal"]').wait_for()
    page.wait_for_function(in_view(page, '[data-testid="reveal"]'))  # scrolled to the confirmation
    assert page.evaluate(in_view(page, "#next-pair-below")), "Next pair beside the confirmation"
    page.locator("#next-pair-below").tap()
    page.locator(f'[data-testid="compare-question"]:not([data-shown="{before}"])').wait_for()
    page.wait_for_function("!document.querySelector('#next-pair').disabled")
    assert page.locator("#answer-a").is_visible(), "a new pair opens on answer A"
    context.close()
