"""Lab: the verifier's collected reader candidates (docs/results/verifier) with their evidence sentences and a
fold by question, to OUT/reader-{train,dev}.jsonl. Usage: python reader_pairs.py OUT"""
import json, sys, zlib
from pathlib import Path
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.building.train_verifier import records
from ambigdemo.stages.reader.verify import stating
pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
for name in ("train", "dev"):
    with open(f"{sys.argv[1]}/reader-{name}.jsonl", "w") as f:
        for r in records(Path(f"docs/results/verifier/{name}.jsonl")):
            ps = {p.id: p for p in pipeline.retriever.search(r["question"], 8)}
            for c in r["candidates"]:
                p = ps[c["passage"]]
                s = (stating(c["text"], p) or [p.text])[0]
                f.write(json.dumps({"question": r["question"], "text": c["text"], "title": p.title, "sentence": s,
                                    "right": int(c["right"]), "fold": zlib.crc32(r["question"].encode()) % 2}) + "\n")
