"""Lexical retrieval: BM25 (``bm25s``) over an index's passages, title and text, English stopwords removed.

Kept in the index folder beside the vectors (``lexical/``, listed in its manifest), so a dense index and its
lexical twin load together and a change to either is caught the same way. Dense retrieval misses passages that
share the question's rare words but not its phrasing; BM25 ranks by those words (docs/experiments/best-first.md,
"A fourteenth pass").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path

from ambigdemo.types import Passage

FOLDER = "lexical"
LEXICAL_ID = f"bm25s-{version('bm25s')}"  # the manifest's record of what built it


def tokens(texts: list[str]):
    import bm25s  # imported when used: scipy with it takes a few tenths of a second

    return bm25s.tokenize(texts, stopwords="en", show_progress=False)


class LexicalIndex:
    """BM25 over passages in a fixed order: :meth:`ranked` answers with their rows."""

    def __init__(self, model, count: int):
        self.model, self.count = model, count

    @classmethod
    def build(cls, passages: Sequence[Passage]) -> "LexicalIndex":
        import bm25s

        model = bm25s.BM25()
        model.index(tokens([f"{p.title} {p.text}" for p in passages]), show_progress=False)
        return cls(model, len(passages))

    def save(self, folder: Path) -> list[str]:
        """Write the index into ``folder/lexical``; the written files' paths relative to ``folder``."""
        out = Path(folder) / FOLDER
        self.model.save(out, show_progress=False)
        return sorted(f"{FOLDER}/{p.name}" for p in out.iterdir() if p.is_file())

    @classmethod
    def load(cls, folder: Path, count: int) -> "LexicalIndex":
        """The index :meth:`save` wrote into ``folder`` (``count`` passages); OSError or ValueError when unreadable."""
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)
        model = bm25s.BM25.load(Path(folder) / FOLDER, show_progress=False)
        return cls(model, count)

    def ranked(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        """Each query's ``k`` best passages, best first, as (row, BM25 score); a score of 0 matches no word."""
        k = min(k, self.count)
        if not queries or k < 1:
            return [[] for _ in queries]
        rows, scores = self.model.retrieve(tokens(queries), k=k, show_progress=False)
        return [[(int(r), float(s)) for r, s in zip(row, score)] for row, score in zip(rows, scores)]
