"""Fit the reader's verifier on AmbigNQ train: distant labels from the pipeline's own candidates.

Each train question whose gold answers some retrieved passage states is read the way the app reads,
but wider (every passage above the reader's least score, the less likely replies of the first two),
and every grounded candidate is kept with its features (:func:`~ambigdemo.stages.reader.verifier.features`)
and labelled right when it names one of the question's gold answers (any annotator's). The candidates go
to a JSON-lines file one question at a time, so a rerun resumes where the last one stopped; the
score is then fitted on all of them (:func:`~ambigdemo.stages.reader.verifier.blended`: the logistic model, with
gradient-boosted trees in it where asked).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ambigdemo.evaluation.datasets import AmbigExample
from ambigdemo.evaluation.readings import right
from ambigdemo.files import replace_text
from ambigdemo.runtimes.nlp import Memo
from ambigdemo.stages.reader import LlmReader, MalformedOutput, ReaderRun
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verifier import FEATURES, Clue, Verifier, auc, blended, features, position, relate, tiers
from ambigdemo.stages.reader.select import other_names, subject_named
from ambigdemo.stages.reader.verify import occurs_in
from ambigdemo.stages.answers import same_answer
from ambigdemo.text import normalize_answer
from ambigdemo.types import Passage

COLLECT = {"relevance": 0.0, "max_passages": 8, "max_answers": 100, "branch_passages": 2, "branch_min": Verifier.branch_min}


def gold_answers(example: AmbigExample) -> list[list[str]]:
    """Every annotator's answers to ``example``, aliases each."""
    out = []
    for ann in example.annotations:
        out += [ann.answers] if ann.is_single else [qa.answers for qa in ann.qa_pairs]
    return [a for a in out if a]


def accepting(reader: LlmReader, **wide: Any) -> LlmReader:
    """``reader`` reading wide (:data:`COLLECT`, ``wide`` overriding it) and keeping every grounded candidate,
    each with its features."""
    return replace(reader, verifier=replace(neutral(FEATURES), threshold=0.0, more=0.0), **{**COLLECT, **wide})


def neutral(names: tuple[str, ...]) -> Verifier:
    """A score of ``names`` that weighs nothing: every candidate's p is 0.5."""
    return Verifier(names, (0.0,) * len(names), (1.0,) * len(names), (0.0,) * len(names), 0.0)


def candidates(reader: LlmReader, question: str, passages: list[Passage], gold: list[list[str]]) -> list[dict]:
    """The grounded candidates of one question, as read (passage, text, likeliest, the reply's log probability)
    and labelled (``reader`` as :func:`accepting` makes it); their features are computed when they are
    loaded (:func:`featurize`), so a change of features needs no new reading."""
    reading = reader.read(question, passages)
    try:
        for _ in reading.answers():
            pass
    except MalformedOutput:
        pass  # no reply read as an answer: the candidates are none, as the app's reader would find
    return [
        {"passage": c.passage, "text": c.text, "likeliest": c.likeliest, "logp": c.features["logp"],
         "right": any(right(c.text, g) for g in gold), **({"sibling": True} if c.sibling else {}), **({"title": True} if c.title else {})}
        for c in reading.candidates if c.features
    ]


def collect(reader: LlmReader, retriever, items: list[tuple[str, list[list[str]]]], out: Path, limit: int,
            seed: int | None = 0, stated_only: bool = True, **wide: Any) -> Path:
    """Candidates of up to ``limit`` questions (``(question, gold answers)``, in a seeded order unless ``seed``
    is None), appended to ``out`` one question per line; with ``stated_only`` only questions whose gold some
    retrieved passage states; ``wide`` overrides how wide the reader reads (:data:`COLLECT`). Questions already
    in ``out`` are skipped, so a rerun resumes."""
    done = resumed(out)
    order = list(items)
    if seed is not None:
        random.Random(seed).shuffle(order)
    reader = accepting(reader, **wide)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f, tqdm(total=limit, desc="reading questions", unit="q") as bar:
        taken = min(len(done), limit)
        bar.update(taken)
        for question, gold in order:
            if taken >= limit:
                break
            if question in done:
                continue
            passages = retriever.search(question, 8)
            if stated_only and not any(occurs_in(a, p) for p in passages for g in gold for a in g):
                continue
            rows = candidates(reader, question, passages, gold)
            f.write(json.dumps({"question": question, "gold": gold, "candidates": rows, "siblings": reader.siblings,
                                "titles": reader.titles}) + "\n")
            f.flush()
            taken += 1
            bar.update(1)
    return out


