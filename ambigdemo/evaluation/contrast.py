"""Contrast consistency on minimally edited questions (MEQ; Zhang et al. 2023), built from AmbigNQ.

A contrast pair is two disambiguated questions of one AmbigNQ prompt whose answers differ ("Who
played Batman in the 1989 film?" / "... in the 2005 film?"): nearly the same words, different
answers, as MEQ-AmbigQA's 1,050 pairs are derived from AmbigQA. A pair is kept when both sides'
answers are in the corpus: a passage that shares two of the question's content words contains an alias.

Per side, the candidates are the *positive* passage (of the passages containing an answer alias,
the one BM25 ranks first for that side's question) and the 49 best BM25 passages that contain none
of its aliases (hard negatives), so every retriever ranks the same 50 passages. Reported, as in the
MEQ paper: the positive's mean rank (MR) and reciprocal rank (MRR) among the 50, retrieval recall@k
over the whole index (an answer-bearing passage in the top k), the top-k overlap of the two sides'
passages (lower: the retriever tells them apart), and end-to-end answer accuracy on each side and on
both sides of a pair.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ambigdemo.evaluation.datasets import AmbigExample
from ambigdemo.evaluation.metrics import answer_shown
from ambigdemo.evaluation.support import SupportIndex
from ambigdemo.runtimes.lexical import LexicalIndex
from ambigdemo.stages.question import Question, content_words
from ambigdemo.text import normalize_answer, phrase_keys, states_any
from ambigdemo.types import Passage

TASK = "contrast"
CANDIDATES = 50
PER_PROMPT = 3
KS = (1, 5, 20)
OVERLAP_K = (5, 20)
BM25_DEPTH = 1000
MIN_SHARED = 2  # one shared word lets "24" in an epilepsy article answer a TV season's episode count


@dataclass(frozen=True)
class Side:
    question: str
    answers: list[str]  # aliases of its one answer
    positive: str  # passage id
    candidates: list[str]  # passage ids, the positive first


@dataclass(frozen=True)
class ContrastPair:
    id: str
    prompt: str
    a: Side
    b: Side

    @classmethod
    def from_dict(cls, d: dict) -> "ContrastPair":
        return cls(d["id"], d["prompt"], Side(**d["a"]), Side(**d["b"]))


def build(examples: Sequence[AmbigExample], passages: Sequence[Passage], per_prompt: int = PER_PROMPT) -> list[ContrastPair]:
    """The contrast pairs of ``examples`` (first multi-answer annotation), in file order, at most ``per_prompt`` each."""
    support = SupportIndex(passages)
    candidates = []
    for example in examples:
        ann = next((a for a in example.annotations if not a.is_single and a.qa_pairs and len(a.qa_pairs) > 1), None)
        if ann is None:
            continue
        sides = [(qa.question.split("|")[0].strip(), qa.answers) for qa in ann.qa_pairs]
        keys = [{normalize_answer(a) for a in answers} - {""} for _, answers in sides]
        chosen = [(i, j) for i in range(len(sides)) for j in range(i + 1, len(sides)) if keys[i] and keys[j] and not keys[i] & keys[j]]
        candidates += [(example, sides[i], sides[j], n) for n, (i, j) in enumerate(chosen)]
    questions = sorted({s[0] for _, a, b, _ in candidates for s in (a, b)})
    bm25 = LexicalIndex.build(passages)
    ranked = dict(zip(questions, ([row for row, _ in rows] for rows in bm25.ranked(questions, BM25_DEPTH)))) if questions else {}
    pairs: list[ContrastPair] = []
    per: dict[str, int] = {}
    for example, a, b, n in tqdm(candidates, desc="contrast pairs"):
        if per.get(example.id, 0) >= per_prompt:
            continue
        sa, sb = (_side(q, answers, support, ranked[q]) for q, answers in (a, b))
        if sa is None or sb is None:
            continue
        per[example.id] = per.get(example.id, 0) + 1
        pairs.append(ContrastPair(f"{example.id}#{n}", example.question, sa, sb))
    return pairs


def _side(question: str, answers: list[str], support: SupportIndex, ranked: list[int]) -> Side | None:
    """The side's candidates, or None when no passage shares ``MIN_SHARED`` of the question's content
    words (other than the answer's) and contains one of its aliases."""
    evidence = _evidence(question, answers, support)
    if not evidence:
        return None
    positive = next((support.passages[n].id for n in ranked if support.passages[n].id in evidence), None) or sorted(evidence)[0]
    keys = phrase_keys(answers)
    negatives = [support.passages[n].id for n in ranked if not any(k in support.texts[n] for k in keys)][: CANDIDATES - 1]
    return Side(question, list(answers), positive, [positive] + negatives)


def save(pairs: Sequence[ContrastPair], path: Path) -> None:
    from ambigdemo.files import replace_text

    replace_text(path, "".join(json.dumps(asdict(p), ensure_ascii=False) + "\n" for p in pairs))


def load(path: Path) -> list[ContrastPair]:
    return [ContrastPair.from_dict(json.loads(line)) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def retrieval(retriever, pairs: Sequence[ContrastPair]) -> dict:
    """MR/MRR of the positive among each side's candidates, recall@k, and top-k overlap of a pair's sides."""
    sides = [s for p in pairs for s in (p.a, p.b)]
    queries = retriever.embedder.encode_query([s.question for s in sides])
    index = retriever.index
    ranks = []
    for side, q in zip(sides, queries):
        scores = index.vectors_of(side.candidates) @ q
        ranks.append(1 + int((scores > scores[0]).sum()))
    hits = index.search(queries, max(KS + OVERLAP_K))
    recall = recall_at(hits, [s.answers for s in sides])
    overlap = {k: [len({p.id for p in hits[2 * n][:k]} & {p.id for p in hits[2 * n + 1][:k]}) / k for n in range(len(pairs))] for k in OVERLAP_K}
    mean = lambda xs: round(float(np.mean(xs)), 4) if len(xs) else 0.0  # noqa: E731
    return {
        "MR": mean(ranks),
        "MRR": mean([1 / r for r in ranks]),
        **recall,
        **{f"overlap@{k}": mean(v) for k, v in overlap.items()},
    }


def recall_at(hits: Sequence[Sequence[Passage]], answers: Sequence[Sequence[str]]) -> dict[str, float]:
    """Retrieval recall@k (DPR's): the share of questions with a passage containing an answer alias in the top k."""
    firsts = []
    for found, aliases in zip(hits, answers):
        firsts.append(next((n for n, p in enumerate(found) if states_any([p], aliases)), None))
    n = len(firsts) or 1
    return {f"recall@{k}": round(sum(f is not None and f < k for f in firsts) / n, 4) for k in KS}


def supported(questions: Sequence[tuple[str, list[str]]], passages: Sequence[Passage]) -> list[tuple[str, list[str]]]:
    """The (question, aliases) the corpus answers by the contrast set's rule (``MIN_SHARED`` words and an alias)."""
    support = SupportIndex(passages)
    return [(q, a) for q, a in questions if _evidence(q, a, support)]


def _evidence(question: str, answers: list[str], support: SupportIndex) -> set[str]:
    qwords = Question.of(question).words - content_words(" ".join(answers))
    related = [n for n in support.related(question) if len(qwords & support.words[n]) >= min(MIN_SHARED, len(qwords))]
    return set(support.evidence(question, answers, related))


def end_to_end(answer: Callable[[str], list[str]], pairs: Sequence[ContrastPair]) -> tuple[dict, list[dict]]:
    """Answer accuracy on each side and on both sides of a pair, and whether the answer changed."""
    rows = []
    for pair in tqdm(pairs, desc="contrast: answering"):
        shown = [answer(s.question) for s in (pair.a, pair.b)]
        right = [answer_shown([s.answers], a) for s, a in zip((pair.a, pair.b), shown)]
        changed = {normalize_answer(x) for x in shown[0]} != {normalize_answer(x) for x in shown[1]}
        rows.append({"id": pair.id, "a": shown[0], "b": shown[1], "right": right, "changed": changed})
    n = len(rows) or 1
    return {
        "side_accuracy": round(sum(sum(r["right"]) for r in rows) / (2 * n), 4),
        "pair_accuracy": round(sum(all(r["right"]) for r in rows) / n, 4),
        "answer_changed": round(sum(r["changed"] for r in rows) / n, 4),
    }, rows


def run(load_pipeline: Callable[[], object], data: Path, out: Path, limit: int | None = None) -> dict:
    """``evaluate --task contrast``: the contrast set of ``data`` scored end to end (its first ``limit`` pairs)."""
    return evaluate(load_pipeline(), data, out, limit=limit)


def evaluate(pipeline, data: Path, out: Path, end_to_end_answers: bool = True, limit: int | None = None) -> dict:
    """Build (or reuse ``out/contrast-set.jsonl``) the contrast set of ``data`` and score ``pipeline`` on it."""
    from ambigdemo.evaluation.datasets import load_ambignq

    cache = out / "contrast-set.jsonl"
    if cache.is_file():
        pairs = load(cache)
    else:
        pairs = build(load_ambignq(data), pipeline.retriever.index.passages)
        save(pairs, cache)
    pairs = pairs[:limit]
    report = {"data": str(data), "pairs": len(pairs), "prompts": len({p.prompt for p in pairs}), "retrieval": retrieval(pipeline.retriever, pairs)}
    if end_to_end_answers:
        report["end_to_end"], rows = end_to_end(lambda q: [i.answer for i in pipeline.ask(q).interpretations], pairs)
        report["rows"] = rows
    return report


def markdown(report: dict) -> str:
    r = report["retrieval"]
    cells = [f"{report['pairs']} ({report['prompts']})", f"{r['MR']:.2f}", f"{r['MRR']:.3f}"]
    cells += [f"{100 * r[f'recall@{k}']:.1f}" for k in KS] + [f"{100 * r[f'overlap@{k}']:.1f}" for k in OVERLAP_K]
    e = report.get("end_to_end")
    cells += [f"{100 * e['side_accuracy']:.1f} / {100 * e['pair_accuracy']:.1f} / {100 * e['answer_changed']:.1f}"] if e else ["not run"]
    head = ["pairs (prompts)", f"MR (of {CANDIDATES})", "MRR", *(f"R@{k}" for k in KS), *(f"overlap@{k}" for k in OVERLAP_K),
            "answer right: side / both sides / answer changed"]
    return "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n| " + " | ".join(cells) + " |"
