"""Would typed spans, scored by the reader model's own probability, find the readings it misses? For
each dev question, each passage read (the gated ones, then the next up to N in retrieval order) gives
candidates: the spaCy entities whose label the question's answer type calls for, and the passage's
title; each is scored by the log probability that the model's whole reply is that span (the span and
the end of turn, on the passage's cache), beside the greedy reply's and "none"'s. One JSON line per question.

    PYTHONPATH=. python docs/results/reader-recall-probes/spans.py assets/readings-dev.json 8 > docs/results/reader-recall-probes/spans-0.5b.jsonl
    AMBIGDEMO_PRESET=embedded-1.5b PYTHONPATH=. python docs/results/reader-recall-probes/spans.py assets/readings-dev.json 2 > docs/results/reader-recall-probes/spans-1.5b.jsonl
"""
import json, sys
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.onnx import END, _log_softmax
from ambigdemo.stages.answers import same_answer, bare_title
from ambigdemo.stages.reader import relevant
from ambigdemo.stages.reader.recall import beyond
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verify import rejection
from ambigdemo.text import mentions, normalize_answer

def seq_logp(ctx, text):
    g = ctx.generator
    ids = g.encode(text + END)
    logits, _ = g._forward(ids, ctx.past, len(ctx.ids), keep=len(ids))
    logits = logits[-len(ids):]
    lp = float(_log_softmax(ctx.logits)[ids[0]])
    for i in range(1, len(ids)):
        lp += float(_log_softmax(logits[i - 1])[ids[i]])
    return lp

pipeline = Pipeline.load()
reader = pipeline.reader
nlp = reader.nlp
NP = int(sys.argv[2]) if len(sys.argv) > 2 else 8
for item in json.loads(open(sys.argv[1]).read()):
    gold = item["answers"]
    result = pipeline.with_options(use_generator=False).ask(item["question"])
    shown = [i.answer for i in result.interpretations]
    def reading(text):
        return next((k for k, al in enumerate(gold) if any(mentions(text, a) or mentions(a, text) for a in al)), None)
    q = Question.of(item["question"])
    gated = relevant(result.passages, reader.relevance, reader.min_score, reader.max_passages)
    order = gated + beyond(result.passages, gated, reader.min_score, NP - len(gated))
    out = []
    for rank, passage in enumerate(order):
        ctx = reader.start(q.text, passage)
        greedy = ctx.fork().complete(reader.max_answer_tokens, stop=("\n",))
        lg = seq_logp(ctx, greedy)
        lnone = seq_logp(ctx, "none")
        cands = {}
        for e in nlp(passage.text[:1500]).ents:
            if q.type.labels.get(e.label_, 0) >= 0.5:
                cands.setdefault(e.text, e.label_)
        t = bare_title(passage.title)
        if q.type.labels.get("PERSON", 0) or q.type.labels.get("GPE", 0) or q.type.wh == "what":
            cands.setdefault(t, "TITLE")
        for c, label in cands.items():
            lp = seq_logp(ctx, c)
            out.append({"rank": rank, "gated": rank < len(gated), "score": round(passage.score, 3), "c": c, "label": label,
                        "lp": round(lp, 3), "lg": round(lg, 3), "lnone": round(lnone, 3), "greedy": greedy,
                        "rej": rejection(q, c, passage), "reading": reading(c),
                        "dup": any(same_answer(normalize_answer(c), normalize_answer(s)) for s in shown)})
    print(json.dumps({"q": item["question"], "gold": [g[0] for g in gold], "shown": shown,
                      "have": sorted({reading(s) for s in shown} - {None}), "out": out}), flush=True)
