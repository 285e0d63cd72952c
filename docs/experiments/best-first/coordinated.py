"""Complete recorded questions with the list names today's reader reads and the record lacks (``select.other_names``:
the twentieth pass added ``coordinated``, the items a sentence's parse coordinates with a reply; the twenty-first
``stated_apart``, the names of a reply its passage states only apart), each read as the app reads it: the model's log
probability of the name after its passage (``Context.follow``) and closed-book (its prior).

- ``sets IN_DIR OUT_DIR``: each ``record_reading`` record of IN_DIR (``NAME.jsonl``) to OUT_DIR, every new name a
  sibling candidate after its passage's replies, with its own features (``verifier.features``) and how select shows it;
  every candidate's ``position`` counted again, since a name read earlier moves the later ones. A record with nothing
  new is copied as it was; resumable, one question a line.
- ``strip IN_DIR OUT_DIR``: the other way: each record as the reader before ``coordinated`` would have read it, every
  sibling candidate that the entity runs (``select.siblings``) of its passage's reply do not name dropped, and the
  positions counted again (no model call): how the score before this pass decides a set recorded after it.
- ``unsplit IN_DIR OUT_DIR``: each record as the reader before ``stated_apart`` would have read it: the sibling
  candidates of a passage whose likeliest reply is rejected dropped (before it, such a reply listed none), and the
  positions counted again (no model call).
- ``prune IN_DIR OUT_DIR``: each record with only the sibling candidates that the running code's ``other_names`` of
  its passage's likeliest reply names (no model call): run from an earlier release's worktree, how that release reads
  a set recorded with today's reader (the twenty-second pass: its held-out set as 2381892 reads it).
- ``added IN_DIR OUT_DIR`` (or ``IN.jsonl OUT.jsonl``): the candidates each record of OUT holds that the same
  question's record in IN lacks, each marked right (+) or not (-) against the record's gold, and their count (how
  many names a reader change adds; no model call).
- ``train IN.jsonl OUT.jsonl``: AmbigNQ train's collected candidates (``train_verifier.collect``, read wide over 8
  passages) likewise, each new name after its passage's candidates, labelled by the record's gold; featurize.py then
  computes every feature.

    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/coordinated.py sets docs/results/verifier-1.5b/sets OUT/sets
    AMBIGDEMO_READER_MODEL=1.5b PYTHONPATH=. python docs/experiments/best-first/coordinated.py train docs/results/verifier-1.5b/train.jsonl OUT/train.jsonl
"""

import json
import sys
from pathlib import Path

from tqdm import tqdm

from ambigdemo.building.train_verifier import records, resumed
from ambigdemo.config import Config
from ambigdemo.evaluation.readings import right
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.nlp import load_spacy
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.select import other_names, shown_as, siblings
from ambigdemo.stages.reader.verify import rejection
from ambigdemo.stages.reader.verifier import Clue, features, position
from ambigdemo.stages.answers import same_answer
from ambigdemo.text import normalize_answer
from ambigdemo.types import Passage


def new_names(question: Question, reply: dict, passage: Passage, had: list[dict], nlp) -> list[str]:
    """The names of the reply's list (``other_names``) that no grounded candidate of its passage (``had``) names."""
    said = [normalize_answer(c["text"]) for c in had if rejection(question, c["text"], passage) is None]
    return [n for n in other_names(question, reply["text"], passage, nlp)
            if not any(same_answer(normalize_answer(n), s) for s in said)]


def complete_set(record: dict, reader, retriever, nlp) -> dict:
    """One ``record_reading`` record with the new names of its passages' replies, and positions counted again."""
    question = Question.of(record["question"])
    read = {p["id"]: Passage(**p) for p in record["passages"]}
    candidates = list(record["candidates"])
    out: list[dict] = []
    retrieved = None
    closed = None
    for i, c in enumerate(candidates):
        out.append(c)
        following = candidates[i + 1] if i + 1 < len(candidates) else None
        last_of_passage = following is None or following["passage"] != c["passage"] or following["title"]
        if not last_of_passage or c["title"] or c["passage"] not in read:
            continue
        passage = read[c["passage"]]
        # the passage's likeliest reply, whatever its verdict: other_names decides, as the reader does
        reply = next((x for x in candidates if x["passage"] == c["passage"] and x["likeliest"]), None)
        names = new_names(question, reply, passage, [x for x in candidates if x["passage"] == c["passage"]], nlp) if reply else []
        if not names:
            continue
        retrieved = retrieved or retriever.search(question.text, 8)
        closed = closed or reader.closed_book(question.text)
        start = reader.start(question.text, passage)
        for name in names:
            logp = start.fork().follow(name)
            clue = Clue(question, name, passage, retrieved, logp, False, 0, closed.logp(name), True, False)
            own = features(clue, nlp)
            out.append({"passage": passage.id, "text": name, "likeliest": False, "rejection": "", "p": None, "features": own,
                        "sibling": True, "title": False, "own": own, "shown": shown_as(question, name, passage, nlp)})
    return {**record, "candidates": positioned(out)}


