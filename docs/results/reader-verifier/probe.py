"""Does the reader's own model tell a right answer from a wrong one? Every answer the reader verifies in
any of the top-k passages (the checks of ``verify.rejection``, no gate, no coverage) is scored three
ways, and labelled right or wrong against the gold:

- ``p_reply``: the probability of the model's reply itself (its tokens', teacher-forced);
- ``p_yes``: a yes/no turn after the reply, in the same cache ("Does the passage say that ... ?"),
  P(yes) / (P(yes) + P(no)) over the first token;
- ``p_yes_fresh``: the same question asked in a fresh turn holding the passage, the question and the
  proposed answer (no reply of the model's in the cache).

    PYTHONPATH=. python docs/results/reader-verifier/probe.py dev docs/results/reader-verifier/dev.jsonl
    AMBIGDEMO_PRESET=embedded-1.5b PYTHONPATH=. python docs/results/reader-verifier/probe.py dev docs/results/reader-verifier/dev-1.5b.jsonl

``dev``: assets/readings-dev.json; ``train``: the 260 AmbigNQ train questions of ``tune --gate``
(replies from its cached reads). Resumable: questions already in the output are skipped.
"""
import json
import sys
from pathlib import Path

import numpy as np

from ambigdemo.config import ROOT, Config
from ambigdemo.evaluation import gate
from ambigdemo.evaluation.readings import right
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.onnx import ASSISTANT, END, chatml_turn
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verify import rejection

IN_CACHE = 'Does the passage say that {answer} is the answer to the question "{question}"? Reply yes or no.'
FRESH = ('Passage: {title}: {text}\nQuestion: {question}\nProposed answer: {answer}\n'
         'Does the passage say that the proposed answer is the answer to the question? Reply yes or no.')

pipeline = Pipeline.load(Config.from_env())
reader, generator = pipeline.reader, pipeline.reader.generator
tok = generator.tokenizer
YES = [tok.encode(w, add_special_tokens=False).ids[0] for w in ("yes", "Yes")]
NO = [tok.encode(w, add_special_tokens=False).ids[0] for w in ("no", "No")]


def p_yes(logits):
    z = np.exp(logits - logits.max())
    yes, no = z[YES].sum(), z[NO].sum()
    return float(yes / (yes + no))


def p_reply(start, reply):
    ids = generator.encode(reply)
    logits, _ = generator._forward(ids, start.past, len(start.ids), keep=len(ids))
    rows = np.vstack([start.logits[None, :], logits[-len(ids):][:-1]]) if len(ids) > 1 else start.logits[None, :]
    rows = rows - rows.max(axis=1, keepdims=True)
    logp = rows - np.log(np.exp(rows).sum(axis=1, keepdims=True))
    return float(np.exp(logp[np.arange(len(ids)), ids].sum()))


def questions(which):
    if which == "dev":
        for i, item in enumerate(json.load(open(ROOT / "assets/readings-dev.json", encoding="utf-8"))):
            yield str(i), item["question"], item["answers"], pipeline.retriever.search(item["question"], pipeline.config.top_k), None
        return
    qs = gate.sample(pipeline.retriever, Path("assets/datasets/ambignq/train_light.json"), pipeline.config.top_k, 200, 60, 0)
    reads = gate.read_all(reader, qs, ROOT / "docs/results/tune" / f"gate-embedded-200-60-0-{gate.prompt_key()}.reads.jsonl")
    for q in qs:
        yield q.id, q.question, q.answers, q.passages, {p.id: reads[(q.id, p.id)].reply for p in q.passages}


out_path = Path(sys.argv[2])
done = {json.loads(l)["id"] for l in out_path.read_text().splitlines()} if out_path.exists() else set()
with out_path.open("a", encoding="utf-8") as out:
    for qid, text, gold, passages, replies in questions(sys.argv[1]):
        if qid in done:
            continue
        question = Question.of(text)
        rows = []
        for rank, passage in enumerate(passages):
            start = reader.start(text, passage)
            reply = replies[passage.id] if replies else start.fork().complete(reader.max_answer_tokens, stop=("\n",))
            answer = parse_reply(reply, names=question.asks_person)
            if not answer or rejection(question, answer, passage) is not None:
                continue
            shown = shown_as(question, answer, passage, reader.nlp)
            after = start.fork().extend(reply + END + chatml_turn("user", IN_CACHE.format(answer=shown, question=text)) + ASSISTANT)
            fresh = reader.prefix().fork().extend(chatml_turn("user", FRESH.format(
                title=passage.title, text=" ".join(passage.text.split()[:reader.passage_words]), question=text, answer=shown)) + ASSISTANT)
            rows.append({"rank": rank, "score": passage.score, "title": passage.title, "answer": shown,
                         "right": any(right(shown, a) or right(answer, a) for a in gold),
                         "p_reply": p_reply(start, reply), "p_yes": p_yes(after.logits), "p_yes_fresh": p_yes(fresh.logits)})
        top = max((p.score for p in passages), default=0.0)
        out.write(json.dumps({"id": qid, "question": text, "gold": len(gold), "top": top, "candidates": rows}, ensure_ascii=False) + "\n")
        out.flush()
        print(qid, text, [(r["answer"], r["right"], round(r["p_yes"], 2), round(r["p_yes_fresh"], 2)) for r in rows], flush=True)
