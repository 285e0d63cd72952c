"""Lab: distant-labelled (question, candidate, evidence sentence) pairs from AmbigNQ train over the corpus.

Every spaCy entity (and the title) of the top 8 passages of each train question the verifier was not
fitted on, labelled by the gold answers; written to OUT/all.jsonl. Usage: python pairs.py OUT
"""
import json, random, sys, time
from pathlib import Path
from ambigdemo.config import Config, AMBIGNQ_TRAIN
from ambigdemo.pipeline import Pipeline
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.building.train_verifier import gold_answers, records
from ambigdemo.evaluation.readings import right
from ambigdemo.corpus import split_sentences
from ambigdemo.stages.answers import bare_title
from ambigdemo.text import normalize_answer, mentions

out = Path(sys.argv[1]) / "all.jsonl"; out.parent.mkdir(parents=True, exist_ok=True); limit = 100000
pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
nlp = pipeline.reader.nlp
exclude = {r["question"] for r in records(Path("docs/results/verifier/train.jsonl"))}
items = [(e.question, gold_answers(e)) for e in load_ambignq(AMBIGNQ_TRAIN) if e.question not in exclude]
random.Random(1).shuffle(items)
ents_cache = {}
def spans(p):
    if p.id not in ents_cache:
        found = []
        for s in split_sentences(p.text):
            for e in nlp(s).ents:
                found.append((e.text, s, e.label_))
        ents_cache[p.id] = found
    return ents_cache[p.id]
def label(t, gold):
    aliases = [a for g in gold for a in g]
    if any(mentions(t, a) for a in aliases):
        return True
    return any(mentions(a, t) and len(normalize_answer(t).split()) * 2 >= len(normalize_answer(a).split()) for a in aliases)
rng = random.Random(0)
n_q = n_pos = n_neg = 0
t0 = time.time()
with out.open("w") as f:
    for i, (q, gold) in enumerate(items[:limit]):
        passages = pipeline.retriever.search(q, 8)
        cands = {}
        for rank, p in enumerate(passages):
            title = bare_title(p.title)
            sents = split_sentences(p.text)
            cands.setdefault(normalize_answer(title), (title, p, sents[0] if sents else p.text, rank, 'TITLE'))
            for text, s, lab in spans(p):
                cands.setdefault(normalize_answer(text) + "|" + p.id, (text, p, s, rank, lab))
        rows = [(t, p, s, r, label(t, gold), lab) for t, p, s, r, lab in cands.values()]
        pos = [x for x in rows if x[4]]
        if not pos:
            continue
        neg = [x for x in rows if not x[4]]
        rng.shuffle(pos); rng.shuffle(neg)
        neg.sort(key=lambda x: x[3])
        for t, p, s, r, y, lab in pos + neg:
            f.write(json.dumps({"question": q, "text": t, "title": p.title, "sentence": s, "rank": r, "right": int(y), "label": lab}) + "\n")
            n_pos += y; n_neg += 1 - y
        n_q += 1
        if i % 500 == 0:
            print(i, n_q, n_pos, n_neg, round(time.time() - t0), flush=True)
print("done", n_q, n_pos, n_neg, round(time.time() - t0))
