"""Recall: which passages are read, and the answer a model's reply for one passage gives."""

from __future__ import annotations

import re

from ambigdemo.stages.question import STOPWORDS
from ambigdemo.types import Passage

NONE = re.compile(r"^\W*(none|no answer|unknown|not stated|n/?a)\b", re.I)
MAX_ANSWER_WORDS = 10
VERB_STARTS = frozenset("regarded known considered described called named located born founded".split())


def relevant(passages: list[Passage], relevance: float, min_score: float, limit: int) -> list[Passage]:
    """The passages worth reading: within ``relevance`` of the best retrieval score and above ``min_score``."""
    if not passages:
        return []
    top = max(p.score for p in passages)
    return [p for p in passages if p.score >= relevance * top and p.score >= min_score][:limit]


def beyond(passages: list[Passage], read: list[Passage], min_score: float, limit: int) -> list[Passage]:
    """Up to ``limit`` more passages above ``min_score``, in retrieval order, that ``read`` does not hold."""
    ids = {p.id for p in read}
    return [p for p in passages if p.id not in ids and p.score >= min_score][:limit]


def parse_reply(reply: str, names: bool = True) -> str | None:
    """The answer of a reply, "" for an explicit none, None when it is no answer (empty, a sentence).

    An apposition is cut ("Vatican City, an independent microstate ..." -> "Vatican City"); with
    ``names`` (a "who" question) a long answer must read as a name, not a clause.
    """
    text = reply.strip().split("\n")[0].strip(" \"'\u201c\u201d.;:")
    text = re.sub(r"^(the )?answer( is)?\s*[:\-]?\s*", "", text, flags=re.I).strip(" \"'\u201c\u201d.;:")
    if NONE.match(text):
        return ""
    head = text.split(", ")[0]
    if head != text and len(head.split()) <= 6:
        text = head
    if not text or len(text.split()) > MAX_ANSWER_WORDS or (names and not _name_like(text)):
        return None
    return text


def _name_like(text: str) -> bool:
    """Short answers pass; a longer one must read as a name or title ("Nuestra Señora de La Paz"), not a
    clause ("Regarded as the greatest singer of all time"): most of its content words capitalised or numbers."""
    words = text.split()
    if len(words) <= 3:
        return True
    content = [w for w in words if w.lower() not in STOPWORDS]
    named = [w for w in content if w[:1].isupper() or w[:1].isdigit()]
    return bool(content) and len(named) * 2 > len(content) and words[0].lower() not in VERB_STARTS
