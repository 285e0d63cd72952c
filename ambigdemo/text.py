"""Text utilities shared by the stages and the metrics: normalisation, tokenisation, edits."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = set(string.punctuation)

# Tokens that the PTB tokenizer of pycocoevalcap removes after tokenising (its PUNCTUATIONS list).
PTB_PUNCTUATION = {
    "''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
    ".", "?", "!", ",", ":", "-", "--", "...", ";",
}
_PTB_TOKEN = re.compile(
    r"""(?x)
    (?:[A-Za-z]\.){2,}            # abbreviations: u.s.
    | \d+(?:[.,:]\d+)+            # numbers with separators: 1,000  3.5  10:30
    | n't | N'T                   # contraction tail
    | '(?:s|m|d|ll|re|ve|S|M|D|LL|RE|VE)\b
    | \w+(?=n't\b)                # the word before n't
    | [\w]+(?:[-'][\w]+)*         # words, hyphenated words
    | \.\.\. | -- | ``| ''
    | [^\w\s]                     # any other symbol
    """,
    re.UNICODE,
)


def normalize_answer(s: str) -> str:
    """SQuAD/AmbigQA answer normalisation: lowercase, drop punctuation and articles, squeeze spaces."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def ptb_tokenize(s: str) -> list[str]:
    """Lowercased PTB-style tokens with punctuation removed, as the official AmbigQA script sees them."""
    tokens = _PTB_TOKEN.findall(s.replace("\u2019", "'").replace('"', " '' "))
    return [t.lower() for t in tokens if t not in PTB_PUNCTUATION]


def words(s: str) -> list[str]:
    """Surface words and punctuation of a question, keeping case, for showing edits."""
    return re.findall(r"\w+(?:[-'’]\w+)*|[^\w\s]", s, re.UNICODE)


def multiset_edit(prompt: list[str], rewrite: list[str]) -> tuple[list[str], list[str]]:
    """Tokens removed from ``prompt`` and added in ``rewrite``, as multisets (AmbigQA's edit)."""
    p, r = Counter(prompt), Counter(rewrite)
    only_p, only_r = p - r, r - p
    removed = [t for t in prompt if _take(only_p, t)]
    added = [t for t in rewrite if _take(only_r, t)]
    return added, removed


def _take(counter: Counter, token: str) -> bool:
    if counter[token] > 0:
        counter[token] -= 1
        return True
    return False
