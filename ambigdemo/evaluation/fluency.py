"""Are rewrites real questions? Form checks and a language model's perplexity ratio, beside gold.

EDIT-F1 ignores word order, so a rewrite that scores well can still be word salad. Each rewrite
that differs from its prompt is checked for form (one question ending in "?", the prompt's
question word kept or made a typed "what"/"which" phrase, no word repeated back to back, no dangling function word before the "?") and
scored by a fixed judge LM (the embedded generator): per-token perplexity of the rewrite over that
of the prompt, both asked for the same way. A ratio above 1 reads worse than the prompt.
"""

from __future__ import annotations

import math
import random
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ambigdemo.runtimes.onnx import Generator, Message
from ambigdemo.stages.question import Question

JUDGE_PROMPT = [Message("user", "Ask a question.")]
DANGLING = frozenset("a an the of in on at to for from by with and or as than".split())
SAMPLES = 20


@dataclass(frozen=True)
class Rewrite:
    """One rewrite to judge: its prompt question, the rewrite, and the gold rewrite for the same answer."""

    prompt: str
    rewrite: str
    gold: str


def form_problems(prompt: str, rewrite: str) -> list[str]:
    """The form checks a rewrite fails ([] when it is a well-formed question that keeps the question word)."""
    text = rewrite.strip()
    tokens = re.findall(r"\w+", text.lower())
    problems = []
    if not text.endswith("?") or text.count("?") != 1 or "\n" in text:
        problems.append("not one question")
    if not Question.of(prompt).asks_as(text):
        problems.append("question word changed")
    if any(a == b for a, b in zip(tokens, tokens[1:])):
        problems.append("repeated word")
    if tokens and tokens[-1] in DANGLING:
        problems.append("dangling word")
    return problems


def perplexity_ratio(judge: Generator, prompt: str, rewrite: str) -> float:
    """exp(mean NLL of the rewrite) / exp(mean NLL of the prompt) under the judge."""
    return math.exp(judge.score(JUDGE_PROMPT, rewrite.strip()) - judge.score(JUDGE_PROMPT, prompt.strip()))


def fluency_report(rewrites: Sequence[Rewrite], judge: Generator | None, seed: int = 0) -> dict:
    """Shares of changed rewrites passing each form check, the mean and median perplexity ratio
    (None without a judge), and ``SAMPLES`` changed rewrites drawn with ``seed`` beside their gold."""
    changed = [r for r in rewrites if _norm(r.rewrite) != _norm(r.prompt)]
    problems = [form_problems(r.prompt, r.rewrite) for r in changed]
    ratios = [perplexity_ratio(judge, r.prompt, r.rewrite) for r in changed] if judge is not None else []
    counts: dict[str, int] = {}
    for found in problems:
        for p in found:
            counts[p] = counts.get(p, 0) + 1
    picked = sorted(random.Random(seed).sample(range(len(changed)), min(SAMPLES, len(changed))))
    return {
        "rewrites": len(rewrites),
        "changed": len(changed),
        "well_formed": sum(not p for p in problems) / len(changed) if changed else None,
        "problems": counts,
        "perplexity_ratio_mean": statistics.fmean(ratios) if ratios else None,
        "perplexity_ratio_median": statistics.median(ratios) if ratios else None,
        "samples": [
            {"prompt": changed[i].prompt, "rewrite": changed[i].rewrite, "gold": changed[i].gold,
             "problems": problems[i], "perplexity_ratio": round(ratios[i], 3) if ratios else None}
            for i in picked
        ],
    }


def fluency_markdown(system: str, report: dict) -> str:
    """The checks as a short list and the samples as a table."""
    mean, median = (_num(report[f"perplexity_ratio_{k}"]) for k in ("mean", "median"))
    problems = ", ".join(f"{k} {v}" for k, v in report["problems"].items()) or "none"
    lines = [
        f"**{system}**: {report['changed']} of {report['rewrites']} rewrites differ from the prompt; "
        f"well-formed: {_pct(report['well_formed'])}; problems: {problems}; perplexity ratio "
        f"(rewrite / prompt, judge: the embedded generator): mean {mean}, median {median}",
        "",
        "| prompt | rewrite | gold rewrite | ratio | problems |",
        "|---|---|---|---|---|",
    ]
    for s in report["samples"]:
        cells = [s["prompt"], s["rewrite"], s["gold"], _num(s["perplexity_ratio"]), ", ".join(s["problems"])]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
