"""Which features the score keeps, and how a best-first choice in two tiers would read dev, from the
features computed by featurize.py (seconds; no model is run).

    PYTHONPATH=. python docs/experiments/best-first/fits.py docs/results/best-first/1.5b > docs/experiments/best-first/fits-1.5b.md
    PYTHONPATH=. python docs/experiments/best-first/fits.py docs/results/best-first/0.5b 1 > docs/experiments/best-first/fits-0.5b.md

The second argument: how many of the passages read also give their less likely replies (the 0.5B's reading).
"""

import json
import sys
from pathlib import Path

from dataclasses import replace

from ambigdemo.building.train_verifier import labelled, out_of_fold, replay
from ambigdemo.config import ROOT, Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import shown_as
from ambigdemo.stages.reader.verifier import FEATURES, auc, fit

DEV = ROOT / "assets" / "readings-dev.json"

BASE = FEATURES[:15]
NEW = FEATURES[15:]


def shown_by(pipeline):
    """A candidate of a collected dev question as select shows it (its passage retrieved again)."""
    passages = {}

    def shown(question: str, c: dict) -> str:
        if question not in passages:
            passages[question] = {p.id: p for p in pipeline.retriever.search(question, 8)}
        return shown_as(Question.of(question), c["text"], passages[question][c["passage"]], pipeline.reader.nlp)
    return shown


def main(folder: Path, branch_passages: int = 0) -> None:
    train = json.loads((folder / "train.features.json").read_text())
    dev = json.loads((folder / "dev.features.json").read_text())
    gold = {i["question"]: i["answers"] for i in json.loads(DEV.read_text())}
    for r in dev:
        r["gold"] = gold[r["question"]]
    shown = shown_by(Pipeline.load(Config.from_env(use_generator=False, verifier="off")))
    for r in dev:
        for c in r["candidates"]:
            c["shown"] = shown(r["question"], c)
    print("## Out-of-fold AUC on train (5 folds by question) and AUC on dev\n")
    print("| features | train, out of fold | dev |\n|---|---|---|")
    for label, names in [("the verifier's 15", BASE), *[(f"15 + {n}", BASE + (n,)) for n in NEW], ("all", FEATURES)]:
        fitted = fit(*labelled(train), names=names)
        rows, ys = labelled(dev)
        print(f"| {label} | {out_of_fold(train, names):.3f} | {auc([fitted.p(r) for r in rows], ys):.3f} |")
    score = fit(*labelled(train), names=FEATURES)
    print("\n## Dev, replayed: best first, two tiers\n")
    print("| passages | show first | show more | also | needed | wrong | needed in readings or also | also per question |\n|---|---|---|---|---|---|---|---|")
    for k in (4, 6, 8):
        for first in (0.2, 0.3, 0.4, 0.5):
            for more in (0.5, 0.6, 0.7, 0.8):
                for also in (0.1, 0.2):
                    r = replay(dev, replace(score, threshold=first, more=more, also=also), passages=k, branch_passages=branch_passages, shown=lambda c: c["shown"])
                    print(f"| {k} | {first} | {more} | {also} | {r['needed']} / {r['gold']} | {r['wrong']} | {r['either']} | {r['also'] / len(dev):.2f} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
