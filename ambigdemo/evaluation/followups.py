"""Follow-up rewriting (QuAC) on a conversational set: exact match of the standalone question and
the end answer's accuracy, beside answering the follow-up as asked and answering the gold rewrite.

The set (``assets/followups.json``): conversations whose turns each have the question as asked, its
gold standalone rewrite and gold answers (aliases each; none: the passages cannot answer it, QuAC's
CANNOTANSWER). Conversations are split: "dev" ones were used while writing the rewriter's rules,
"test" ones were written afterwards and never tuned on. Each follow-up is rewritten from the gold history (the earlier turns' gold standalone
questions and first gold answers), so a follow-up's score does not depend on earlier mistakes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ambigdemo.evaluation.datasets import DataError
from ambigdemo.evaluation.metrics import answer_f1, answer_shown
from ambigdemo.types import Turn
from ambigdemo.text import normalize_answer

TASK = "followup"
SYSTEMS = ("as asked", "rewritten", "gold rewrite")


@dataclass(frozen=True)
class FollowUp:
    history: list[Turn]
    asked: str
    standalone: str
    answers: list[list[str]]
    split: str = "dev"


def load(path: Path) -> list[FollowUp]:
    """Every follow-up of every conversation (turns after the first), with its gold history."""
    items = []
    for conv in json.loads(Path(path).read_text(encoding="utf-8")):
        turns = conv["turns"]
        for n, turn in enumerate(turns[1:], 1):
            history = [Turn(t["standalone"], [a[0] for a in t["answers"]]) for t in turns[:n]]
            items.append(FollowUp(history, turn["question"], turn["standalone"], turn["answers"], conv.get("split", "dev")))
    return items


def run(load_pipeline: Callable[[], object], data: Path, out: Path, limit: int | None = None) -> dict:
    """``evaluate --task followup``: the set in ``data`` (checked before any model loads), first ``limit`` follow-ups."""
    try:
        items = load(data)
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(f"{data}: not a conversations file ({exc})") from exc
    return evaluate(load_pipeline(), items[:limit])


def evaluate(pipeline, items: Sequence[FollowUp]) -> dict:
    """Per split and system: answer accuracy and answer F1; for the rewriter also exact match and sources."""
    rows = []
    for item in tqdm(items, desc="follow-ups"):
        rewrite = pipeline.standalone(item.asked, item.history)
        row = {
            "split": item.split, "asked": item.asked, "gold": item.standalone, "rewrite": rewrite.question,
            "source": rewrite.source, "exact": normalize_answer(rewrite.question) == normalize_answer(item.standalone),
        }
        for system, question in zip(SYSTEMS, (item.asked, rewrite.question, item.standalone)):
            shown = [i.answer for i in pipeline.ask(question).interpretations]
            row[system] = {
                "answers": shown, "correct": answer_shown(item.answers, shown),
                "f1": answer_f1(item.answers, shown) if item.answers else float(not shown),
            }
        rows.append(row)
    splits = {name: [r for r in rows if name == "all" or r["split"] == name] for name in ("dev", "test", "all")}
    return {"splits": {name: summary(part) for name, part in splits.items() if part}, "rows": rows}


def summary(rows: Sequence[dict]) -> dict:
    pct = lambda xs: round(100 * sum(xs) / len(xs), 1) if xs else 0.0  # noqa: E731
    sources: dict[str, int] = {}
    for r in rows:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    return {
        "follow_ups": len(rows),
        "rewrite_exact_match": pct([r["exact"] for r in rows]),
        "rewrite_sources": sources,
        "systems": {s: {k: pct([r[s][k] for r in rows]) for k in ("correct", "f1")} for s in SYSTEMS},
    }


def markdown(report: dict) -> str:
    lines = [
        "| follow-ups | n | rewrite exact match | answer right: as asked / rewritten / gold rewrite | answer F1: as asked / rewritten / gold rewrite |",
        "|---|---|---|---|---|",
    ]
    for name, m in report["splits"].items():
        acc = " / ".join(f"{m['systems'][s]['correct']:.1f}" for s in SYSTEMS)
        f1 = " / ".join(f"{m['systems'][s]['f1']:.1f}" for s in SYSTEMS)
        lines.append(f"| {name} | {m['follow_ups']} | {m['rewrite_exact_match']:.1f} | {acc} | {f1} |")
    return "\n".join(lines)