def resumed(out: Path) -> set[str]:
    """The questions already in ``out`` (one JSON line each); a line cut by a killed run is dropped, so that question
    is read again."""
    if not out.exists():
        return set()
    text = out.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        replace_text(out, text[: text.rfind("\n") + 1])
    return {r["question"] for r in records(out) if "question" in r}


def record_reading(reader: LlmReader, retriever, items: list[tuple[str, list[list[str]]]], out: Path, top_k: int = 8,
                   desc: str = "reading questions") -> Path:
    """Each question of ``items`` (``(question, gold answers)``) read as the app reads it (``reader``, with its score's
    reading, over the ``top_k`` passages retrieved; no paragraph), what its decision chose from
    (:meth:`~ambigdemo.stages.reader.ReaderRun.record`) appended to ``out`` with its gold, one question a line;
    resumable. A question whose replies could not be read at all (the app answers it with the rule reader) is kept
    with ``"unreadable": true``."""
    from ambigdemo.pipeline import clean_question

    done = resumed(out)
    todo = [(clean_question(q), gold) for q, gold in items if clean_question(q) not in done]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        for question, gold in tqdm(todo, desc=desc, unit="q"):
            run = reader.read(Question.of(question), retriever.search(question, top_k))
            unreadable = False
            try:
                for _ in run.answers():
                    pass
                for _ in run.read_for_also():
                    pass
            except MalformedOutput:
                unreadable = True
            f.write(json.dumps({**run.record(), "gold": gold, "unreadable": unreadable}, ensure_ascii=False) + "\n")
            f.flush()
    return out


def replayed(reader: LlmReader, record: dict) -> tuple[list[str], list[str]]:
    """The readings and "also" answers ``reader``'s score shows for one recorded question (:func:`record_reading`)."""
    run = ReaderRun.replay(reader, record)
    return [a.text for a in run.found], [a.answer for a in run.also]


RETRIEVED = ("ratio", "rank", "support")  # features that count passages retrieved but not read: a record lacks them


def current(found: list[dict], nlp, also_titles: bool = True, also_branches: bool = False) -> list[dict]:
    """Recorded questions (:func:`record_reading`) as today's code reads them, with no model call: each scored
    candidate's own features computed again from its recorded reply, log probabilities and passage (a mended splitter
    or a new feature needs no new reading; :data:`RETRIEVED` stay as recorded), then related and scored as a replay
    relates them (:meth:`~ambigdemo.stages.reader.ReaderRun.replay`, ``also_titles`` and ``also_branches`` as the app
    read them)."""
    reader = LlmReader(None, verifier=neutral(("score",)), also_titles=also_titles, also_branches=also_branches)
    nlp = Memo(nlp) if nlp is not None else None
    out = []
    for record in tqdm(found, desc="relating recorded candidates", unit="q", leave=False):
        question = Question.of(record["question"])
        read = [Passage(**p) for p in record["passages"]]
        by_id = {p.id: p for p in read}
        candidates = []
        for c in record["candidates"]:
            if c["own"] is not None:
                own = c["own"]
                clue = Clue(question, c["text"], by_id[c["passage"]], read, own["logp"],
                            c["likeliest"], int(own["position"]), own["prior"], c["sibling"], c["title"])
                c = {**c, "own": {**features(clue, nlp), **{k: own[k] for k in RETRIEVED}}}
            candidates.append(c)
        record = {**record, "candidates": candidates}
        run = ReaderRun.replay(reader, record)
        out.append({**record, "candidates": [{**c, "features": r.features} for c, r in zip(candidates, run.candidates)]})
    return out


def recorded_rows(found: list[dict]) -> tuple[list[dict], list[int]]:
    """The features and labels of every scored candidate of recorded questions (:func:`record_reading`), each
    labelled right when the answer as shown names one of its question's gold readings."""
    rows, labels = [], []
    for record in found:
        for c in record["candidates"]:
            if c["features"]:
                rows.append(c["features"])
                labels.append(int(any(right(c["shown"] or c["text"], g) for g in record["gold"])))
    return rows, labels


