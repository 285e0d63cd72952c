"""Would the score gain from two more features, or from more train questions? Out of fold on the committed train
candidates (docs/results/verifier-1.5b/train.jsonl), featurized by the current code (cached in CACHE):

* ``sim``: the retriever's cosine between the question and the best of the sentences stating the candidate (with
  the passage's title); ``sim_gap``: how far it stands under the question's best candidate's;
* ``bm_top`` / ``bm_rank``: whether BM25 ranks the candidate's passage first for the question / its BM25 rank;
* the learning curve: a fit on 75 to 300 questions, scored on a fixed 120 others (mean of 5 draws).

    AMBIGDEMO_GENERATOR=0 PYTHONPATH=. python docs/experiments/best-first/score_features.py /tmp/train-features.pkl
"""

import math
import pickle
import random
import sys
from pathlib import Path

from ambigdemo.building.train_verifier import featurize, labelled, out_of_fold, records
from ambigdemo.config import ROOT, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.reader.verifier import SCORED, auc, fit
from ambigdemo.stages.reader.verify import evidence, stating


def main(cache: Path) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off", reader_model="1.5b"))
    retriever = pipeline.retriever
    if cache.is_file():
        found = pickle.loads(cache.read_bytes())
    else:
        train = records(ROOT / "docs" / "results" / "verifier-1.5b" / "train.jsonl")
        found = featurize(train, retriever, pipeline.reader.nlp, reader=pipeline.reader)
        cache.write_bytes(pickle.dumps(found))
    lexical, rows = retriever.index.lexical, list(retriever.index.passages)
    for record in found:
        by_id = {p.id: p for p in retriever.search(record["question"], 8)}
        query = retriever.embedder.encode_query([record["question"]])[0]
        ranked = [rows[r].id for r, _ in lexical.ranked([record["question"]], 20)[0]]
        for c in record["candidates"]:
            passage = by_id[c["passage"]]
            sentences = stating(c["text"], passage)[:4] or [evidence(c["text"], passage)]
            c["features"]["sim"] = float((retriever.embedder.encode_passages([f"{passage.title}. {s}" for s in sentences]) @ query).max())
            rank = ranked.index(c["passage"]) if c["passage"] in ranked else 20
            c["features"]["bm_top"], c["features"]["bm_rank"] = float(rank == 0), math.log1p(rank)
        best = max((c["features"]["sim"] for c in record["candidates"]), default=0.0)
        for c in record["candidates"]:
            c["features"]["sim_gap"] = c["features"]["sim"] - best
    features, labels = labelled(found)
    for name in ("sim", "sim_gap", "bm_top", "bm_rank"):
        print(f"{name} alone: AUC {auc([f[name] for f in features], labels):.4f}")
    print(f"the shipped features, out of fold: {out_of_fold(found, SCORED):.4f}")
    for extra in (("sim",), ("sim", "sim_gap"), ("bm_top",), ("bm_rank",)):
        print(f"  + {', '.join(extra)}: {out_of_fold(found, SCORED + extra):.4f}")
    order = list(range(len(found)))
    random.Random(1).shuffle(order)
    test, pool = [found[i] for i in order[:120]], [found[i] for i in order[120:]]
    rows_test, labels_test = labelled(test)
    for n in (75, 150, 225, 300):
        fits = [fit(*labelled(random.Random(seed).sample(pool, n)), names=SCORED) for seed in range(5)]
        print(f"fitted on {n} questions: AUC on 120 others {sum(auc([v.p(r) for r in rows_test], labels_test) for v in fits) / 5:.4f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
