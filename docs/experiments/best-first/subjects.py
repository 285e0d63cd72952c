"""Which bar should a passage's subject, read after the readings for "also" only, reach (``Verifier.also_titles``)?

``record`` asks every question of a readings set with the app's reader and score (no paragraph), each read passage's
subject scored at a bar of 0, and keeps per question its readings, its "also" answers (with p and passage) and the
subjects scored; resumable, one question per line. ``sweep`` counts, at each bar, the needed answers in either tier, the
"also" answers per question and the subjects shown (right or not). The readings are the same at every bar, and the
sweep drops a subject under the bar without bringing back a further passage's answer it had hidden as a duplicate, so
its counts of needed answers with "also" are a lower bound.

    AMBIGDEMO_READER_MODEL=1.5b AMBIGDEMO_GENERATOR=0 PYTHONPATH=. python docs/experiments/best-first/subjects.py record \
        assets/readings-heldout-9.json docs/results/subjects/heldout-9.jsonl
    PYTHONPATH=. python docs/experiments/best-first/subjects.py sweep assets/readings-heldout-9.json docs/results/subjects/heldout-9.jsonl
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.evaluation.readings import right, score_item

sys.path.insert(0, str(Path(__file__).parent))
from listed import each_question  # noqa: E402  (the resumable loop listed.py records with)

BARS = (1.01, 0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


def record(readings: Path, out: Path) -> None:
    from ambigdemo.pipeline import Pipeline

    pipeline = Pipeline.load()
    reader = pipeline.reader
    pipeline = replace(pipeline, reader=replace(reader, verifier=replace(reader.verifier, also_titles=0.0), also_titles=True))

    def row(item: dict) -> dict:
        result = pipeline.ask(item["question"])
        return {"question": item["question"], "readings": [i.answer for i in result.interpretations],
                "also": [(a.answer, a.p, a.passage) for a in result.also],
                "titles": [(c.text, c.p, c.passage) for c in result.candidates if c.title], "t": result.timings_ms}

    each_question(readings, out, row)


def sweep(readings: Path, recorded: Path) -> None:
    items = {i["question"]: i for i in json.loads(readings.read_text(encoding="utf-8"))}
    rows = [json.loads(line) for line in recorded.open(encoding="utf-8")]
    print(f"{recorded}: {len(rows)} questions")
    for bar in BARS:
        found = with_also = gold = shown = shown_right = also_count = 0
        for row in rows:
            item = items[row["question"]]
            subjects = [(text, passage) for text, _, passage in row["titles"]]
            also = []
            for answer, p, passage in row["also"]:
                subject = any(passage == sp and st in answer for st, sp in subjects)
                if subject and p < bar:
                    continue
                also.append(answer)
                if subject:
                    shown += 1
                    shown_right += any(right(answer, g) for g in item["answers"])
            scored = score_item(item, row["readings"], also)
            found, with_also, gold = found + scored["found"], with_also + scored["found_with_also"], gold + scored["gold"]
            also_count += len(also)
        label = "no subject" if bar > 1 else f"bar {bar}"
        print(f"  {label:10}  readings {found}/{gold}  with also {with_also}  also per question {also_count / len(rows):.2f}"
              f"  subjects shown {shown} (right {shown_right})")


if __name__ == "__main__":
    command, *paths = sys.argv[1:]
    if command == "record":
        record(Path(paths[0]), Path(paths[1]))
    else:
        sweep(Path(paths[0]), Path(paths[1]))