def left_out(rows: list[dict], labels: list[int], sets: dict[str, list[dict]], names: tuple[str, ...],
             l2: float = 1.0, weight: float = 1.0, trees: float = 0.0) -> dict[str, float]:
    """Per recorded set (:func:`record_reading`), the AUC of its candidates under a fit of ``names`` on ``rows`` and
    ``labels`` (AmbigNQ train's, each counted ``weight`` times) and every other set's (``trees``: the trees' share,
    :func:`~ambigdemo.stages.reader.verifier.blended`): how well the fit carries to a set of new questions."""
    out = {}
    for name, found in sets.items():
        others = [r for other, recs in sets.items() if other != name for r in recs]
        other_rows, other_labels = recorded_rows(others)
        fitted = blended(rows + other_rows, labels + other_labels, trees, l2=l2, names=names,
                         weights=[weight] * len(rows) + [1.0] * len(other_rows))
        held_rows, held_labels = recorded_rows(found)
        out[name] = auc([fitted.p(r) for r in held_rows], held_labels)
    return out


def add_unreplied(out: Path, reader: LlmReader, retriever, how: str, gold: dict[str, list[list[str]]] | None = None,
                  reach: int = 8) -> Path:
    """Complete the questions collected in ``out`` before the reader read answers the model did not reply (``how``:
    "siblings", the other names of the list a passage's reply is named in, :func:`~ambigdemo.stages.reader.select.other_names`;
    "titles", each passage's subject, :func:`~ambigdemo.stages.reader.select.subject_named`) with them, each after its
    passage's candidates as the reader reads them, with its log probability after the passage, labelled by the record's
    gold (``gold`` for records collected before it was kept), from the first ``reach`` passages (the most the reader
    reads); resumable (each question done is marked ``how``)."""
    flag, what = {"siblings": ("sibling", "lists' other names"), "titles": ("title", "passages' subjects")}[how]
    found = records(out)
    for record in tqdm([r for r in found if not r.get(how)], desc=f"reading {what}", unit="q"):
        question = Question.of(record["question"])
        answers = record["gold"] if "gold" in record else (gold or {})[record["question"]]
        rows: list[dict] = []
        for rank, passage in enumerate(retriever.search(question.text, 8)):
            own = [c for c in record["candidates"] if c["passage"] == passage.id]
            rows += own
            if rank >= reach:
                names = []
            elif how == "titles":
                named = subject_named(question, passage, [c["text"] for c in own])
                names = [named] if named else []
            else:
                reply = next((c for c in own if c["likeliest"]), None)
                names = other_names(question, reply["text"], passage, reader.nlp) if reply else []
            start = reader.start(question.text, passage) if names else None
            rows += [{"passage": passage.id, "text": n, "likeliest": False, "logp": start.logp(n),
                      "right": any(right(n, g) for g in answers), flag: True} for n in names]
        record["candidates"], record[how] = rows, True
        replace_text(out, "".join(json.dumps(r) + "\n" for r in found))
    return out


def records(path: Path) -> list[dict]:
    """The questions collected in ``path``, each with its gold and candidates (a line cut by a killed run skipped)."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def featurize(found: list[dict], retriever, nlp, top_k: int = 8, reader: LlmReader | None = None) -> list[dict]:
    """``found`` (:func:`records`) with every candidate's features computed by the current code; the model's
    closed-book prior of each candidate is computed with ``reader``'s model (0 without one)."""
    for record in tqdm(found, desc="computing features", unit="q", leave=False):
        question = Question.of(record["question"])
        passages = retriever.search(question.text, top_k)
        by_id = {p.id: p for p in passages}
        replied = [c["text"] for c in record["candidates"]]  # as read
        closed = reader.closed_book(question.text) if reader is not None and replied else None
        priors = {t: closed.logp(t) for t in dict.fromkeys(replied)} if closed is not None else {}
        for i, c in enumerate(record["candidates"]):
            clue = Clue(question, c["text"], by_id[c["passage"]], passages, c["logp"], c["likeliest"],
                        position(c["text"], replied[:i]), priors.get(c["text"], 0.0), c.get("sibling", False), c.get("title", False))
            c["features"] = features(clue, nlp)
        relate([c["features"] for c in record["candidates"]], [c["text"] for c in record["candidates"]])
    return found


def labelled(found: list[dict]) -> tuple[list[dict], list[int]]:
    """The features and labels of every candidate of ``found`` (:func:`featurize`)."""
    every = [c for r in found for c in r["candidates"]]
    return [c["features"] for c in every], [int(c["right"]) for c in every]


def fold_fits(found: list[dict], names: tuple[str, ...], folds: int = 5, trees: float = 0.0) -> list[tuple[set[int], Verifier]]:
    """The questions of ``found`` dealt into ``folds`` after a seeded shuffle, each fold's held-out question indices
    with a fit of ``names`` on the other folds' questions (``trees``: the trees' share in it)."""
    order = list(range(len(found)))
    random.Random(0).shuffle(order)
    out = []
    for k in range(folds):
        held = {q for i, q in enumerate(order) if i % folds == k}
        out.append((held, blended(*labelled([r for q, r in enumerate(found) if q not in held]), trees, names=names)))
    return out


