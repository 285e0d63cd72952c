"""Lab: a listwise turn of the reader's model over each collected question's distinct candidates (at most 9, in
reading order), each with the sentence of its passage that states it: p(number) from one forward pass.

Writes OUT/listwise.json (question -> normalised answer -> p) and prints the dev AUC with the candidates numbered
in reading order and in reverse (is it reading the candidates, or their order?). Usage: python listwise.py OUT
[RUN [SPLITS]]: the candidates of RUN/{dev,train}.jsonl (default docs/results/verifier, the 0.5B's), SPLITS
comma-separated (default dev,train); the reader's model is the one loaded (AMBIGDEMO_READER_MODEL).
"""
import json
import sys
from pathlib import Path

import numpy as np

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import records
from ambigdemo.runtimes.onnx import ASSISTANT, chatml_turn
from ambigdemo.stages.reader.verifier import auc
from ambigdemo.stages.reader.verify import stating
from ambigdemo.text import normalize_answer

TASK = ("Question: {question}\nCandidate answers, each with the sentence it was read from:\n{lines}\n"
        "Which candidate does its sentence state as the answer to the question? Reply with its number only.")
pipeline = Pipeline.load(Config.from_env(verifier="off"))
generator = pipeline.reader.generator
digits = [generator.encode(str(i))[0] for i in range(1, 10)]


def listwise(question, candidates):
    """p(number) of each distinct candidate ((answer, passage) pairs), keyed by its normalised text."""
    keys, lines = [], []
    for text, passage in candidates:
        key = normalize_answer(text)
        if key in keys or len(keys) == 9:
            continue
        keys.append(key)
        sentence = (stating(text, passage) or [passage.text])[0]
        lines.append(f'{len(keys)}. {text} (from "{passage.title}": {sentence[:300]})')
    if not keys:
        return {}
    turn = chatml_turn("user", TASK.format(question=question, lines="\n".join(lines))) + ASSISTANT
    logits = generator.context(turn).logits[digits[: len(keys)]]
    p = np.exp(logits - logits.max())
    return dict(zip(keys, (p / p.sum()).tolist()))


run = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("docs/results/verifier")
splits = sys.argv[3].split(",") if len(sys.argv) > 3 else ("dev", "train")
out, labels, forward, backward = {}, [], [], []
for name in splits:
    for r in records(run / f"{name}.jsonl"):
        passages = {p.id: p for p in pipeline.retriever.search(r["question"], 8)}
        candidates = [(c["text"], passages[c["passage"]]) for c in r["candidates"]]
        out[r["question"]] = listwise(r["question"], candidates)
        if name == "dev":
            reverse = listwise(r["question"], candidates[::-1])
            for c in r["candidates"]:
                key = normalize_answer(c["text"])
                labels.append(c["right"])
                forward.append(out[r["question"]].get(key, 0.0))
                backward.append(reverse.get(key, 0.0))
    print(name, len(out), flush=True)
Path(sys.argv[1], "listwise.json").write_text(json.dumps(out))
print(f"dev AUC, numbered in reading order: {auc(forward, labels):.3f}; in reverse: {auc(backward, labels):.3f}")