def positioned(candidates: list[dict]) -> list[dict]:
    """``candidates`` with each scored one's ``position`` counted as the reader counts it (``ReaderRun.take``)."""
    earlier: list[str] = []
    for c in candidates:
        if c["own"] is not None:
            c["own"] = {**c["own"], "position": float(position(c["text"], earlier))}
            if not c["title"]:
                earlier.append(c["text"])
    return candidates


def strip_set(record: dict, reader, retriever, nlp) -> dict:
    """One record without the sibling candidates that only ``coordinated`` reads (see the module's ``strip``)."""
    read = {p["id"]: Passage(**p) for p in record["passages"]}
    listed = {}
    for c in record["candidates"]:
        if c["likeliest"] and not c["rejection"] and c["passage"] in read:
            listed[c["passage"]] = siblings(c["text"], read[c["passage"]], nlp)
    return named_only(record, listed)


def unsplit_set(record: dict, reader, retriever, nlp) -> dict:
    """One record without the names of replies their passages state only apart (see the module's ``unsplit``)."""
    rejected = {c["passage"] for c in record["candidates"] if c["likeliest"] and c["rejection"]}
    kept = [c for c in record["candidates"] if not (c["sibling"] and c["passage"] in rejected)]
    return {**record, "candidates": positioned([dict(c) for c in kept])}


def prune_set(record: dict, reader, retriever, nlp) -> dict:
    """One record with only the sibling candidates the running code reads (see the module's ``prune``)."""
    question = Question.of(record["question"])
    read = {p["id"]: Passage(**p) for p in record["passages"]}
    named = {}
    for c in record["candidates"]:
        if c["likeliest"] and c["passage"] in read and c["passage"] not in named:
            named[c["passage"]] = other_names(question, c["text"], read[c["passage"]], nlp)
    return named_only(record, named)


def named_only(record: dict, named: dict[str, list[str]]) -> dict:
    """``record`` with only the sibling candidates that ``named`` (passage id -> names) holds, positions counted again."""
    keys = {pid: [normalize_answer(n) for n in names] for pid, names in named.items()}
    kept = [c for c in record["candidates"]
            if not c["sibling"] or any(same_answer(normalize_answer(c["text"]), k) for k in keys.get(c["passage"], []))]
    return {**record, "candidates": positioned([dict(c) for c in kept])}


def complete_train(record: dict, reader, retriever, nlp) -> dict:
    """One collected AmbigNQ train question with the new names of each passage's likeliest reply, labelled."""
    question = Question.of(record["question"])
    out: list[dict] = []
    for passage in retriever.search(question.text, 8):
        own = [c for c in record["candidates"] if c["passage"] == passage.id]
        out += own
        reply = next((c for c in own if c["likeliest"]), None)
        names = new_names(question, reply, passage, own, nlp) if reply else []
        start = reader.start(question.text, passage) if names else None
        out += [{"passage": passage.id, "text": n, "likeliest": False, "logp": start.fork().follow(n),
                 "right": any(right(n, g) for g in record["gold"]), "sibling": True} for n in names]
    return {**record, "candidates": out}


def added(before: Path, after: Path) -> None:
    """Print the candidates ``after``'s records add to ``before``'s (the ``added`` mode)."""
    count = good = 0
    pairs = [(before, after)] if after.is_file() else [(before / p.name, p) for p in sorted(after.glob("*.jsonl"))]
    for old, path in pairs:
        had = {r["question"]: {(c["passage"], c["text"]) for c in r["candidates"]} for r in records(old)}
        for record in records(path):
            for c in record["candidates"]:
                if (c["passage"], c["text"]) not in had[record["question"]]:
                    ok = any(right(c["text"], g) for g in record["gold"])
                    count, good = count + 1, good + ok
                    print(f"{'+' if ok else '-'} {path.stem} | {record['question']} | {c['text']}")
    print(f"{count} new candidates, {good} right")


def main(mode: str, source: Path, target: Path) -> None:
    if mode == "added":
        return added(source, target)
    if mode in ("strip", "unsplit", "prune"):
        reader = retriever = None
        nlp = load_spacy()
    else:
        pipeline = Pipeline.load(Config.from_env(use_generator=False, verifier="off", reader_model="1.5b"))
        reader, retriever, nlp = pipeline.reader, pipeline.retriever, pipeline.reader.nlp
    pairs = [(source, target)] if mode == "train" else [(p, target / p.name) for p in sorted(source.glob("*.jsonl"))]
    complete = {"sets": complete_set, "strip": strip_set, "unsplit": unsplit_set, "prune": prune_set, "train": complete_train}[mode]
    for src, dst in pairs:
        dst.parent.mkdir(parents=True, exist_ok=True)
        done = resumed(dst)
        with dst.open("a", encoding="utf-8") as f:
            for record in tqdm([r for r in records(src) if r["question"] not in done], desc=src.stem, unit="q"):
                f.write(json.dumps(complete(record, reader, retriever, nlp), ensure_ascii=False) + "\n")
                f.flush()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
