"""Do the score's choices change when a sentence no longer ends at an initial ("J. K. Rowling")?

The features read from the sentences stating a candidate (its coverage, its entity's kind, how the sentence ranks or
relates it, another year) are computed again for every recorded candidate, once with the splitter the records were
made with (a break after every full stop before a capital: a check that the recomputation gives back what was
recorded) and once with today's (``text.split_sentences``: not after an initial or a title); every other feature is
the recorded one (the passages retrieved but not read, which ``support`` and ``rank`` count, are not in a record).
Each set is then replayed under the shipped score (``ReaderRun.replay``: what the app would show, no model call) and
summed as ``bench --readings`` prints it.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/initials.py \\
        docs/results/verifier-1.5b/checks docs/results/verifier-1.5b/test docs/results/verifier-1.5b/sets
"""

import argparse
import re
from pathlib import Path

import ambigdemo.stages.reader.verify as verify
import ambigdemo.text as text
from ambigdemo.building.train_verifier import records
from ambigdemo.config import VERIFIERS
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verifier import Clue, Verifier, features
from ambigdemo.types import Passage
from in_domain import line, replay_rows

SENTENCE_FEATURES = ("coverage", "type_fit", "untyped", "clash", "of_other", "rank_asked", "rank_other", "other_year")
TODAY = text.split_sentences
_RECORDED_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])")


def recorded_split(passage_text: str) -> list[str]:
    """The splitter the records were made with: a break after every full stop before a capital."""
    return [s.strip() for s in _RECORDED_END.split(passage_text) if s.strip()]


def refeaturized(found: list[dict], nlp, split) -> list[dict]:
    """``found`` with each scored candidate's sentence features computed again under ``split``."""
    verify.split_sentences = split
    out = []
    for record in found:
        question = Question.of(record["question"])
        passages = {p["id"]: Passage(**p) for p in record["passages"]}
        candidates = []
        for c in record["candidates"]:
            if c["own"] is not None:
                own = c["own"]
                clue = Clue(question, c["text"], passages[c["passage"]], list(passages.values()), own["logp"],
                            c["likeliest"], int(own["position"]), own["prior"], c["sibling"], c["title"])
                c = {**c, "own": {**own, **{k: v for k, v in features(clue, nlp).items() if k in SENTENCE_FEATURES}}}
            candidates.append(c)
        out.append({**record, "candidates": candidates})
    verify.split_sentences = TODAY
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="folders of recorded sets (NAME.jsonl, record_reading)")
    ap.add_argument("--score", type=Path, default=VERIFIERS["1.5b"])
    args = ap.parse_args()
    score, nlp = Verifier.load(args.score), load_spacy()
    for folder in args.dirs:
        for path in sorted(folder.glob("*.jsonl")):
            found = records(path)
            print(line(f"{path.stem} recorded", replay_rows(score, found)))
            print(line(f"{path.stem} old splitter", replay_rows(score, refeaturized(found, nlp, recorded_split))))
            print(line(f"{path.stem} today's splitter", replay_rows(score, refeaturized(found, nlp, TODAY))))


if __name__ == "__main__":
    main()
