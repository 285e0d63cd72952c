"""Would the 0.5B's own probabilities find a second reading in one passage? For each dev question, every
passage the reader reads (within 90% of the best score, up to 8) is asked as the app asks it; each of
the model's four likeliest first tokens after the greedy one is continued greedily, and a branch
that parses to an answer the app's checks keep (``verify.rejection``) and that the app does not
already show is scored by its sequence probability. Counts, per threshold and per number of passages
read: new needed readings against new wrong answers, before any rewrite check.

    PYTHONPATH=. python docs/results/reader-branches/branches.py assets/readings-dev.json docs/results/reader-branches
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.answers import same_answer
from ambigdemo.stages.reader import relevant
from ambigdemo.stages.reader.prompts import passage_turn
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verify import rejection
from ambigdemo.text import mentions, normalize_answer

FIRST_TOKENS, MAX_TOKENS = 5, 16
THRESHOLDS, PASSAGES = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5), (1, 2, 4, 8)


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max()
    return x - np.log(np.exp(x).sum())


def branch(reader, context, first: int) -> tuple[str, float]:
    """The greedy reply that starts with token ``first``, and its probability."""
    tokenizer, context = reader.generator.tokenizer, context.fork()
    logp, out = float(log_softmax(context.logits)[first]), [first]
    context.extend_ids([first])
    for _ in range(MAX_TOKENS - 1):
        scores = log_softmax(context.logits)
        token = int(np.argmax(scores))
        if token in reader.generator.eos_ids or "\n" in tokenizer.decode(out + [token]):
            break
        out.append(token)
        logp += float(scores[token])
        context.extend_ids([token])
    return tokenizer.decode(out), float(np.exp(logp))


def main(data: Path, out: Path) -> None:
    pipeline = Pipeline.load()
    reader = pipeline.reader
    rows = []
    for item in json.loads(data.read_text(encoding="utf-8")):
        gold = item["answers"]
        result = pipeline.with_options(use_generator=False).ask(item["question"])
        shown = [i.answer for i in result.interpretations]

        def reading(text: str) -> int | None:
            return next((k for k, aliases in enumerate(gold) if any(mentions(text, a) or mentions(a, text) for a in aliases)), None)

        have = {reading(a) for a in shown} - {None}
        branches = []
        question = Question.of(item["question"])
        for rank, passage in enumerate(relevant(result.passages, reader.relevance, reader.min_score, 8)):
            context = reader.prefix().fork().extend(passage_turn(passage.title, passage.text, question.text, reader.passage_words))
            for first in np.argsort(-log_softmax(context.logits))[1:FIRST_TOKENS]:
                text, p = branch(reader, context, int(first))
                answer = parse_reply(text, names=question.asks_person)
                if not answer or rejection(question, answer, passage) is not None:
                    continue
                if any(same_answer(normalize_answer(answer), normalize_answer(s)) for s in shown):
                    continue
                branches.append({"passage": rank, "p": round(p, 4), "answer": answer, "reading": reading(answer)})
        rows.append({"question": item["question"], "shown": shown, "have": sorted(have), "branches": branches})
    table = ["| passages read | branch probability at least | new needed readings | new wrong answers |", "|---|---|---|---|"]
    for n in PASSAGES:
        for threshold in THRESHOLDS:
            new, wrong = set(), set()
            for row in rows:
                for b in row["branches"]:
                    if b["passage"] < n and b["p"] >= threshold:
                        if b["reading"] is None:
                            wrong.add((row["question"], b["answer"].lower()))
                        elif b["reading"] not in row["have"]:
                            new.add((row["question"], b["reading"]))
            table.append(f"| {n} | {threshold} | {len(new)} | {len(wrong)} |")
    out.mkdir(parents=True, exist_ok=True)
    (out / "branches.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    (out / "branches.md").write_text("\n".join(table) + "\n", encoding="utf-8")
    print("\n".join(table))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
