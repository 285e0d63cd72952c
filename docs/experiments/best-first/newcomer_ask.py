"""Ask the running app (``python app.py``, http://127.0.0.1:7860) each question of QUESTIONS.json in a real Chromium, as
a newcomer would, and write what each page shows (the reading cards, "Also in the passages", "No answer found", the
paragraph) to OUT.jsonl, a screenshot of each beside it.

    python docs/experiments/best-first/newcomer_ask.py QUESTIONS.json OUT.jsonl
"""
import json
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
qs = json.load(open(sys.argv[1]))
out_file = Path(sys.argv[2])
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium")
    page = b.new_page()
    page.goto("http://127.0.0.1:7860")
    page.locator("#question textarea").wait_for(timeout=120_000)
    out = []
    for q in qs:
        start = time.time()
        page.locator("#question textarea").fill(q["question"])
        page.locator("#ask").click()
        page.locator("[data-testid=interpretation], [data-testid=no-answer]").first.wait_for(timeout=120_000)
        page.locator("[data-testid=also-pending]").wait_for(state="detached", timeout=120_000)  # "also" comes last
        try:
            page.locator("[data-testid=paragraph] .ad-writing").wait_for(state="detached", timeout=60_000)
        except Exception:
            pass
        cards = [c.inner_text().replace("\n", " | ")[:200] for c in page.locator("[data-testid=interpretation]").all()]
        also = [a.inner_text().replace("\n", " ")[:160] for a in page.locator("[data-testid=also]").all()]
        none = page.locator("[data-testid=no-answer]").count() > 0
        para = page.locator("[data-testid=paragraph]").inner_text()[:300] if page.locator("[data-testid=paragraph]").count() else ""
        out.append({"question": q["question"], "gold": q["answers"], "cards": cards, "also": also, "no_answer": none, "paragraph": para, "seconds": round(time.time() - start, 1)})
        print(json.dumps(out[-1], ensure_ascii=False), flush=True)
        page.screenshot(path=str(out_file.with_name(f"{out_file.stem}-{len(out)}.png")), full_page=True)
        page.goto("http://127.0.0.1:7860"); page.locator("#question textarea").wait_for(timeout=60_000)
    b.close()
out_file.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in out), encoding="utf-8")
