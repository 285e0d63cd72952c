"""Read again, as the app now reads them, the recorded questions a change of reading touches, each new record put in
place of the old one in its set's file (every other line stays as recorded).

``QUESTIONS``: ``{set: [question, ...]}`` (``siblings_touched.py --out``); each set's record is looked for in the
``--records`` folders as ``SET.jsonl``. The new records are read into ``--work`` first (resumable, ``record_reading``
with the shipped 1.5B score's reading, as ``record_sets.py`` reads), then swapped in.

    AMBIGDEMO_THREADS=1 PYTHONPATH=. python docs/experiments/best-first/reread.py /tmp/touched.json \\
        --records docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/test --work /tmp/reread
"""

import argparse
import json
from pathlib import Path

from ambigdemo.building.train_verifier import record_reading, records
from ambigdemo.config import VERIFIERS, Config
from ambigdemo.files import replace_text
from ambigdemo.pipeline import Pipeline, clean_question
from ambigdemo.stages.reader.configure import reading_with
from ambigdemo.stages.reader.verifier import Verifier


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("--records", nargs="+", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    args = ap.parse_args()
    wanted = json.loads(args.questions.read_text(encoding="utf-8"))
    config = Config.from_env(use_generator=False, verifier="off", reader_model="1.5b")
    pipeline = Pipeline.load(config)
    app = reading_with(pipeline.reader, Verifier.load(VERIFIERS["1.5b"]))
    for name, questions in wanted.items():
        path = next(d / f"{name}.jsonl" for d in args.records if (d / f"{name}.jsonl").exists())
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        recorded = [json.loads(line) for line in lines]
        gold = {r["question"]: r["gold"] for r in recorded}
        new = {r["question"]: json.dumps(r, ensure_ascii=False) for r in records(record_reading(
            app, pipeline.retriever, [(q, gold[q]) for q in questions], args.work / f"{name}.jsonl", config.top_k, desc=name))}
        swapped = [new.get(clean_question(r["question"]), line) for r, line in zip(recorded, lines)]
        replace_text(path, "".join(line + "\n" for line in swapped))
        print(f"{name}: {len(questions)} of {len(lines)} questions read again")


if __name__ == "__main__":
    main()
