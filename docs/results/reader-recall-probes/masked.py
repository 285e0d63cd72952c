"""The dev (or test) readings when the first N passages read are read again with their first answer
masked: ``sub`` replaces each mention of it (and of each item of a list) with "(...)", ``drop``
removes the sentences stating it; ``base`` reads as the app does. The masked read's reply goes through
the reader's checks and the rewrite stage as a less likely reply does.

    PYTHONPATH=. python docs/results/reader-recall-probes/masked.py sub 1 docs/results/reader-recall-probes/dev-sub assets/readings-dev.json
    PYTHONPATH=. python docs/results/reader-recall-probes/masked.py drop 1 docs/results/reader-recall-probes/dev-drop assets/readings-dev.json
    git apply docs/results/reader-recall-probes/nearest-clause.patch   # modifiers from the answer's own clause
    PYTHONPATH=. python docs/results/reader-recall-probes/masked.py sub 1 docs/results/reader-recall-probes/dev-sub-clause assets/readings-dev.json
    PYTHONPATH=. python docs/results/reader-recall-probes/masked.py base 0 docs/results/reader-recall-probes/dev-base-clause assets/readings-dev.json
    git checkout ambigdemo/stages/rewrite.py
"""
import json, re, sys
from pathlib import Path
import ambigdemo.stages.reader as R
from ambigdemo.corpus import split_sentences
from ambigdemo.pipeline import Pipeline
from ambigdemo.evaluation import readings
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.text import mentions

mode, passages = sys.argv[1], int(sys.argv[2])

def masked_text(text, answer):
    if mode == "drop":
        return " ".join(s for s in split_sentences(text) if not mentions(s, answer))
    parts = [answer] + [a.strip() for a in re.split(r",|\band\b", answer) if len(a.strip()) > 2]
    for a in sorted(set(parts), key=len, reverse=True):
        text = re.sub(re.escape(a), "(...)", text, flags=re.I)
    return text

orig = R.ReaderRun._replies
def _replies(self, rank, passage):
    first = None
    for i, (text, ctx) in enumerate(orig(self, rank, passage)):
        if i == 0:
            first = text
        yield text, ctx
    if mode != "base" and rank < passages:
        a1 = parse_reply(first or "", names=self.question.asks_person)
        if a1:
            mp = R.Passage(passage.id, passage.title, masked_text(passage.text, a1), passage.score)
            ctx = self.reader.start(self.question.text, mp)
            yield ctx.complete(self.reader.max_answer_tokens, stop=("\n",)), ctx
R.ReaderRun._replies = _replies

pipe = Pipeline.load()
sets = {Path(p).stem.removeprefix("readings-"): Path(p) for p in sys.argv[4:]}
rep = readings.run(pipe.with_options(use_generator=False), sets, systems=("llm",))
out = Path(sys.argv[3]); out.mkdir(parents=True, exist_ok=True)
(out / "metrics.json").write_text(json.dumps(rep, indent=1))
print(readings.markdown(rep))
