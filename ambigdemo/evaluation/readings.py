"""Readings sets: does the app show every reading the corpus states, and nothing else?

A set (``assets/readings-test.json``, frozen before the reader was rebuilt and, having decided many
changes since, now a second dev set; ``assets/readings-dev.json``, to tune on; ``assets/everyday.json``;
``assets/readings-heldout.json``, ``-2.json``, ``-3.json`` and ``-4.json``, each held out until it is measured once, when the
choice of readings is rebuilt) is a list of ``{"question", "answers": [[alias, ...], ...]}`` (an optional ``"kind"`` says what it tests),
one alias list per reading, ``[]`` where the corpus cannot answer. Per set and system:

* ``needed``: gold readings found (an answer shown that matches one of its aliases) of all gold readings;
* ``fully_right``: questions whose answers shown are exactly the gold readings (none, for a null one);
* ``wrong``: answers shown that match no gold reading (every answer to a null question);
* ``multi_complete``: questions of two or more readings that show every one of them;
* with "also in the passages" (answers scored under the readings, shown apart): ``needed_with_also`` (gold
  readings in the readings or "also"), ``multi_complete_with_also``, ``also_per_question``;
* timings: first reading, whole answer (readings and paragraph) and the "also" tier done, p50, over the answered questions.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from ambigdemo.text import mentions


def load(path: Path) -> list[dict]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def right(predicted: str, aliases: list[str]) -> bool:
    """The answer shown names one of the aliases, or is named by one ("Bizet" for "Georges Bizet")."""
    return any(mentions(predicted, a) or mentions(a, predicted) for a in aliases)


def score_item(item: dict, answers: list[str], also: list[str] = ()) -> dict:
    """One question's readings (``answers``) and "also" answers scored against its gold readings."""
    gold = item["answers"]
    found = [any(right(p, g) for p in answers) for g in gold]
    wrong = [p for p in answers if not any(right(p, g) for g in gold)]
    return {
        "question": item["question"],
        "answers": answers,
        "also": list(also),
        "gold": len(gold),
        "found": sum(found),
        "found_with_also": sum(any(right(p, g) for p in [*answers, *also]) for g in gold),
        "wrong": wrong,
        "fully_right": all(found) and not wrong,
    }


def summarize(rows: list[dict], timings: list[dict]) -> dict:
    multi = [r for r in rows if r["gold"] >= 2]
    answered = [t for t, r in zip(timings, rows) if r["answers"]]

    def p50(*keys: str) -> float | None:
        """The median of each answered question's first timing of ``keys`` that it has."""
        values = [next(t[k] for k in keys if k in t) for t in answered if any(k in t for k in keys)]
        return round(statistics.median(values) / 1000, 2) if values else None

    return {
        "questions": len(rows),
        "needed": f"{sum(r['found'] for r in rows)} / {sum(r['gold'] for r in rows)}",
        "needed_share": round(sum(r["found"] for r in rows) / max(1, sum(r["gold"] for r in rows)), 3),
        "fully_right": f"{sum(r['fully_right'] for r in rows)} / {len(rows)}",
        "fully_right_share": round(sum(r["fully_right"] for r in rows) / max(1, len(rows)), 3),
        "wrong": sum(len(r["wrong"]) for r in rows),
        "wrong_per_5_questions": round(5 * sum(len(r["wrong"]) for r in rows) / max(1, len(rows)), 2),
        "multi_complete": f"{sum(r['found'] == r['gold'] for r in multi)} / {len(multi)}",
        "multi_complete_share": round(sum(r["found"] == r["gold"] for r in multi) / max(1, len(multi)), 3),
        "needed_with_also": f"{sum(r.get('found_with_also', r['found']) for r in rows)} / {sum(r['gold'] for r in rows)}",
        "multi_complete_with_also": f"{sum(r.get('found_with_also', r['found']) == r['gold'] for r in multi)} / {len(multi)}",
        "also_per_question": round(sum(len(r.get("also", [])) for r in rows) / max(1, len(rows)), 2),
        "null_right": f"{sum(not r['answers'] for r in rows if not r['gold'])} / {sum(not r['gold'] for r in rows)}",
        "first_reading_p50_s": p50("first_interpretation"),
        "whole_answer_p50_s": p50("total"),
        "also_done_p50_s": p50("also_done", "total"),  # the "also" tier's further passages read (none: the whole answer)
    }


def run(pipeline, sets: dict[str, Path], systems: tuple[str, ...] = ("llm", "heuristic")) -> dict:
    """Every set through every reader of one loaded pipeline, side by side: ``{system: {set: summary}}``
    and the rows behind them."""
    report: dict = {"preset": pipeline.config.preset, "summary": {}, "rows": {}}
    for system in systems:
        view = pipeline.with_options(reader=system)
        for name, path in sets.items():
            rows, timings = [], []
            for item in load(path):
                result = view.ask(item["question"])
                rows.append(score_item(item, [i.answer for i in result.interpretations], [a.answer for a in result.also]))
                timings.append(result.timings_ms)
            report["summary"].setdefault(system, {})[name] = summarize(rows, timings)
            report["rows"].setdefault(system, {})[name] = rows
    return report


def markdown(report: dict) -> str:
    """One table: a row per system and set."""
    keys = ("needed", "fully_right", "wrong_per_5_questions", "multi_complete", "null_right", "needed_with_also",
            "multi_complete_with_also", "also_per_question", "first_reading_p50_s", "whole_answer_p50_s", "also_done_p50_s")
    lines = ["| system | set | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    for system, sets in report["summary"].items():
        for name, s in sets.items():
            lines.append(f"| {system} | {name} | " + " | ".join(str(s.get(k)) for k in keys) + " |")
    return "\n".join(lines)
