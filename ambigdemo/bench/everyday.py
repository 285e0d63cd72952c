"""The everyday questions (``bench --everyday``): answer first, exactly the gold readings, and how fast."""

from __future__ import annotations

import json
from pathlib import Path

from ambigdemo.bench.answers import share, summarize_runs
from ambigdemo.config import ROOT


def everyday(path: Path = ROOT / "assets" / "everyday.json") -> dict:
    """The everyday questions (assets/everyday.json) through the configured pipeline: how many get their
    answer first, how many get exactly the gold readings, and how fast, with the paragraphs' sources."""
    from ambigdemo.config import Config
    from ambigdemo.evaluation.readings import right
    from ambigdemo.pipeline import Pipeline

    pipeline = Pipeline.load(Config.from_env())
    items = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for item in items:
        result = pipeline.ask(item["question"])
        answers, gold = [i.answer for i in result.interpretations], item["answers"]
        first = bool(answers) and right(answers[0], [a for reading in gold for a in reading]) if gold else not answers
        exact = all(any(right(p, g) for p in answers) for g in gold) and all(any(right(p, g) for g in gold) for p in answers)
        rows.append({"question": item["question"], "answers": answers, "first_right": first, "exact": exact and (bool(gold) or not answers),
                     "paragraph_source": result.paragraph_source, "timings_ms": result.timings_ms})
    answered = [r for r in rows if r["answers"]]
    return {
        "preset": pipeline.config.preset,
        "reader": pipeline.config.reader,
        "questions": len(rows),
        "first_right": sum(r["first_right"] for r in rows),
        "exact_readings": sum(r["exact"] for r in rows),
        "generated_paragraph_share": share([r["paragraph_source"] for r in answered], "generated"),
        "stages": summarize_runs([r["timings_ms"] for r in rows]),
        "rows": rows,
    }
