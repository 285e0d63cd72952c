"""Do the other names of the list a reply is named in (``select.other_names``, read as less likely replies) help,
and does the score need to know a candidate came that way (the feature ``sibling``)? Completes the committed
candidates with those names (``train_verifier.add_unreplied``: the model scores each after its passage; resumable),
computes every feature as featurize.py does, and prints the out-of-fold AUC on AmbigNQ train and the best-first
choice at the shipped setting on train (out of fold) and on each readings dev set, without and with the names.

    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/siblings.py assets/verifier-1.5b.json \
        docs/results/verifier-1.5b/train.jsonl docs/results/verifier-1.5b/dev.jsonl:dev \
        docs/results/best-first/1.5b/test.jsonl:test docs/results/best-first/1.5b/heldout.jsonl:heldout \
        docs/results/best-first/1.5b/heldout-2.jsonl:heldout-2

The first file is AmbigNQ train as train-verifier collected it; each other is FILE:SET, a readings set collected by
train-verifier or collect.py.
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

from ambigdemo.building.train_verifier import (add_unreplied, featurize, fold_fits, gold_answers, labelled, out_of_fold,
                                               records, replay, shown_tiers)
from ambigdemo.config import AMBIGNQ_TRAIN, ROOT, Config
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.evaluation.readings import right
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verifier import FEATURES, Verifier, fit

BEFORE = FEATURES[:15] + ("lift", "rank_other")  # the score before this feature
FITS = {"15 + lift + rank_other (before)": BEFORE, "+ sibling (shipped)": BEFORE + ("sibling",)}
SETTING = ("threshold", "more", "also", "passages", "relevance", "branch_passages")


def loaded(path: Path, pipeline: Pipeline, gold: dict | None = None) -> list[dict]:
    """The candidates collected in ``path``, completed with lists' other names, every feature computed; with ``gold``
    (question -> readings), each candidate's text as the app shows it too."""
    add_unreplied(path, pipeline.reader, pipeline.retriever, "siblings")
    found = featurize(records(path), pipeline.retriever, pipeline.reader.nlp, reader=pipeline.reader)
    for r in found:
        if gold is not None:
            r["gold"] = gold[r["question"]]
            question = Question.of(r["question"])
            passages = {p.id: p for p in pipeline.retriever.search(r["question"], 8)}
            for c in r["candidates"]:
                c["shown"] = shown_as(question, c["text"], passages[c["passage"]], pipeline.reader.nlp)
    return found


def without(found: list[dict]) -> list[dict]:
    """``found`` as read before: no list's other names."""
    return [{**r, "candidates": [c for c in r["candidates"] if not c.get("sibling")]} for r in found]


def multi_complete(found: list[dict]) -> int:
    """Questions with two or more readings whose every reading is in the readings or "also" (as replayed)."""
    return sum(r["either"] == r["gold"] for r in found if r["gold"] > 1)


def main(shipped: Path, train_path: Path, sets: list[str]) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off"))
    train = loaded(train_path, pipeline)
    if any("gold" not in r for r in train):
        gold = {e.question: gold_answers(e) for e in load_ambignq(AMBIGNQ_TRAIN)}
        for r in train:
            r.setdefault("gold", gold[r["question"]])
    dev = {}
    for spec in sets:
        path, name = spec.rsplit(":", 1)
        readings = ROOT / "assets" / f"readings-{name}.json"
        dev[name] = loaded(Path(path), pipeline, {i["question"]: i["answers"] for i in json.loads(readings.read_text())})
    setting = Verifier.load(shipped)
    every = [c for r in train for c in r["candidates"] if c.get("sibling")]
    print(f"AmbigNQ train: {len(train)} questions; lists' other names: {len(every)} candidates, "
          f"{sum(c['right'] for c in every)} right\n")
    for name, found in dev.items():
        names = [c for r in found for c in r["candidates"] if c.get("sibling")]
        print(f"{name}: {len(names)} other names, {sum(any(right(c['text'], g) for g in r['gold']) for r in found for c in r['candidates'] if c.get('sibling'))} right")
    print(f"\nThe shipped reading: {setting.passages} passages within {setting.relevance} of the best, thresholds "
          f"{setting.threshold} / {setting.more}, also from {setting.also}; needed / wrong / needed in either tier / "
          f"\"also\" answers / two-reading questions complete in either tier.\n")
    print("| candidates | features | train AUC, out of fold | train, out of fold: needed / wrong / either / also | "
          + " | ".join(dev) + " |\n|---|---|---|---|" + "---|" * len(dev))
    for label, pick in (("as before", without), ("with lists' other names", lambda f: f)):
        for fitted, names in FITS.items():
            if pick is without and names != BEFORE:
                continue
            data = pick(train)
            score = replace(fit(*labelled(data), names=names), **{k: getattr(setting, k) for k in SETTING})
            folds = [(held, replace(f, **{k: getattr(score, k) for k in SETTING})) for held, f in fold_fits(data, names)]
            new = [shown_tiers(data[q], f, score.passages, score.branch_passages) for held, f in folds for q in held]
            cells = []
            for found in dev.values():
                per = [shown_tiers(r, score, score.passages, score.branch_passages, shown=lambda c: c["shown"]) for r in pick(found)]
                total = {k: sum(p[k] for p in per) for k in ("needed", "wrong", "either", "also")}
                cells.append(f"{total['needed']} / {total['wrong']} / {total['either']} / {total['also']} / {multi_complete(per)}")
            print(f"| {label} | {fitted} | {out_of_fold(data, names):.3f} | "
                  f"{sum(g['needed'] for g in new)} / {sum(g['wrong'] for g in new)} / {sum(g['either'] for g in new)} / {sum(g['also'] for g in new)} | "
                  + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
