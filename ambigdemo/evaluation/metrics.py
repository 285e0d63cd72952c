"""Evaluation metrics, reimplemented from the official definitions.

* AmbigQA (``ambigqa_evaluate_script.py``): answer F1 and the question metrics F1 BLEU-4 and
  F1 EDIT-F1, with its greedy matching, max over annotations and "multi only" subset.
* NQ-open: exact match after SQuAD normalisation.
* ASQA (``language/asqa/scoring.py``): ROUGE-L (rougeLsum), STR-EM, Disambig-F1 and DR, with a
  pluggable reader.
* MEQ contrast consistency: top-k retrieval overlap between a question and its minimal edits,
  plus Hit@k and MRR@k against gold passage ids.

Every score is in [0, 1].
"""

from __future__ import annotations

import functools
import math
import operator
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Callable, Mapping, Protocol, Sequence, TypeVar

from ambigdemo.evaluation.datasets import AmbigExample, AmbigPrediction, ASQAExample, NQExample, QAPair
from ambigdemo.text import mentions, multiset_edit, normalize_answer, ptb_tokenize

G = TypeVar("G")
P = TypeVar("P")


class _Report:
    """Mixin for report dataclasses: a JSON-ready dict of the fields."""

    def to_dict(self) -> dict:
        return asdict(self)

# --------------------------------------------------------------------------- answers


def answer_shown(gold: Sequence[Sequence[str]], shown: Sequence[str]) -> bool:
    """An end-to-end answer is right: nothing shown when there is no gold answer (NQ's null answer,
    QuAC's CANNOTANSWER), else a shown answer contains a gold alias or is contained in one
    ("1912" and "15 April 1912")."""
    if not gold:
        return not shown
    return any(mentions(s, a) or mentions(a, s) for s in shown for aliases in gold for a in aliases if a and s)


def exact_match(aliases: Sequence[str], prediction: str) -> bool:
    """True when ``prediction`` equals one of ``aliases`` after SQuAD normalisation."""
    pred = normalize_answer(prediction)
    return any(normalize_answer(alias) == pred for alias in aliases)


def answer_f1(gold: Sequence[Sequence[str]], predicted: Sequence[str]) -> float:
    """AmbigQA answer F1: greedy one-to-one matching, ``2 * matched / (#gold + #pred)``.

    Each gold answer is a list of aliases. Golds are visited in order and each takes the first
    unmatched prediction equal to one of its aliases, so a duplicate prediction matches at most
    one gold and counts against precision.
    """
    return _greedy_f1(gold, predicted, exact_match)


def _greedy_f1(gold: Sequence[G], predicted: Sequence[P], match: Callable[[G, P], bool]) -> float:
    taken = [False] * len(predicted)
    for g in gold:
        j = next((j for j, p in enumerate(predicted) if not taken[j] and match(g, p)), None)
        if j is not None:
            taken[j] = True
    return _f1(sum(taken), len(gold), len(predicted))


def _f1(total: float, n_gold: int, n_pred: int) -> float:
    return 2 * total / (n_gold + n_pred) if n_gold and n_pred else 0.0


# --------------------------------------------------------------------------- questions


def question_text(question: str) -> str:
    """A question as the official script compares it: PTB tokens, then SQuAD normalisation."""
    return normalize_answer(" ".join(ptb_tokenize(question)))


def gold_alternatives(question: str) -> list[str]:
    """The ``|``-separated wordings of a gold disambiguated question, stripped, empties dropped."""
    return [alt.strip() for alt in question.split("|") if alt.strip()]


def bleu4(hypothesis: str, references: Sequence[str]) -> float:
    """Sentence BLEU-4 of whitespace-tokenised text exactly as pycocoevalcap's ``Bleu(4)`` scores it.

    Counts are clipped by the maximum count over references, the brevity penalty uses the closest
    reference length, and precisions carry pycocoevalcap's ``(c + 1e-15) / (g + 1e-9)`` guard (no
    other smoothing).
    """
    hyp = hypothesis.split()
    refs = [r.split() for r in references] or [[]]
    max_ref_counts: Counter = Counter()
    for ref in refs:
        max_ref_counts |= _ngram_counts(ref)
    correct = [0] * 4
    for gram, count in _ngram_counts(hyp).items():
        correct[len(gram) - 1] += min(count, max_ref_counts[gram])
    score = 1.0
    for k in range(4):
        score *= (correct[k] + 1e-15) / (max(0, len(hyp) - k) + 1e-9)
    score **= 1 / 4
    ref_len = min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]
    ratio = (len(hyp) + 1e-15) / (ref_len + 1e-9)
    return score * math.exp(1 - 1 / ratio) if ratio < 1 else score


