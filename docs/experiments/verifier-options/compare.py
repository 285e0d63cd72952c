"""Lab: dev AUC of the verifier's options, alone and beside its features, on the candidates train-verifier collected.

Usage: python compare.py OUT MODEL_A MODEL_B, where MODEL_A was trained on the reader candidates of fold 1 and
scores fold 0, MODEL_B the other way round (the dev candidates get their mean), and OUT holds listwise.json.
"""
import json
import sys
import zlib
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import featurize, labelled, records
from ambigdemo.stages.reader.verifier import FEATURES, auc, fit
from ambigdemo.stages.reader.verify import stating
from ambigdemo.text import normalize_answer

out, folders = Path(sys.argv[1]), [Path(a) for a in sys.argv[2:4]]
torch.set_num_threads(2)
tok = AutoTokenizer.from_pretrained(folders[0])
models = [AutoModelForSequenceClassification.from_pretrained(f).eval() for f in folders]
pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
listwise = json.loads((out / "listwise.json").read_text())


def add_options(found, dev=False):
    """Each candidate's cross-encoder logit (out of fold on train) and listwise probability, as features."""
    for r in found:
        fold = zlib.crc32(r["question"].encode()) % 2
        use = models if dev else [models[fold]]
        passages = {p.id: p for p in pipeline.retriever.search(r["question"], 8)}
        pairs = []
        for c in r["candidates"]:
            p = passages[c["passage"]]
            pairs.append((r["question"], f"{c['text']} ; {p.title}: {(stating(c['text'], p) or [p.text])[0]}"))
        if not pairs:
            continue
        a, b = zip(*pairs)
        with torch.no_grad():
            enc = tok(list(a), list(b), truncation="only_second", max_length=128, padding=True, return_tensors="pt")
            logits = np.mean([m(**enc).logits.squeeze(-1).numpy() for m in use], axis=0).tolist()
        for c, logit in zip(r["candidates"], logits):
            c["features"]["cross"] = float(logit)
            c["features"]["listwise"] = listwise.get(r["question"], {}).get(normalize_answer(c["text"]), 0.0)
    return found


nlp = pipeline.reader.nlp
train = add_options(featurize(records(Path("docs/results/verifier/train.jsonl")), pipeline.retriever, nlp))
dev = add_options(featurize(records(Path("docs/results/verifier/dev.jsonl")), pipeline.retriever, nlp), dev=True)
tr, ty = labelled(train)
dr, dy = labelled(dev)
before = tuple(n for n in FEATURES if n != "position")
print("| scorer | dev AUC | train AUC |\n|---|---|---|")
for name in ("cross", "listwise", "position"):
    sign = -1 if name == "position" else 1
    print(f"| {name} alone | {auc([sign * r[name] for r in dr], dy):.3f} | {auc([sign * r[name] for r in tr], ty):.3f} |")
for label, names in (("the 14 features of 0868b69", before), ("14 + cross", before + ("cross",)),
                     ("14 + listwise", before + ("listwise",)), ("14 + position (shipped)", FEATURES),
                     ("14 + position + cross", FEATURES + ("cross",)), ("14 + position + listwise", FEATURES + ("listwise",)),
                     ("14 + position + cross + listwise", FEATURES + ("cross", "listwise"))):
    v = fit(tr, ty, names=names)
    print(f"| {label} | {auc([v.p(r) for r in dr], dy):.3f} | {auc([v.p(r) for r in tr], ty):.3f} (in sample) |")
