"""The dev readings with a reply that may list several answers, separated by "; ", when the passage
states different answers for different meanings (system turn and a worked example with two), each
part read as an answer; ``base`` reads as the app does.

    PYTHONPATH=. python docs/results/reader-recall-probes/listing.py multi docs/results/reader-recall-probes/dev-listing assets/readings-dev.json
"""
import json, sys
from pathlib import Path
import ambigdemo.stages.reader.prompts as prompts
import ambigdemo.stages.reader as R
from ambigdemo.pipeline import Pipeline
from ambigdemo.evaluation import readings

variant = sys.argv[1]
if variant != "base":
    prompts.SYSTEM = (
        "You answer a question from one Wikipedia passage. Reply with the shortest answer that the passage "
        "states (a name, date or number), in the passage's words. If the passage states different answers "
        "for different meanings of the question, reply with each, separated by \"; \". If the passage does "
        "not state the answer to the question, reply: none"
    )
    ex = ("Incandescent light bulb", "In 1878 Joseph Swan demonstrated a working incandescent lamp in Newcastle. "
          "Thomas Edison patented a long-lasting carbon-filament bulb in 1879 and sold it widely.",
          "Who invented the light bulb?", "Joseph Swan; Thomas Edison", "")
    prompts.EXAMPLES = prompts.EXAMPLES[:3] + (ex,) + prompts.EXAMPLES[3:]
    orig = R.ReaderRun._replies
    def _replies(self, rank, passage):
        for text, ctx in orig(self, rank, passage):
            parts = [p for p in text.split(";")] if ";" in text else [text]
            for i, part in enumerate(parts):
                yield part.strip(), ctx
    R.ReaderRun._replies = _replies
    # replies after the first part count as alternatives: patch take via index in answers()
pipe = Pipeline.load()
sets = {Path(p).stem.removeprefix("readings-"): Path(p) for p in sys.argv[3:]}
rep = readings.run(pipe.with_options(use_generator=False), sets, systems=("llm",))
out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)
(out / "metrics.json").write_text(json.dumps(rep, indent=1))
print(readings.markdown(rep))
