"""Replay "Also in the passages" from passages read for it only: after the readings' passages (at most 4 within the
gate), up to 2 or 4 more of the top 8 over the reader's least score, each answer of theirs shown under "also" when its
p reaches a threshold. From the features featurize.py computed (seconds; no model is run).

    PYTHONPATH=. python docs/experiments/best-first/also_passages.py docs/results/best-first/1.5b 0.3 0.8 0.9 0 dev test
    PYTHONPATH=. python docs/experiments/best-first/also_passages.py docs/results/best-first/0.5b 0.2 0.8 0.85 1 dev

Arguments: the folder (train.features.json and the dev sets'), the shipped threshold, more, relevance and branch
passages, then the dev sets to replay (collected over 8 passages: the held-out sets were collected over 4, so they
cannot show a further passage). The readings are the same in every row by construction; what changes is the
needed answers in the readings or "also" (either), and the "also" answers per question (and how many are wrong).
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import fold_fits, gold_answers, labelled, within
from ambigdemo.config import AMBIGNQ_TRAIN, ROOT
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.evaluation.readings import right
from ambigdemo.stages.answers import same_answer
from ambigdemo.stages.reader.verifier import SCORED, Verifier, fit, tiers
from ambigdemo.text import normalize_answer

sys.path.insert(0, str(Path(__file__).parent))
from fits import load  # noqa: E402  (the collected features, as fits.py reads them)

MIN_SCORE = 0.45  # the reader's least retrieval score (LlmReader.min_score)


def shown(record: dict, score: Verifier, branch: int, further: int, t_further: float) -> dict[str, int]:
    """One question: the readings and "also" of the passages the reader reads, then "also" from ``further`` more."""
    kept = [c for c in record["candidates"] if within(c, score.passages, branch, score.relevance)]
    extra = [c for c in record["candidates"] if within(c, score.passages + further, 0) and c not in kept
             and c["features"]["score"] >= MIN_SCORE]
    chosen = tiers([c["text"] for c in kept], [score.p(c["features"]) for c in kept], score, 5)
    found = [c["text"] for c, tier in zip(kept, chosen) if tier == "reading"]
    also = [c["text"] for c, tier in zip(kept, chosen) if tier == "also"]
    for c in sorted(extra, key=lambda c: -score.p(c["features"])):
        key = normalize_answer(c["text"])
        if score.p(c["features"]) >= t_further and not any(same_answer(key, normalize_answer(t)) for t in found + also):
            also.append(c["text"])
    gold = record["gold"]
    return {"gold": len(gold), "needed": sum(any(right(t, g) for t in found) for g in gold),
            "wrong": sum(not any(right(t, g) for g in gold) for t in found),
            "either": sum(any(right(t, g) for t in found + also) for g in gold), "also": len(also),
            "also_wrong": sum(not any(right(t, g) for g in gold) for t in also)}


def total(rows: list[dict]) -> dict[str, int]:
    return {k: sum(r[k] for r in rows) for k in rows[0]}


def main(folder: Path, threshold: float, more: float, relevance: float, branch: int, names: list[str]) -> None:
    train = load(folder / "train.features.json")
    if any("gold" not in r for r in train):  # collected before train-verifier kept the gold (the 0.5B's)
        gold = {e.question: gold_answers(e) for e in load_ambignq(AMBIGNQ_TRAIN)}
        for r in train:
            r.setdefault("gold", gold[r["question"]])
    sets = {}
    for name in names:
        sets[name] = load(folder / f"{name}.features.json")
        gold = {i["question"]: i["answers"] for i in json.loads((ROOT / "assets" / f"readings-{name}.json").read_text())}
        for r in sets[name]:
            r["gold"] = gold[r["question"]]
    setting = dict(threshold=threshold, more=more, also=0.1, relevance=relevance, passages=4)
    score = replace(fit(*labelled(train), names=SCORED), **setting)
    folds = [(held, replace(f, **setting)) for held, f in fold_fits(train, SCORED)]
    print("| further passages | p for \"also\" | " + " | ".join(f"{n}: needed / wrong / either / also per q. (wrong)" for n in names)
          + " | AmbigNQ train, out of fold: either / also per q. |\n|---|---|" + "---|" * (len(names) + 1))
    for further, t in [(0, 1.01)] + [(k, t) for t in (0.5, 0.3, 0.2, 0.1) for k in (2, 4)]:
        cells = []
        for name, found in sets.items():
            x = total([shown(r, score, branch, further, t) for r in found])
            cells.append(f"{x['needed']}/{x['gold']} / {x['wrong']} / {x['either']} / {x['also'] / len(found):.2f} ({x['also_wrong']})")
        tr = total([shown(train[q], f, branch, further, t) for held, f in folds for q in held])
        cells.append(f"{tr['either']}/{tr['gold']} / {tr['also'] / len(train):.2f}")
        print(f"| {further} | {t if further else '-'} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    a = sys.argv
    main(Path(a[1]), float(a[2]), float(a[3]), float(a[4]), int(a[5]), a[6:])
