"""How low may another name of a list that gave a reading score and still be a reading (``Verifier.listed``)?

``record`` asks every question of a readings set with the app's reader and score (no paragraph) and keeps, per
question, the inputs of its last best-first decision (``verifier.tiers``: each grounded candidate as shown, its p and
its list) and the "also" answers of the passages read for "also" only; resumable, one question per line.
``replay`` decides again from those records at each ``listed`` given, and prints each set's readings summary as
``bench --readings`` does (at 1.0 it reproduces the recorded readings, and says where it does not); with ``--show``,
the questions whose readings change at the last value.

    AMBIGDEMO_READER_MODEL=1.5b AMBIGDEMO_GENERATOR=0 PYTHONPATH=. python docs/experiments/best-first/listed.py record \
        assets/readings-heldout-5.json docs/results/listed/heldout-5.jsonl
    PYTHONPATH=. python docs/experiments/best-first/listed.py replay 1.0,0.5,0.3,0.2 \
        docs/results/listed/heldout-5.jsonl docs/results/listed/heldout-6.jsonl
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

import ambigdemo.stages.reader as reader_module
from ambigdemo.config import Config
from ambigdemo.evaluation.readings import score_item, summarize
from ambigdemo.stages.answers import same_answer
from ambigdemo.stages.reader.verifier import tiers
from ambigdemo.text import normalize_answer

SHOWN = ("needed", "wrong", "wrong_per_5_questions", "multi_complete", "needed_with_also", "multi_complete_with_also",
         "also_per_question", "null_right")


def record(readings: Path, out: Path) -> None:
    from ambigdemo.pipeline import Pipeline

    calls = []

    def recorded(keys, scores, verifier, max_answers, lists=None):
        calls.append({"keys": list(keys), "scores": list(scores), "lists": list(lists or [None] * len(keys)), "max": max_answers})
        return tiers(keys, scores, verifier, max_answers, lists)

    reader_module.tiers = recorded
    pipeline = Pipeline.load(Config.from_env(use_generator=False))

    def row(item: dict) -> dict:
        calls.clear()
        result = pipeline.ask(item["question"])
        last = calls[-1] if calls else {"keys": [], "scores": [], "lists": [], "max": 5}
        return {"question": item["question"], "gold": item["answers"], "readings": [i.answer for i in result.interpretations],
                "also": [a.answer for a in result.also], "last": last}

    each_question(readings, out, row)


def each_question(readings: Path, out: Path, row) -> None:
    """``row(item)`` for each question of ``readings`` not yet in ``out``, appended to it as a line (resumable)."""
    done = {json.loads(line)["question"] for line in out.open(encoding="utf-8")} if out.exists() else set()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        for item in json.loads(readings.read_text(encoding="utf-8")):
            if item["question"] not in done:
                f.write(json.dumps(row(item), ensure_ascii=False) + "\n")
                f.flush()


def decided(rec: dict, verifier) -> tuple[list[str], list[str]]:
    """The readings and "also" answers one recorded question shows under ``verifier``."""
    last = rec["last"]
    chosen = tiers(last["keys"], last["scores"], verifier, last["max"], last["lists"])
    order = sorted(range(len(chosen)), key=lambda i: -last["scores"][i])
    shown = [last["keys"][i] for i in order if chosen[i] == "reading"]
    also = [last["keys"][i] for i in order if chosen[i] == "also"]
    decided_keys = {normalize_answer(k) for k in last["keys"]}
    also += [a for a in rec["also"] if normalize_answer(a) not in decided_keys]  # the "also"-only passages' answers
    also = [a for a in also if not any(same_answer(normalize_answer(a), normalize_answer(s)) for s in shown)]
    return shown, also


def scored(rec: dict, verifier) -> dict:
    """``score_item``'s row for one recorded question as decided again under ``verifier``."""
    return score_item({"question": rec["question"], "answers": rec["gold"]}, *decided(rec, verifier))


def replay(values: list[float], files: list[Path], show: bool = False) -> None:
    from ambigdemo.config import VERIFIERS
    from ambigdemo.stages.reader.verifier import Verifier

    score = Verifier.load(VERIFIERS["1.5b"])
    for path in files:
        recs = [json.loads(line) for line in path.open(encoding="utf-8")]
        for value in values:
            rows = []
            for rec in recs:
                row = scored(rec, replace(score, listed=value))
                rows.append(row)
                before = score_item({"question": rec["question"], "answers": rec["gold"]}, rec["readings"], rec["also"])
                if value == 1.0 and [before[k] for k in ("found", "wrong", "found_with_also")] != [row[k] for k in ("found", "wrong", "found_with_also")]:
                    print(f"  not reproduced: {rec['question']}")
                if show and value == values[-1] and (before["found"], before["wrong"]) != (row["found"], row["wrong"]):
                    print(f"  {rec['question']}: {before['answers']} -> {row['answers']}" + (f" (wrong: {row['wrong']})" if row["wrong"] else ""))
            summary = summarize(rows, [{}] * len(rows))
            print(path.stem, value, {k: summary[k] for k in SHOWN})


if __name__ == "__main__":
    if sys.argv[1] == "record":
        record(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        args = [a for a in sys.argv[3:] if a != "--show"]
        replay([float(v) for v in sys.argv[2].split(",")], [Path(a) for a in args], "--show" in sys.argv)
