"""The pipeline where the answers are given: AmbigQA's rewrite task with gold answers, and ASQA's paragraph
from gold rewrites and answers. Evaluation only; the answer path never calls these."""

from __future__ import annotations

from ambigdemo.pipeline import Pipeline, clean_question
from ambigdemo.stages.rewrite import edit_of, ground
from ambigdemo.text import states_any
from ambigdemo.types import Answer, Interpretation, Passage, Result


def disambiguate(pipeline: Pipeline, question: str, answers: list[str]) -> list[Interpretation]:
    """One rewrite per given answer, in order, from the retrieved passages that mention it (the LLM
    reader's rewrite first, when it reads); the prompt question itself where no checked edit
    singles the answer out (AmbigQA with gold answers)."""
    question = clean_question(question)
    passages = pipeline.retriever.search(question, pipeline.config.top_k)
    reader = pipeline.reader
    by_id = {p.id: p for p in passages}

    def propose(answer: Answer) -> str:
        """The LLM's rewrite from the answer's best passage (the top one if none mentions it)."""
        passage = by_id[answer.passages[0]] if answer.passages else passages[0]
        return reader.rewrite_for(question, passage, answer.text)

    return pipeline.rewriter.rewrite_gold(question, answers, passages, propose if reader is not None and passages else None)


def summarize_gold(pipeline: Pipeline, question: str, rewrites: list[str], answers: list[list[str]], evidence_k: int = 2,
                   depth: int = 1000) -> Result:
    """The paragraph for given rewrites and answers (aliases each): ASQA's setting on AmbigQA's gold.

    Passages: the prompt's top-k, then for each rewrite the best ``evidence_k`` of the top
    ``depth`` passages for the rewrite with its answer that contain one of its aliases. An answer
    is stated only if a passage contains it (it is then cited); the others are left out rather
    than stated without evidence.
    """
    question = clean_question(question)
    pairs = [(r, a) for r, a in zip(rewrites, answers) if a]
    hits = pipeline.retriever.batch_search([question] + [f"{r} {a[0]}" for r, a in pairs], max(pipeline.config.top_k, depth))
    ranked = hits[0][: pipeline.config.top_k]
    for (_, aliases), found in zip(pairs, hits[1:]):
        ranked += [p for p in found if states_any([p], aliases)][:evidence_k]
    unique: dict[str, Passage] = {}
    for p in ranked:
        unique.setdefault(p.id, p)
    passages = list(unique.values())
    result = Result(question=question, passages=passages)
    for rewrite, aliases in zip(rewrites, answers):
        grounded = next((g for g in (ground(a, rewrite, passages) for a in aliases) if g.passages), None)
        if grounded is not None:
            result.interpretations.append(
                Interpretation(rewrite, grounded.text, grounded.passages, grounded.score, edit_of(question, rewrite), "gold")
            )
    draft = None
    for draft in pipeline.summarizer.stream(question, result.interpretations, passages):
        pass
    if draft is not None:
        result.paragraph, result.paragraph_source = draft.text, draft.source
    return result