def out_of_fold(found: list[dict], names: tuple[str, ...], folds: int = 5, trees: float = 0.0) -> float:
    """AUC of every candidate of ``found`` (:func:`featurize`) scored by a fit of ``names`` on the other folds'
    questions (:func:`fold_fits`): how well such a fit carries to new questions."""
    scores, ys = [], []
    for held, fitted in fold_fits(found, names, folds, trees):
        for q in held:
            for c in found[q]["candidates"]:
                scores.append(fitted.p(c["features"]))
                ys.append(int(c["right"]))
    return auc(scores, ys)


def within(candidate: dict, passages: int, branch_passages: int, relevance: float = 0.0) -> bool:
    """The candidate would be read by a reader that reads ``passages`` passages (of those within ``relevance``
    of the best retrieval score) and the less likely replies of the first ``branch_passages`` (collected
    passages are read in retrieval order; ``rank`` is log1p)."""
    rank = round(math.expm1(candidate["features"]["rank"]))
    return (rank < passages and candidate["features"]["ratio"] >= relevance
            and (candidate["likeliest"] or candidate.get("sibling", False) or candidate.get("title", False) or rank < branch_passages))


def chosen(record: dict, verifier: Verifier, threshold: float, passages: int = 8, branch_passages: int = 2) -> dict[str, int]:
    """What a verifier at ``threshold`` would show of one collected question's candidates (those a reader
    of ``passages`` and ``branch_passages`` reads), folded by the gold they name: needed answers found,
    and distinct wrong answers shown."""
    kept = [c for c in record["candidates"]
            if within(c, passages, branch_passages) and verifier.p(c["features"]) >= threshold]
    gold = record["gold"]
    needed = sum(any(right(c["text"], g) for c in kept) for g in gold)
    wrong = {normalize_answer(c["text"]) for c in kept if not c["right"]}
    return {"needed": needed, "gold": len(gold), "wrong": len(wrong)}


def sweep(found: list[dict], verifier: Verifier, thresholds: list[float], passages: tuple[int, ...] = (2, 4, 6, 8),
          branches: tuple[int, ...] = (0, 1, 2)) -> list[dict]:
    """Per reading (passages read, of which with less likely replies) and threshold, the needed answers and
    wrong answers the verifier would show on the questions ``found`` (:func:`featurize`)."""
    out = []
    for k in passages:
        for b in branches:
            for t in thresholds:
                per = [chosen(r, verifier, t, k, b) for r in found]
                out.append({"passages": k, "branch_passages": b, "threshold": t,
                            **{key: sum(p[key] for p in per) for key in ("needed", "gold", "wrong")}})
    return out


def shown_tiers(record: dict, verifier: Verifier, passages: int = 8, branch_passages: int = 0, max_answers: int = 5,
          shown: Callable[[dict], str] | None = None) -> dict[str, int]:
    """What the reader's best-first choice (``ReaderRun.decide``) would show of one collected question's
    candidates (:func:`featurize`) that a reader of ``passages`` and ``branch_passages`` reads, each shown as
    ``shown`` makes it (default: as replied): needed answers in the readings, wrong readings, needed answers in
    the readings or "also", and the "also" answers shown."""
    kept = [c for c in record["candidates"] if within(c, passages, branch_passages, verifier.relevance)]
    scores = [verifier.p(row) for row in relate([dict(c["features"]) for c in kept], [c["text"] for c in kept])]
    texts = [shown(c) if shown else c["text"] for c in kept]
    chosen = tiers(texts, scores, verifier, max_answers)
    found = [t for t, tier in zip(texts, chosen) if tier == "reading"]
    also = [t for t, tier in zip(texts, chosen) if tier == "also"]
    gold = record["gold"]
    return {"needed": sum(any(right(t, g) for t in found) for g in gold), "gold": len(gold),
            "wrong": sum(not any(right(t, g) for g in gold) for t in found),
            "either": sum(any(right(t, g) for t in found + also) for g in gold), "also": len(also)}


def replay(found: list[dict], verifier: Verifier, passages: int = 8, branch_passages: int = 0,
           shown: Callable[[dict], str] | None = None) -> dict[str, int]:
    """:func:`shown_tiers` summed over the questions ``found``."""
    per = [shown_tiers(r, verifier, passages, branch_passages, shown=shown) for r in found]
    return {key: sum(p[key] for p in per) for key in ("needed", "gold", "wrong", "either", "also")}
