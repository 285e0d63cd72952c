"""Retrieval: embed the question (with the embedder's query prefix), search the passage index; with the index's
BM25 twin, its best passage for the question joins them (marked ``lexical``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ambigdemo.runtimes.index import PassageIndex
from ambigdemo.runtimes.onnx import Embedder
from ambigdemo.types import Passage


@dataclass
class Retriever:
    """A searcher in Pyserini's sense: ``search(question, k)`` over one index with one query encoder."""

    embedder: Embedder
    index: PassageIndex

    def search(self, question: str, k: int = 8) -> list[Passage]:
        return self.batch_search([question], k)[0]

    def batch_search(self, questions: list[str], k: int = 8) -> list[list[Passage]]:
        """The ``k`` passages nearest each question, best first, each with its cosine score; where the index
        holds BM25 (:attr:`PassageIndex.lexical`), the passage BM25 ranks first is marked ``lexical``, and added
        last, with its cosine score, when the ``k`` lack it."""
        vectors = self.embedder.encode_query(questions)
        found = self.index.search(vectors, k)
        if self.index.lexical is None or k < 1:
            return found
        tops = [[row for row, score in ranked if score > 0] for ranked in self.index.lexical.ranked(questions, 1)]
        return [self._with_lexical(passages, top, vector) for passages, top, vector in zip(found, tops, vectors)]

    def _with_lexical(self, passages: list[Passage], top: list[int], vector: np.ndarray) -> list[Passage]:
        if not top:  # no word of the question is in any passage
            return passages
        best = self.index.passages.take(top)[0]
        if any(p.id == best.id for p in passages):
            return [replace(p, lexical=True) if p.id == best.id else p for p in passages]
        score = float(self.index.vectors_of([best.id])[0] @ vector)
        return passages + [replace(best, score=score, lexical=True)]
