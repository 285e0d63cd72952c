"""Reader checks, none vs each kept alone, on dev and test (LLM reader, no paragraph). Run at 555090d, where the
checks existed: git checkout 555090d && PYTHONPATH=. python docs/results/reader-checks/ablate.py all none superlative_subject ...
(one variant name per check; "a,b" keeps a and b). Writes /tmp/abl/VARIANT.json."""
import json, sys
from pathlib import Path
import ambigdemo.stages.reader as R
from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.evaluation import readings

ORIG = {n: getattr(R, n) for n in "superlative_subject outranked unranked elsewhere other_year off_sentence wrong_type focused counts name_subject".split()}
OFF = {
    "superlative_subject": lambda q, p: "", "outranked": lambda q, p: False, "unranked": lambda q, a, p: False,
    "elsewhere": lambda q, a, p: False, "other_year": lambda q, a, p: False, "off_sentence": lambda q, a, p: False,
    "wrong_type": lambda q, w, a: False, "focused": lambda q, p: None, "counts": lambda a, n, p: True,
    "name_subject": lambda p: p.text,
}
pipe = Pipeline.load(Config.from_env()).with_options(reader="llm")
sets = {"dev": Path("assets/readings-dev.json"), "test": Path("assets/readings-test.json")}
for variant in sys.argv[1:]:
    keep = set(variant.split(",")) if "," in variant else set(ORIG) if variant == "all" else set() if variant == "none" else ({variant} if not variant.startswith("-") else set(ORIG) - {variant[1:]})
    for n in ORIG:
        setattr(R, n, ORIG[n] if n in keep else OFF[n])
    out = {}
    for name, path in sets.items():
        rows = []
        for item in readings.load(path):
            for result in pipe.stream(item["question"]):
                if "rewrite" in result.timings_ms:
                    break
            rows.append(readings.score_item(item, [i.answer for i in result.interpretations]))
        s = readings.summarize(rows, [{} for _ in rows])
        out[name] = {"summary": s, "rows": rows}
        print(variant, name, s["needed"], s["fully_right"], s["wrong_per_5_questions"], s["multi_complete"], s["null_right"], flush=True)
    Path(f"/tmp/abl/{variant}.json").write_text(json.dumps(out, indent=1))