def _ngram_counts(tokens: list[str], n: int = 4) -> Counter:
    return Counter(tuple(tokens[i:i + k]) for k in range(1, n + 1) for i in range(len(tokens) - k + 1))


def question_bleu4(predicted: str, gold: str) -> float:
    """BLEU-4 of a predicted rewrite against every ``|`` wording of the gold rewrite."""
    return bleu4(question_text(predicted), [question_text(alt) for alt in gold_alternatives(gold)])


def edit_f1(prompt: str, gold: str, predicted: str) -> float:
    """EDIT-F1: token F1 between the gold and predicted edits of the prompt question.

    An edit is the multiset of ``[DELETED]`` and ``[ADDED]`` unigrams between the prompt and a
    rewrite (only the first ``|`` wording of the gold counts). As in the official script the score
    is 0 when either edit is empty, including when both are.
    """
    alternatives = gold_alternatives(gold)
    gold_text = question_text(alternatives[0]) if alternatives else ""
    return _edit_f1(question_text(prompt), gold_text, question_text(predicted))


def _edit_f1(prompt: str, gold: str, predicted: str) -> float:
    gold_edit = _edit_tokens(prompt, gold)
    pred_edit = _edit_tokens(prompt, predicted)
    if not gold_edit or not pred_edit:
        return 0.0
    return _greedy_f1(gold_edit, pred_edit, operator.eq)


def _edit_tokens(prompt: str, rewrite: str) -> list[str]:
    added, removed = multiset_edit(prompt.split(" "), rewrite.split(" "))
    return [f"[DELETED]{t}" for t in removed] + [f"[ADDED]{t}" for t in added]


# --------------------------------------------------------------------------- AmbigQA


@dataclass(frozen=True)
class AmbigScores:
    """Scores of one AmbigQA question; question metrics are None for answers-only predictions."""

    f1_ans: float
    f1_bleu: float | None
    f1_edit_f1: float | None
    multi: bool


@dataclass(frozen=True)
class AmbigReport(_Report):
    """Means over the gold questions: answer F1 over all and multi-answer ones, question metrics
    over multi-answer ones only (as the official script prints them)."""

    f1_ans: float | None
    f1_ans_multi: float | None
    f1_bleu: float | None
    f1_edit_f1: float | None
    n: int
    n_multi: int


@dataclass(frozen=True)
class _Rewrite:
    """A gold disambiguated question prepared for scoring: all wordings, and the first for edits."""

    answers: list[str]
    wordings: list[str]

    @property
    def first(self) -> str:
        return self.wordings[0] if self.wordings else ""


def score_ambig_example(example: AmbigExample, prediction: AmbigPrediction | None) -> AmbigScores:
    """Official per-question AmbigQA scores, max over annotations; a missing or empty prediction scores 0.

    A singleAnswer annotation gives its answer F1 to every metric, question metrics included.
    """
    has_questions = prediction is not None and prediction.questions is not None
    answers = prediction.answers if prediction is not None else []
    questions = [question_text(q) for q in prediction.questions] if has_questions else []
    prompt = question_text(example.question)
    best = {"ans": 0.0, "bleu": 0.0, "edit": 0.0}
    for ann in example.annotations:
        if ann.is_single:
            f1 = answer_f1([ann.answers], answers)
            best = {name: max(value, f1) for name, value in best.items()}
            continue
        best["ans"] = max(best["ans"], answer_f1([p.answers for p in ann.qa_pairs], answers))
        if has_questions:
            bleu, edit = _question_f1s(prompt, [_prepare(p) for p in ann.qa_pairs], answers, questions)
            best["bleu"], best["edit"] = max(best["bleu"], bleu), max(best["edit"], edit)
    return AmbigScores(
        f1_ans=best["ans"],
        f1_bleu=best["bleu"] if has_questions else None,
        f1_edit_f1=best["edit"] if has_questions else None,
        multi=example.is_multi,
    )


def _prepare(pair: QAPair) -> _Rewrite:
    return _Rewrite(answers=pair.answers, wordings=[question_text(a) for a in gold_alternatives(pair.question)])


def _question_f1s(prompt: str, gold: list[_Rewrite], answers: list[str], questions: list[str]) -> tuple[float, float]:
    """F1 BLEU-4 and F1 EDIT-F1 of one multipleQAs annotation.

    Candidate pairs are (gold, prediction) with matching answers; for each metric they are taken
    greedily by decreasing score (ties in gold-then-prediction order) and the matched scores summed.
    """
    candidates = [
        (i, j, bleu4(questions[j], g.wordings), _edit_f1(prompt, g.first, questions[j]))
        for i, g in enumerate(gold)
        for j, answer in enumerate(answers)
        if exact_match(g.answers, answer)
    ]
    n_gold, n_pred = len(gold), len(answers)
    bleu = _matched_f1([(i, j, b) for i, j, b, _ in candidates], n_gold, n_pred)
    edit = _matched_f1([(i, j, e) for i, j, _, e in candidates], n_gold, n_pred)
    return bleu, edit


