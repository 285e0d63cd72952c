"""After the model's reply X for each passage read (up to 4), a second turn asks for another answer
besides X; the probability of "none" as its first token and the reply, one JSON line per question.

    PYTHONPATH=. python docs/results/reader-recall-probes/another.py assets/readings-dev.json a > docs/results/reader-recall-probes/another.jsonl
"""
import json, sys
import numpy as np
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.onnx import END, _log_softmax, chatml_turn, ASSISTANT
from ambigdemo.stages.answers import same_answer
from ambigdemo.stages.reader import relevant
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verify import rejection
from ambigdemo.text import mentions, normalize_answer

PROMPTS = {
 "a": "Does the passage state another answer to the question besides {answer}? Reply with it, or: none",
 "b": "Besides {answer}, which other answer to the question does the passage state? Reply with the shortest answer in the passage's words, or: none",
}
key = sys.argv[2]
pipeline = Pipeline.load()
reader = pipeline.reader
tok = reader.generator.tokenizer
none_ids = {reader.generator.encode(s)[0] for s in ("none", "None", " none")}
rows = []
for item in json.loads(open(sys.argv[1]).read()):
    gold = item["answers"]
    result = pipeline.with_options(use_generator=False).ask(item["question"])
    shown = [i.answer for i in result.interpretations]
    def reading(text):
        return next((k for k, al in enumerate(gold) if any(mentions(text, a) or mentions(a, text) for a in al)), None)
    q = Question.of(item["question"])
    out = []
    for rank, passage in enumerate(relevant(result.passages, reader.relevance, reader.min_score, 4)):
        ctx = reader.start(q.text, passage).fork()
        first = ctx.complete(reader.max_answer_tokens, stop=("\n",))
        ans = parse_reply(first, names=q.asks_person)
        if not ans:
            continue
        c2 = ctx.fork().extend(END).extend(chatml_turn("user", PROMPTS[key].format(answer=ans)) + ASSISTANT)
        p = np.exp(_log_softmax(c2.logits))
        pnone = float(sum(p[i] for i in none_ids))
        reply = c2.complete(16, stop=("\n",))
        a2 = parse_reply(reply, names=q.asks_person)
        rej = None if not a2 else rejection(q, a2, passage)
        dup = bool(a2) and any(same_answer(normalize_answer(a2), normalize_answer(s)) for s in shown + [ans])
        out.append({"rank": rank, "first": ans, "reply": reply, "a2": a2, "pnone": round(pnone, 3), "rej": rej, "dup": dup,
                    "reading": reading(a2) if a2 else None, "have": sorted({reading(s) for s in shown} - {None})})
    rows.append({"q": item["question"], "gold": [g[0] for g in gold], "shown": shown, "out": out})
    print(json.dumps(rows[-1]), flush=True)
