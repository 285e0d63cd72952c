"""The reader issue's round trip (Refuel, Gao et al. 2021), probed on a readings set: the model's rewrite
for an answer is kept only if the model, reading the rewrite against the answer's passage, replies with
that answer; otherwise the rewrite stage's fallback (a modifier edit, else the answer is not shown).
Shipped and round-trip runs side by side, the same reads for both (no paragraph).

    PYTHONPATH=. python docs/results/reader-verifier/roundtrip.py assets/readings-dev.json > docs/results/reader-verifier/roundtrip-dev.txt
"""
import json
import sys

from ambigdemo.config import Config
from ambigdemo.evaluation.readings import score_item, summarize
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.answers import same_answer
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader import MalformedOutput
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.text import normalize_answer

pipeline = Pipeline.load(Config.from_env())
reader = pipeline.reader
rows = {"shipped": [], "round trip": []}
failed = kept = 0
for item in json.load(open(sys.argv[1], encoding="utf-8")):
    question = item["question"]
    passages = pipeline.retriever.search(question, pipeline.config.top_k)
    reading = reader.read(question, passages)
    try:
        for _ in reading.answers():
            pass
    except MalformedOutput:
        continue
    by_id = {p.id: p for p in passages}
    proposed, confirmed = {}, {}

    def proposal(answer):
        """The model's rewrite for ``answer``, generated once for both runs."""
        if answer.text not in proposed:
            proposed[answer.text] = reading.propose_rewrite(answer)
        return proposed[answer.text]

    def round_trip(answer):
        global failed, kept
        if answer.text not in confirmed:
            rewrite, ok = proposal(answer), False
            if rewrite:
                passage = by_id[answer.passages[0]]
                back = parse_reply(reader.reply(rewrite, passage)[0], names=Question.of(rewrite).asks_person) or ""
                ok = bool(back) and same_answer(normalize_answer(back), normalize_answer(answer.text))
                failed, kept = failed + (not ok), kept + ok
                print(f"{question} | {answer.text} | {rewrite} | read back: {back!r} | {'kept' if ok else 'dropped'}")
            confirmed[answer.text] = rewrite if ok else ""
        return confirmed[answer.text]

    for name, propose in (("shipped", proposal), ("round trip", round_trip)):
        shown = [i.answer for i in pipeline.rewriter.rewrite(question, list(reading.found), propose=propose)]
        rows[name].append(score_item(item, shown))
print(f"rewrites read back to their answer: {kept}, not: {failed}")
for name, r in rows.items():
    s = summarize(r, [{} for _ in r])
    print(name, {k: s[k] for k in ("needed", "fully_right", "wrong_per_5_questions", "multi_complete", "null_right")})
