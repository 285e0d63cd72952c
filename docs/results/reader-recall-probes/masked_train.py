"""The masked re-read on AmbigNQ train (the 200 corpus-supported multi-answer and 60 null questions of
``tune --gate``): the first gated passage is read again with its answer masked (``sub``; reads cached
in masked-train.jsonl here), then every question is replayed through the app's reader checks and
rewrite stage from the cached reads, without and with the masked read: multi-answer F1 (%), null
accuracy, answers per multi-answer question.

    PYTHONPATH=. python docs/results/reader-recall-probes/masked_train.py
    git apply docs/results/reader-recall-probes/nearest-clause.patch && PYTHONPATH=. python docs/results/reader-recall-probes/masked_train.py; git checkout ambigdemo/stages/rewrite.py
"""
import json, re
from dataclasses import replace
from pathlib import Path
from ambigdemo.pipeline import Pipeline
from ambigdemo.evaluation import gate
from ambigdemo.evaluation.metrics import answer_f1
from ambigdemo.stages.reader import ask_rewrite
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.question import Question
from ambigdemo.types import Passage

def masked_text(text, answer):
    parts = [answer] + [a.strip() for a in re.split(r",|\band\b", answer) if len(a.strip()) > 2]
    for a in sorted(set(parts), key=len, reverse=True):
        text = re.sub(re.escape(a), "(...)", text, flags=re.I)
    return text

p = Pipeline.load()
R = replace(p.reader, branch_passages=0)
qs = gate.sample(p.retriever, Path("assets/datasets/ambignq/train_light.json"), p.config.top_k, 200, 60, 0)
reads = gate.read_all(p.reader, qs, Path("docs/results/tune") / f"gate-embedded-200-60-0-{gate.prompt_key()}.reads.jsonl")
cache = Path(__file__).with_name("masked-train.jsonl")
masked = {}
if cache.exists():
    for l in cache.read_text().splitlines():
        r = json.loads(l); masked[r["id"]] = r
with cache.open("a") as out:
    for q in qs:
        if q.id in masked: continue
        order = R.read(q.question, q.passages).to_read()
        rec = {"id": q.id, "passage": None}
        if order:
            p0 = order[0][0]
            a1 = parse_reply(reads[(q.id, p0.id)].reply, names=Question.of(q.question).asks_person)
            if a1:
                mp = Passage(p0.id, p0.title, masked_text(p0.text, a1), p0.score)
                ctx = R.start(q.question, mp)
                reply = ctx.complete(R.max_answer_tokens, stop=("\n",))
                a2 = parse_reply(reply, names=Question.of(q.question).asks_person)
                rw = ask_rewrite(ctx, a2, R.max_rewrite_tokens) if a2 else ""
                rec = {"id": q.id, "passage": p0.id, "reply": reply, "rewrite": rw}
        out.write(json.dumps(rec) + "\n"); out.flush(); masked[q.id] = rec

def run(use_mask):
    f1, null_ok, npred = [], [], []
    for q in qs:
        reading = R.read(q.question, q.passages)
        src = {}
        for ps, least in reading.to_read():
            before = {a.text for a in reading.found}
            a = reading.take(ps, reads[(q.id, ps.id)].reply, least_coverage=least)
            if a is not None and a.text not in before: src[a.text] = reads[(q.id, ps.id)].rewrite
            m = masked.get(q.id)
            if use_mask and m and m["passage"] == ps.id:
                before = {a.text for a in reading.found}
                a = reading.take(ps, m["reply"], alternative=True)
                if a is not None and a.text not in before: src[a.text] = m["rewrite"]
        answers = [i.answer for i in p.rewriter.rewrite(q.question, list(reading.found), propose=lambda a: src.get(a.text, ""))]
        if q.answers:
            f1.append(answer_f1(q.answers, answers)); npred.append(len(answers))
        else:
            null_ok.append(not answers)
    return round(100 * sum(f1) / len(f1), 2), round(sum(null_ok) / len(null_ok), 3), round(sum(npred) / len(npred), 3)
print("shipped", run(False)); print("masked", run(True))
