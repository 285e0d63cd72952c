"""``bench --funnel``: each gold answer is given the stage that lost it, on made-up results and through the
real embedded pipeline."""

from __future__ import annotations

import json

from ambigdemo.evaluation import funnel, readings
from ambigdemo.types import Candidate, Edit, Interpretation, Passage, Result

CAPE = Passage("Cape Town#0", "Cape Town", "Cape Town is the legislative capital of South Africa.", 0.8)
PRETORIA = Passage("Pretoria#0", "Pretoria", "Pretoria is the administrative capital of South Africa.", 0.7)
BLOEM = Passage("Bloemfontein#0", "Bloemfontein", "Bloemfontein is the judicial capital of South Africa.", 0.6)


def result(read: list[Passage], candidates: list[Candidate], shown: list[str]) -> Result:
    return Result("What is the capital of South Africa?", passages=[CAPE, PRETORIA, BLOEM], read=[p.id for p in read],
                  candidates=candidates,
                  interpretations=[Interpretation("q", a, [CAPE.id], 0.8, Edit()) for a in shown])


def test_each_gold_answer_is_lost_at_the_first_stage_it_does_not_pass():
    replied = [Candidate(CAPE.id, "Cape Town"), Candidate(PRETORIA.id, "Pretoria", False, "repeats the question")]
    everything = result([CAPE, PRETORIA], replied, ["Cape Town"])
    assert funnel.stage(["Durban"], everything) == "not retrieved"
    assert funnel.stage(["Bloemfontein"], everything) == "not read"
    assert funnel.stage(["Pretoria", "Tshwane"], result([CAPE, PRETORIA], replied[:1], ["Cape Town"])) == "not replied"
    assert funnel.stage(["Pretoria", "Tshwane"], everything) == "dropped by verify"
    assert funnel.stage(["Cape Town"], result([CAPE], replied[:1], [])) == "hidden"
    assert funnel.stage(["Cape Town"], everything) == "shown"
    listed = result([CAPE], replied[:1], ["Cape Town, Pretoria and Bloemfontein"])  # select shows the reply's list
    assert funnel.stage(["Bloemfontein"], listed) == "shown"
    rows = [{"question": "q", "shown": ["Cape Town", "Johannesburg"], "wrong": ["Johannesburg"],
             "stages": ["shown", "dropped by verify", "not read"]}]
    totals = funnel.totals(rows)
    assert (totals["shown"], totals["needed"], totals["found but not shown"], totals["wrong shown"]) == (1, 3, 1, 1)


def test_the_real_pipeline_is_followed_and_agrees_with_the_readings_report(pipeline, tmp_path):
    """Shown readings count as the readings report's needed ones; an answer no passage states is not retrieved;
    an AmbigNQ file is followed on its corpus-supported multi-answer questions."""
    items = [{"question": "Who wrote Hamlet?", "answers": [["William Shakespeare", "Shakespeare"], ["Thomas Kyd"]]},
             {"question": "What is the capital of the Netherlands?", "answers": [["Amsterdam"], ["Zzyzxville"]]},
             {"question": "What are the official languages of Comoros?", "answers": [["Comorian"], ["Arabic"], ["French"]]}]
    path = tmp_path / "readings-tiny.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    report = funnel.run(pipeline, {"tiny": path})
    rows = report["rows"]["tiny"]
    assert rows[0]["stages"][0] == "shown" and rows[1]["stages"] == ["shown", "not retrieved"]
    assert rows[2]["stages"] == ["shown"] * 3, "the model names one language; the list it is named in is shown"
    scored = [readings.score_item(item, row["shown"]) for item, row in zip(items, rows)]
    assert report["totals"]["tiny"]["shown"] == sum(s["found"] for s in scored)
    assert report["readings"]["tiny"]["needed"] == f"{sum(s['found'] for s in scored)} / 7"
    assert report["totals"]["tiny"]["needed"] == 7
    assert "| tiny |" in funnel.markdown(report)
    ambignq = [{"id": "1", "question": "What is the capital of South Africa?", "annotations": [{"type": "multipleQAs", "qaPairs": [
        {"question": "What is the legislative capital of South Africa?", "answer": ["Cape Town"]},
        {"question": "What is the executive capital of South Africa?", "answer": ["Pretoria"]}]}]},
        {"id": "2", "question": "Who wrote Hamlet?", "annotations": [{"type": "singleAnswer", "answer": ["Shakespeare"]}]}]
    (tmp_path / "ambignq.json").write_text(json.dumps(ambignq), encoding="utf-8")
    assert funnel.load_set(tmp_path / "ambignq.json", pipeline.retriever.index.passages) == [
        {"question": "What is the capital of South Africa?", "answers": [["Cape Town"], ["Pretoria"]]}]
