"""The verifier: how likely a candidate answer, read from one passage, is a right answer to the question.

A logistic model over features that say nothing of any one question's shape (:data:`FEATURES`): how
well the passage was retrieved, how sure the model was of its reply, how many retrieved passages
state the answer, whether its kind is the kind the question asks for, how much of the question the
sentence stating it holds, and the two signs of a wrong passage that the rules used to decide alone
(a superlative ranked only with an ordinal, another year), and how many other answers were replied
before it (the model's first answers are more often right); and, beside the question's other candidates,
how likely the model finds the answer with no passage (its prior) and how much the passage raised it,
and whether the sentence stating it ranks it another way or relates the question's word to another name, or ranks it at
another place than the question asks (:func:`~ambigdemo.stages.reader.verify.rank_as_asked`), and whether it was not
replied but named beside a reply in a list (:func:`~ambigdemo.stages.reader.select.other_names`) or is its passage's
subject (:func:`~ambigdemo.stages.reader.select.subject_named`). It is fitted by ``python -m ambigdemo
train-verifier`` (:mod:`ambigdemo.building.train_verifier`) on AmbigNQ train and the app's own readings of the
readings sets' train split, as a logistic model (:func:`fit`), blended where the trees help with gradient-boosted
trees (:func:`fit_trees`, LightGBM's, kept in its own text format), with the reading it was tuned with and its
thresholds; all are in one JSON file per reader model (``config.VERIFIERS``), since each model's replies are right at
a different rate.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ambigdemo.stages.answers import bare_title, is_name_of, repeats, same_answer
from ambigdemo.stages.question import Question
from ambigdemo.stages.reader.verify import (coverage, occurs_in, of_another, other_year, outranked, rank_as_asked,
                                            ranks_otherwise, stating)
from ambigdemo.text import mentions, normalize_answer
from ambigdemo.types import Passage

FEATURES = (
    "score", "ratio", "rank", "likeliest", "logp", "support", "type_fit", "untyped",
    "subject", "coverage", "outranked", "other_year", "words", "numeric", "position",
    "prior", "prior_gap", "lift", "support_gap", "clash", "of_other", "rank_asked", "rank_other", "sibling",
    "title", "coverage_gap",
)
# The features the shipped scores use: the rest are computed and measured (docs/experiments/best-first.md) but
# moved no choice on new questions (AmbigNQ train, out of fold) or on the dev sets
SCORED = FEATURES[:15] + ("lift", "rank_other", "sibling", "title")
# Features that compare a candidate with the question's other candidates (:func:`relate`)
RELATIVE = {"prior_gap": "prior", "support_gap": "support", "coverage_gap": "coverage"}


@dataclass(frozen=True)
class Clue:
    """What the reader knows of one candidate when it is read."""

    question: Question
    text: str  # the answer as replied
    passage: Passage  # the passage it was read from
    passages: list[Passage]  # every passage retrieved, best first
    logp: float  # the log probability of the model's reply
    likeliest: bool = True
    position: int = 0  # how many other answers that pass verify's rules were replied before it in this reading
    prior: float = 0.0  # the log probability of ``text`` as the model's reply to the question asked with no passage
    sibling: bool = False  # not replied: another name of the list a reply's answer is named in (``select.siblings``)
    title: bool = False  # not replied: the passage's subject (``select.subject_named``)


def position(text: str, replied: list[str]) -> int:
    """Where ``text`` stands among the distinct answers ``replied`` before it, in order: how many others came
    first (its first reply's place when it is among them)."""
    order = list(dict.fromkeys(normalize_answer(r) for r in replied))
    key = normalize_answer(text)
    return order.index(key) if key in order else len(order)


def entity_label(text: str, passage: Passage, nlp) -> str:
    """The spaCy label of the entity that names ``text`` in the sentences of the passage stating it, "" if
    none: the entity that is the answer, else one the answer holds, else one that holds the answer."""
    if nlp is None:
        return ""
    ents = [e for sentence in stating(text, passage)[:2] for e in nlp(sentence).ents]
    key = normalize_answer(text)
    for fits in (lambda e: normalize_answer(e.text) == key, lambda e: mentions(text, e.text), lambda e: mentions(e.text, text)):
        label = next((e.label_ for e in ents if fits(e)), "")
        if label:
            return label
    return ""


def features(clue: Clue, nlp) -> dict[str, float]:
    """The named features of one candidate (:data:`FEATURES`)."""
    q, text, passage = clue.question, clue.text, clue.passage
    subject = is_name_of(passage.title, text)
    asked = bare_title(passage.title) if subject else text  # the subject as its article names it, for coverage
    best = max((p.score for p in clue.passages), default=passage.score) or 1.0
    rank = next((i for i, p in enumerate(clue.passages) if p.id == passage.id), len(clue.passages))
    label = entity_label(text, passage, nlp)
    ranked = rank_as_asked(q, text, passage)
    return {
        "score": passage.score,
        "ratio": passage.score / best,
        "rank": math.log1p(rank),
        "likeliest": float(clue.likeliest),
        "logp": max(clue.logp, -20.0),
        "support": math.log1p(sum(occurs_in(text, p) for p in clue.passages)),
        "type_fit": q.type.labels.get(label, 0.0),
        "untyped": float(not label),
        "subject": float(subject),
        "coverage": coverage(q, asked, passage),
        "outranked": float(outranked(q, passage)),
        "other_year": float(other_year(q, text, passage)),
        "words": math.log1p(len(text.split())),
        "numeric": float(any(c.isdigit() for c in text)),
        "position": float(clue.position),
        "prior": max(clue.prior, -30.0),
        "lift": max(clue.logp, -20.0) - max(clue.prior, -30.0),  # how much the passage raises the reply over the prior
        "clash": float(ranks_otherwise(q, text, passage)),
        "of_other": float(of_another(q, text, passage)),
        "rank_asked": float(ranked == 1),
        "rank_other": float(ranked == -1),
        "sibling": float(clue.sibling),
        "title": float(clue.title),
    }


def relate(rows: list[dict[str, float]], texts: list[str]) -> list[dict[str, float]]:
    """``rows``, one question's candidates' features (:func:`features`; ``texts``, their answers), each with how far it
    stands from the question's best candidate on the :data:`RELATIVE` features (0 for the best, negative below it),
    and ``rank_other`` read per answer: an answer some passage ranks at another place than the question asks, and none
    at that place, is ranked otherwise wherever it is read ("Jakarta is the largest city" tells against Jakarta for the
    second-largest in a passage that does not rank it)."""
    keys = [normalize_answer(t) for t in texts]
    for i, row in enumerate(rows):
        same = [r for r, k in zip(rows, keys) if same_answer(keys[i], k)]
        if any(r["rank_other"] for r in same) and not any(r["rank_asked"] for r in same):
            row["rank_other"] = 1.0
    for gap, name in RELATIVE.items():
        best = max((r[name] for r in rows), default=0.0)
        for r in rows:
            r[gap] = r[name] - best
    return rows


@dataclass(frozen=True)
class Verifier:
    """A fitted score, p(right) of a candidate's features (a logistic model, blended with gradient-boosted trees when
    ``trees`` holds them), and the thresholds a shown one needs."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float = 0.5  # the first answer found needs this p(right) ...
    more: float = 0.5  # ... and every further answer (another reading) this
    also: float = 1.0  # an answer under those thresholds reaching this is shown "also in the passages" (1: never)
    passages: int = 4  # the reading it was tuned with: passages read (above the reader's least score) ...
    relevance: float = 0.0  # ... of those within this share of the best retrieval score (0: every one) ...
    branch_passages: int = 1  # ... and of those, the first ones whose less likely replies are read too,
    branch_min: float = 0.1  # ... when their probability reaches this;
    also_passages: int = 0  # then this many more of the retrieved passages (over the reader's least score) are read
    also_further: float = 1.0  # for "also" only: an answer of theirs is shown there when its p reaches this
    siblings: bool = False  # the other names of a list a reply is named in are read too (``LlmReader.siblings``)
    listed: float = 1.0  # a further answer named in the list of a passage whose answer is a reading needs this (:func:`tiers`)
    titles: bool = False  # each passage's subject is read too (``LlmReader.titles``)
    also_titles: float = 1.0  # or, for "also" only, read after the readings and shown there from this p (1: not read)
    lexical: bool = False  # the passage BM25 ranks first is read too (``LlmReader.lexical``)
    trees: str = ""  # the trees as LightGBM writes them (:func:`fit_trees`): features in ``names`` order in, p(right) out
    blend: float = 1.0  # with trees: p is this share of theirs and the rest of the logistic model's
    also_branches: float = 1.0  # the less likely replies (from ``branch_min``) of the passages read for the readings, read
    # after them for "also" only, are shown there from this p (1: not read; ``branch_passages`` is then 0)
    also_beside: float = 0.0  # beside a reading, an "also" answer needs at least this p, whatever its bar (0: its bar)
    _booster: list = field(default_factory=list, init=False, repr=False, compare=False)  # the trees loaded, once used
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)  # the app's workers share it

    def needs(self, found: int) -> float:
        """The p(right) an answer needs when ``found`` distinct answers are found before it."""
        return self.threshold if found == 0 else max(self.threshold, self.more)

    def also_bar(self, bar: float, readings: int) -> float:
        """The p an "also" answer whose own bar is ``bar`` needs when ``readings`` readings are shown: beside a reading
        a low p is right far less often than with none (docs/experiments/best-first.md, the twenty-sixth pass)."""
        return max(bar, self.also_beside) if readings else bar

    def p(self, named: dict[str, float]) -> float:
        x = np.array([[named[n] for n in self.names]], dtype=np.float64)
        logistic = 1.0 / (1.0 + np.exp(-(((x[0] - np.array(self.mean)) / np.array(self.scale)) @ np.array(self.weights) + self.bias)))
        if not self.trees:
            return float(logistic)
        with self._lock:  # one booster, shared by the app's workers: LightGBM's predictor setup is not thread-safe
            trees = self._model().predict(x, num_threads=1)[0]
        return float((1.0 - self.blend) * logistic + self.blend * trees)

    def _model(self):
        """The trees as a LightGBM booster, loaded once."""
        if not self._booster:
            import lightgbm

            self._booster.append(lightgbm.Booster(model_str=self.trees))
        return self._booster[0]

    def to_json(self) -> dict:
        return {"names": list(self.names), "mean": list(self.mean), "scale": list(self.scale), "weights": list(self.weights),
                "bias": self.bias, "threshold": self.threshold, "more": self.more, "also": self.also, "passages": self.passages, "relevance": self.relevance, "branch_passages": self.branch_passages, "branch_min": self.branch_min,
                "also_passages": self.also_passages, "also_further": self.also_further, "siblings": self.siblings,
                "listed": self.listed, "titles": self.titles, "also_titles": self.also_titles, "lexical": self.lexical,
                **({"also_branches": self.also_branches} if self.also_branches < 1.0 else {}),
                **({"also_beside": self.also_beside} if self.also_beside else {}),
                **({"trees": self.trees, "blend": self.blend} if self.trees else {})}

    @classmethod
    def from_json(cls, data: dict) -> "Verifier":
        return cls(tuple(data["names"]), tuple(data["mean"]), tuple(data["scale"]), tuple(data["weights"]),
                   float(data["bias"]), float(data["threshold"]), float(data["more"]), float(data.get("also", 1.0)), int(data["passages"]), float(data.get("relevance", 0.0)), int(data["branch_passages"]), float(data["branch_min"]),
                   int(data.get("also_passages", 0)), float(data.get("also_further", 1.0)), bool(data.get("siblings", False)),
                   float(data.get("listed", 1.0)), bool(data.get("titles", False)), float(data.get("also_titles", 1.0)),
                   bool(data.get("lexical", False)), str(data.get("trees", "")),
                   float(data.get("blend", 1.0)), float(data.get("also_branches", 1.0)), float(data.get("also_beside", 0.0)))

    @classmethod
    def load(cls, path: Path) -> "Verifier":
        """The verifier saved at ``path``; a missing or unreadable file says which and why."""
        try:
            verifier = cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"cannot load the verifier from {path}: {exc}") from exc
        if verifier.trees:
            from lightgbm.basic import LightGBMError

            try:
                with verifier._lock:
                    verifier._model()
            except LightGBMError as exc:
                raise ValueError(f"cannot load the verifier from {path}: its trees: {exc}") from exc
        return verifier


def tiers(keys: list[str], scores: list[float], verifier: "Verifier", max_answers: int,
          lists: list[str | None] | None = None) -> list[str]:
    """The one best-first decision, per candidate (``keys``: each as shown, ``scores``: its p(right), both in read
    order): "reading" while p reaches what the next reading needs (at most ``max_answers``), "same" when it names an
    answer already a reading, "also" from ``verifier.also`` (beside a reading from ``also_beside``) for an answer not yet
    listed, in any words (``repeats``), else "". ``lists`` names,
    per candidate, the list it belongs to (a passage's reply and the other names of the list it is named in), or None:
    once one name of a list is a reading, another of it needs only ``verifier.listed`` (a list states one relation, so
    its names stand or fall together); a list that only names another passage's reading ("same") stays unshown: it
    may state another relation of that name ("the East China Sea" beside the Yellow Sea in China's list of seas, for
    South Korea's)."""
    lists = lists or [None] * len(keys)
    out = [""] * len(keys)
    readings: list[str] = []
    shown_lists: set[str] = set()
    order = sorted(range(len(keys)), key=lambda i: (-scores[i], i))

    def needs(i: int) -> float:
        needed = verifier.needs(len(readings))
        return min(needed, verifier.listed) if lists[i] in shown_lists else needed

    def take(i: int) -> None:
        out[i] = "reading"
        readings.append(normalize_answer(keys[i]))
        if lists[i] is not None:
            shown_lists.add(lists[i])

    for i in order:
        key = normalize_answer(keys[i])
        if any(same_answer(key, k) for k in readings):
            out[i] = "same"
        elif scores[i] >= needs(i) and len(readings) < max_answers:
            take(i)
        elif scores[i] >= verifier.also_bar(verifier.also, len(readings)) and not repeats(keys[i], [keys[j] for j in order if out[j] in ("reading", "also")]):
            out[i] = "also"
    for i in order:  # a list's names scored above the name that made it shown
        key = normalize_answer(keys[i])
        if out[i] in ("", "also") and lists[i] in shown_lists and scores[i] >= needs(i) and len(readings) < max_answers \
                and not any(same_answer(key, k) for k in readings):
            take(i)
    for i in order:  # an answer "also" shown that a promoted name now reads
        if out[i] == "also" and any(same_answer(normalize_answer(keys[i]), k) for k in readings):
            out[i] = "same"
    return out


def fit(rows: list[dict[str, float]], labels: list[int], l2: float = 1.0, steps: int = 50,
        names: tuple[str, ...] = FEATURES, weights: list[float] | None = None) -> Verifier:
    """A logistic regression of ``labels`` on the features ``names`` of ``rows`` (standardised, L2-penalised,
    fitted by Newton's method), each row counted ``weights`` times (default once)."""
    x = np.array([[r[n] for n in names] for r in rows], dtype=np.float64)
    y = np.array(labels, dtype=np.float64)
    counts = np.ones(len(x)) if weights is None else np.array(weights, dtype=np.float64)
    mean = np.average(x, axis=0, weights=counts)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=counts))
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    penalty = np.diag([l2] * len(names) + [0.0])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (counts * (p - y)) + penalty @ w
        hess = (z * (counts * p * (1 - p))[:, None]).T @ z + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Verifier(names, tuple(mean.tolist()), tuple(scale.tolist()), tuple(w[:-1].tolist()), float(w[-1]))


TREES = {"num_iterations": 300, "learning_rate": 0.03, "num_leaves": 8, "min_data_in_leaf": 40, "lambda_l2": 1.0}


def fit_trees(rows: list[dict[str, float]], labels: list[int], names: tuple[str, ...] = FEATURES,
              weights: list[float] | None = None, seed: int = 0, **params: float) -> Verifier:
    """Gradient-boosted trees (LightGBM, ``TREES`` unless ``params`` say otherwise) of ``labels`` on the features
    ``names`` of ``rows``, each row counted ``weights`` times: unlike the logistic model they can weigh one feature by
    another (a sentence that ranks the answer otherwise counts for more when its passage ranks first). One thread,
    deterministic for a ``seed``. Alone (``blend`` 1); :func:`blended` mixes them with a logistic fit."""
    import lightgbm

    x = np.array([[r[n] for n in names] for r in rows], dtype=np.float64)
    data = lightgbm.Dataset(x, np.array(labels), weight=weights, feature_name=list(names), free_raw_data=False)
    settings = {"objective": "binary", "num_threads": 1, "deterministic": True, "force_row_wise": True, "seed": seed,
                "verbose": -1, **TREES, **params}
    booster = lightgbm.train(settings, data)
    zeros = tuple(0.0 for _ in names)
    return Verifier(tuple(names), zeros, tuple(1.0 for _ in names), zeros, 0.0, trees=booster.model_to_string())


def blended(rows: list[dict[str, float]], labels: list[int], share: float, l2: float = 1.0,
            names: tuple[str, ...] = FEATURES, weights: list[float] | None = None, **trees: float) -> Verifier:
    """The logistic fit of ``rows`` (:func:`fit`), its p mixed with ``share`` of the trees' (:func:`fit_trees`, with
    the settings ``trees``) fitted on the same rows; ``share`` 0 is the logistic fit alone."""
    logistic = fit(rows, labels, l2=l2, names=names, weights=weights)
    if share <= 0:
        return logistic
    return replace(logistic, trees=fit_trees(rows, labels, names=names, weights=weights, **trees).trees, blend=share)


def auc(scores: list[float], labels: list[int]) -> float:
    """The area under the ROC curve: the chance a right candidate outscores a wrong one (ties count half)."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))
