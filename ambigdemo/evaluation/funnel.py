"""The funnel: where each needed answer is lost on its way to the user.

Each gold reading of a question (a list of aliases) is followed through the LLM reader's stages and
given the first stage it does not pass:

* ``not retrieved``: no passage retrieved (the top ``top_k``, and the one BM25 ranks first) states it (title or text);
* ``not read``: retrieved, but no passage the reader reads states it;
* ``not replied``: read, but no reply of the model (likeliest or less likely) names it;
* ``dropped by verify``: replied, but every reply naming it was rejected;
* ``hidden``: verified, but not among the readings shown (select folded it away, the rewrite stage hid
  it, or the answers were capped) nor "also in the passages";
* ``also``: shown under "Also in the passages" (scored under the readings), not as a reading;
* ``shown``: a reading shown names it.

Matching is :func:`~ambigdemo.evaluation.readings.right` (one names the other) throughout, so "shown"
here is "needed" in the readings report. Sets: the readings sets (``{"question", "answers"}``) or an
AmbigNQ file, of which the corpus-supported multi-answer questions are followed
(:func:`~ambigdemo.evaluation.support.supported_subset`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ambigdemo.evaluation import readings
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.evaluation.readings import right
from ambigdemo.evaluation.support import SupportIndex, supported_subset
from ambigdemo.stages.reader.verify import occurs_in
from ambigdemo.types import Passage, Result

STAGES = ("not retrieved", "not read", "not replied", "dropped by verify", "hidden", "also", "shown")


def load_set(path: Path, passages: list[Passage]) -> list[dict]:
    """``{"question", "answers"}`` items: a readings set as it is, an AmbigNQ file as its supported subset."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data and "annotations" in data[0]:
        subset = supported_subset(load_ambignq(path), SupportIndex(passages))
        return [{"question": s.question, "answers": s.answers} for s in subset]
    return data


def stage(aliases: list[str], result: Result) -> str:
    """The first stage that loses the reading ``aliases`` in ``result`` (its ``read`` and ``candidates``);
    "shown" whenever a reading shown names it (select may show a reply as the list it is named in)."""
    if any(right(i.answer, aliases) for i in result.interpretations):
        return "shown"
    if any(right(a.answer, aliases) for a in result.also):
        return "also"

    stating = [p.id for p in result.passages if any(occurs_in(a, p) for a in aliases)]
    named = [c for c in result.candidates if right(c.text, aliases)]
    checks = (
        bool(stating),
        bool(set(stating) & set(result.read)),
        bool(named),
        any(not c.rejection for c in named),
    )
    return next((name for name, passed in zip(STAGES, checks) if not passed), "hidden")


def follow(pipeline, items: list[dict]) -> list[dict]:
    """One row per question: its answers shown and the stage of each gold reading."""
    rows = []
    for item in items:
        result = pipeline.ask(item["question"])
        rows.append({
            "question": item["question"],
            "shown": [i.answer for i in result.interpretations],
            "also": [a.answer for a in result.also],
            "stages": [stage(aliases, result) for aliases in item["answers"]],
            "wrong": [i.answer for i in result.interpretations if not any(right(i.answer, g) for g in item["answers"])],
        })
    return rows


def totals(rows: list[dict]) -> dict[str, int]:
    """How many gold readings each stage lost (and how many were shown), and the wrong readings shown."""
    counted = Counter(s for r in rows for s in r["stages"])
    return {**{name: counted[name] for name in STAGES}, "needed": sum(counted.values()),
            "found but not shown": counted["dropped by verify"] + counted["hidden"],
            "wrong shown": sum(len(r["wrong"]) for r in rows)}


def run(pipeline, sets: dict[str, Path]) -> dict:
    """Every set through the pipeline, without its paragraph: ``{"totals": {set: totals}, "readings": {set:
    the readings report's measures of the same answers, without timings}, "rows": {set: rows}}``."""
    report: dict = {"preset": pipeline.loaded, "reader": pipeline.reader_model, "totals": {}, "readings": {}, "rows": {}}
    view = pipeline.with_options(use_generator=False)
    for name, path in sets.items():
        items = load_set(path, pipeline.retriever.index.passages)
        rows = follow(view, items)
        report["totals"][name], report["rows"][name] = totals(rows), rows
        report["readings"][name] = readings.summarize([readings.score_item(i, r["shown"], r.get("also", [])) for i, r in zip(items, rows)], [])
    return report


def markdown(report: dict) -> str:
    """One table: a row per set, a column per stage."""
    keys = (*STAGES, "needed", "found but not shown", "wrong shown")
    lines = ["| set | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    lines += [f"| {name} | " + " | ".join(str(t[k]) for k in keys) + " |" for name, t in report["totals"].items()]
    return "\n".join(lines)
