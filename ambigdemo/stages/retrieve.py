"""Dense retrieval: embed the question (with the embedder's query prefix), search the passage index."""

from __future__ import annotations

from dataclasses import dataclass

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
        return self.index.search(self.embedder.encode_query(questions), k)