def _matched_f1(candidates: list[tuple[int, int, float]], n_gold: int, n_pred: int) -> float:
    used_gold: set[int] = set()
    used_pred: set[int] = set()
    total = 0.0
    for i, j, score in sorted(candidates, key=operator.itemgetter(2), reverse=True):
        if i not in used_gold and j not in used_pred:
            used_gold.add(i)
            used_pred.add(j)
            total += score
    return _f1(total, n_gold, n_pred)


def score_ambigqa(examples: Sequence[AmbigExample], predictions: Mapping[str, AmbigPrediction]) -> AmbigReport:
    """Official AmbigQA report over ``examples``; question metrics are None for answers-only files."""
    full_task = any(p.questions is not None for p in predictions.values())
    scores = [score_ambig_example(ex, predictions.get(ex.id)) for ex in examples]
    multi = [s for s in scores if s.multi]
    return AmbigReport(
        f1_ans=_mean([s.f1_ans for s in scores]),
        f1_ans_multi=_mean([s.f1_ans for s in multi]),
        f1_bleu=_mean([s.f1_bleu or 0.0 for s in multi]) if full_task else None,
        f1_edit_f1=_mean([s.f1_edit_f1 or 0.0 for s in multi]) if full_task else None,
        n=len(scores),
        n_multi=len(multi),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


# --------------------------------------------------------------------------- NQ-open


@dataclass(frozen=True)
class NQReport(_Report):
    """NQ-open exact match over the gold questions."""

    em: float | None
    n: int


def score_nq_open(examples: Sequence[NQExample], predictions: Mapping[str, str]) -> NQReport:
    """Exact match (max over gold answers); a missing prediction scores 0."""
    hits = [ex.id in predictions and exact_match(ex.answers, predictions[ex.id]) for ex in examples]
    return NQReport(em=_mean([float(h) for h in hits]), n=len(hits))


# --------------------------------------------------------------------------- ASQA


class Reader(Protocol):
    """Answers a disambiguated question from a passage (ASQA's Disambig-F1 uses a RoBERTa reader)."""

    name: str

    def __call__(self, question: str, context: str) -> str: ...


@dataclass(frozen=True)
class ASQAReport(_Report):
    """ASQA means over questions; ``dr = sqrt(disambig_f1 * rouge_l)`` of the means, as ASQA does."""

    rouge_l: float | None
    str_em: float | None
    disambig_f1: float | None
    dr: float | None
    n: int
    reader: str


def punkt_sentences(text: str) -> list[str]:
    """ROUGE-Lsum's sentences, as ``nltk.sent_tokenize`` finds them, or untrained Punkt when its model is absent."""
    return _sentence_splitter()(text)


@functools.cache
def _sentence_splitter() -> Callable[[str], list[str]]:
    import nltk

    try:
        nltk.sent_tokenize("Probe. Sentence.")
        return nltk.sent_tokenize
    except LookupError:
        from nltk.tokenize.punkt import PunktSentenceTokenizer

        return PunktSentenceTokenizer().tokenize


def rouge_l(prediction: str, references: Sequence[str]) -> float:
    """ASQA ROUGE-L: rougeLsum F-measure with Porter stemming, best over references.

    Texts are lowercased and split into sentences joined by newlines, which rougeLsum expects.
    """
    from rouge_score import rouge_scorer

    if not prediction.strip() or not references:
        return 0.0
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    hyp = _sentence_lines(prediction)
    return max(scorer.score(_sentence_lines(ref), hyp)["rougeLsum"].fmeasure for ref in references)


def _sentence_lines(text: str) -> str:
    return "\n".join(punkt_sentences(text.lower()))


def str_em(short_answers: Sequence[Sequence[str]], long_answer: str) -> float:
    """ASQA STR-EM: fraction of gold short answers (each a list of aliases) of which some alias,
    normalised, is a substring of the normalised long answer."""
    context = normalize_answer(long_answer)
    found = [any(normalize_answer(alias) in context for alias in aliases) for aliases in short_answers]
    return _mean([float(f) for f in found]) or 0.0


def squad_f1(gold: str, predicted: str) -> float:
    """SQuAD token F1 of normalised tokens; 1 when both are empty, 0 when only one is."""
    gold_tokens, pred_tokens = normalize_answer(gold).split(), normalize_answer(predicted).split()
    if not gold_tokens or not pred_tokens:
        return float(gold_tokens == pred_tokens)
    same = sum((Counter(gold_tokens) & Counter(pred_tokens)).values())
    return _f1(same, len(gold_tokens), len(pred_tokens))


def disambig_f1(qa_pairs: Sequence[QAPair], long_answer: str, reader: Reader) -> float:
    """ASQA Disambig-F1: the reader answers each disambiguated question from the long answer;
    mean over questions of the best SQuAD F1 against the gold short answers."""
    f1s = [max(squad_f1(a, reader(p.question, long_answer)) for a in p.answers) for p in qa_pairs]
    return _mean(f1s) or 0.0


def disambig_reader_label(reader: Reader) -> str:
    """What Disambig-F1's QA reader is called in a report: its ``name``, else its function or class name."""
    return getattr(reader, "name", None) or getattr(reader, "__name__", type(reader).__name__)


def score_asqa(examples: Sequence[ASQAExample], predictions: Mapping[str, str], reader: Reader) -> ASQAReport:
    """ASQA report; a missing long answer is scored as the empty string."""
    rows = [_asqa_row(ex, predictions.get(ex.id, ""), reader) for ex in examples]
    rouge, em, f1 = (_mean([row[m] for row in rows]) for m in range(3))
    dr = math.sqrt(rouge * f1) if rouge is not None and f1 is not None else None
    return ASQAReport(rouge_l=rouge, str_em=em, disambig_f1=f1, dr=dr, n=len(rows), reader=disambig_reader_label(reader))


def _asqa_row(example: ASQAExample, long_answer: str, reader: Reader) -> tuple[float, float, float]:
    return (
        rouge_l(long_answer, example.long_answers),
        str_em([p.answers for p in example.qa_pairs], long_answer),
        disambig_f1(example.qa_pairs, long_answer, reader),
    )


# --------------------------------------------------------------------------- MEQ contrast consistency


@dataclass(frozen=True)
class RetrievalRun:
    """Passage ids retrieved for one question, best first, and its gold passage ids if known."""

    ranked: list[str]
    gold: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ContrastGroup:
    """A question and its minimally edited rewrites (MEQ), each with its retrieval."""

    original: RetrievalRun
    rewrites: list[RetrievalRun]


@dataclass(frozen=True)
class ContrastReport(_Report):
    """``overlap``: mean top-k Jaccard over (question, rewrite) pairs; ``hit_at_k`` and ``mrr``:
    means over every question and rewrite that has gold ids (None when none has)."""

    overlap: float | None
    hit_at_k: float | None
    mrr: float | None
    k: int
    n_pairs: int
    n_with_gold: int


def topk_jaccard(a: Sequence[str], b: Sequence[str], k: int) -> float:
    """Jaccard similarity of the top-k id sets, ``|A & B| / |A | B|``; 1 when both are empty."""
    top_a, top_b = set(a[:k]), set(b[:k])
    union = top_a | top_b
    return len(top_a & top_b) / len(union) if union else 1.0


def hit_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """1 when a gold id is among the top k, else 0."""
    gold_ids = set(gold)
    return float(any(pid in gold_ids for pid in ranked[:k]))


def reciprocal_rank(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """1 / rank of the first gold id within the top k (MRR@k per question), 0 when none."""
    gold_ids = set(gold)
    return next((1 / rank for rank, pid in enumerate(ranked[:k], 1) if pid in gold_ids), 0.0)


def contrast_consistency(groups: Sequence[ContrastGroup], k: int = 5) -> ContrastReport:
    """Retrieval consistency between questions and their minimal edits, and accuracy where gold is known."""
    overlaps = [topk_jaccard(g.original.ranked, r.ranked, k) for g in groups for r in g.rewrites]
    judged = [run for g in groups for run in (g.original, *g.rewrites) if run.gold]
    return ContrastReport(
        overlap=_mean(overlaps),
        hit_at_k=_mean([hit_at_k(run.ranked, run.gold, k) for run in judged]),
        mrr=_mean([reciprocal_rank(run.ranked, run.gold, k) for run in judged]),
        k=k,
        n_pairs=len(overlaps),
        n_with_gold=len(judged),
    )


def score_files(task: str, data: str, pred: str) -> dict:
    """Official ``ambigqa`` or ``nq-open`` scores of a prediction file against a gold file."""
    from ambigdemo.evaluation import datasets

    if task == "ambigqa":
        return score_ambigqa(datasets.load_ambignq(data), datasets.load_ambig_predictions(pred)).to_dict()
    return score_nq_open(datasets.load_nq_open(data), datasets.load_answer_predictions(pred)).to_dict()
