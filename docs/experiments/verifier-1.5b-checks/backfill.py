"""Lab: the model's own yes/no check of each candidate train-verifier collected for the 1.5B
(docs/results/verifier-1.5b/{split}.jsonl). After the passage's turn and the candidate as the model's reply,
one more turn asks 'Does the passage say that {answer} is the answer to the question "{question}"? Reply
yes or no.'; ``yes`` is P(yes) / (P(yes) + P(no)) of the first token (yes/Yes, no/No). The records are
written again with ``yes`` on each candidate, one question per line, resumable.

    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/verifier-1.5b-checks/backfill.py train docs/results/verifier-1.5b-checks/train.jsonl
"""
import json
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import records
from ambigdemo.runtimes.onnx import ASSISTANT, END, chatml_turn

ASK = 'Does the passage say that {answer} is the answer to the question "{question}"? Reply yes or no.'

split, out = sys.argv[1], Path(sys.argv[2])
pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
reader = pipeline.reader
yes, no = ([reader.generator.encode(w)[0] for w in words] for words in (("yes", "Yes"), ("no", "No")))


def p_yes(start, answer: str, question: str) -> float:
    """The check of ``answer`` asked after ``start`` (a passage's turn, where the reply begins); ``start`` unchanged."""
    logits = start.fork().extend(answer + END + chatml_turn("user", ASK.format(answer=answer, question=question)) + ASSISTANT).logits
    z = np.exp(logits - logits.max())
    return float(z[yes].sum() / (z[yes].sum() + z[no].sum()))


found = records(Path("docs/results/verifier-1.5b") / f"{split}.jsonl")
done = {r["question"] for r in records(out)} if out.exists() else set()
out.parent.mkdir(parents=True, exist_ok=True)
with out.open("a", encoding="utf-8") as f:
    for record in tqdm(found, desc=f"asking {split}", unit="q"):
        if record["question"] in done:
            continue
        by_id = {p.id: p for p in pipeline.retriever.search(record["question"], 8)}
        starts = {}
        for c in record["candidates"]:
            if c["passage"] not in starts:
                starts[c["passage"]] = reader.start(record["question"], by_id[c["passage"]])
            c["yes"] = p_yes(starts[c["passage"]], c["text"], record["question"])
        f.write(json.dumps(record) + "\n")
        f.flush()
