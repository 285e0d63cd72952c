"""``bench --readings``: how a readings set is scored, and one set run through both readers of the real
embedded pipeline, side by side."""

from __future__ import annotations

import json

from ambigdemo.evaluation import readings


def test_a_question_is_scored_by_the_readings_it_shows():
    two = {"question": "What is the capital of South Africa?", "answers": [["Cape Town"], ["Pretoria", "Tshwane"]]}
    rows = [
        readings.score_item(two, ["Cape Town", "Pretoria"]),
        readings.score_item(two, ["Cape Town", "Johannesburg"]),
        readings.score_item({"question": "Who won season 12 of American Idol?", "answers": []}, []),
        readings.score_item({"question": "When does the next iPhone come out?", "answers": []}, ["July 2025"]),
        readings.score_item({"question": "Who composed Carmen?", "answers": [["Georges Bizet"]]}, ["Bizet"]),
    ]
    assert [(r["found"], r["wrong"], r["fully_right"]) for r in rows] == [
        (2, [], True), (1, ["Johannesburg"], False), (0, [], True), (0, ["July 2025"], False), (1, [], True)]
    summary = readings.summarize(rows, [{"first_interpretation": 800, "total": 2000}] * len(rows))
    assert summary["needed"] == "4 / 5" and summary["fully_right"] == "3 / 5"
    assert summary["wrong_per_5_questions"] == 2.0 and summary["multi_complete"] == "1 / 2"
    assert summary["null_right"] == "1 / 2" and summary["first_reading_p50_s"] == 0.8


def test_a_set_runs_through_both_readers(pipeline, tmp_path):
    path = tmp_path / "readings-tiny.json"
    path.write_text(json.dumps([{"question": "Who wrote Hamlet?", "answers": [["William Shakespeare", "Shakespeare"]]},
                                {"question": "Who won season 12 of American Idol?", "answers": []}]), encoding="utf-8")
    report = readings.run(pipeline.with_options(use_generator=False), {"tiny": path})
    assert set(report["summary"]) == {"llm", "heuristic"}
    llm = report["rows"]["llm"]["tiny"]
    assert llm[0]["found"] == 1 and readings.right(llm[0]["answers"][0], ["William Shakespeare"])
    assert report["summary"]["llm"]["tiny"]["questions"] == 2
    table = readings.markdown(report)
    assert table.count("\n") == 3 and "| llm | tiny |" in table and "| heuristic | tiny |" in table
