"""Text utilities shared by the stages and the metrics: normalisation, tokenisation, edits."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[\u201c\u2018]?[A-Z0-9])")
# A full stop before a capital that ends no sentence: after an initial ("J. K. Rowling", "Arthur C. Clarke"; not I, V
# or X, which end "World War I." and "Pius X.", nor a compass point after a number, "66° 34' N."), or after a title
# written before a name ("St. Pancras", "Dr. Watson")
_NOT_AN_END = re.compile(r"(?:(?<![\d°'′″’]\s)(?<![\w.])[A-HJ-UWYZ]|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Ft|Gen|Col|Capt|Lt|Sgt|Rev|Fr))\.$")
_PUNCT = set(string.punctuation)

# Tokens that the PTB tokenizer of pycocoevalcap removes after tokenising (its PUNCTUATIONS list).
PTB_PUNCTUATION = {
    "''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
    ".", "?", "!", ",", ":", "-", "--", "...", ";",
}
# PTB escapes as Stanford's tokenizer writes them with -lowerCase: the lowercased bracket tokens
# no longer match PTB_PUNCTUATION, so pycocoevalcap keeps them (e.g. "-lrb-").
_PTB_ESCAPES = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-", "£": "#", "€": "$"}
_PTB_CHARS = str.maketrans({"\u2019": "'", "\u2018": "'", '"': " '' ", "\u2013": " -- ", "\u2014": " -- ", "\u200b": ""})
_PTB_SPLIT_WORDS = re.compile(r"(?i)\b(can)(not)\b|\b(gim|lem)(me)\b|\b(gon|wan)(na)\b|\b(got)(ta)\b")
_CLITIC_TAIL = r"(?:[sSmMdD]|ll|LL|re|RE|ve|VE)\b"
_PTB_TOKEN = re.compile(
    rf"""(?x)
    (?:[A-Za-z]\.){{2,}}                                  # abbreviations: u.s.
    | [nN]'[tT] | '{_CLITIC_TAIL}                         # clitics: n't 's 'll
    | \w+(?=[nN]'[tT]\b)                                 # the word before n't
    | (?:\b[A-Za-z]'(?!{_CLITIC_TAIL}))?                  # o'neill, d'arthur
      \w+(?:(?:[-/.]|(?<=\d)[,:](?=\d)|(?<=[A-Z])&(?=[A-Z]))\w+)*  # well-known, 1,000, 10:30, R&B
    | \.\.\. | -- | `` | ''
    | [^\w\s]                                            # any other symbol
    """,
)



def split_sentences(text: str) -> list[str]:
    """The sentences of a passage: a break after ".", "!" or "?" before a capital, a digit or an opening
    quote or bracket, but not after an initial or a title (:data:`_NOT_AN_END`: "J. K. Rowling" and "St. Pancras"
    stay whole, "3.5 km" too). The one sentence splitter of the answer path and of the corpus's passages; a
    paragraph's own sentences are :func:`ambigdemo.stages.summarize.paragraph_sentences`."""
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        if not _NOT_AN_END.search(text[max(0, end.start() - 8) : end.start()]):
            pieces.append(text[start : end.start()])
            start = end.end()
    pieces.append(text[start:])
    return [s.strip() for s in pieces if s.strip()]

def normalize_answer(s: str) -> str:
    """SQuAD/AmbigQA answer normalisation: lowercase, drop punctuation and articles, squeeze spaces."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


NUMBER_WORDS = dict(
    zip(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split(),
        map(str, range(21)),
    )
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")  # looser than split_sentences: where mentions() looks for a name's words
_LIST_ITEMS = re.compile(r"\s*(?:,\s*(?:and|or)?|\b(?:and|or)\b|&)\s*")


def phrase_keys(aliases: Iterable[str]) -> list[str]:
    """Normalised aliases with a space each side: ``key in passages_text(...)`` matches whole words only."""
    return [f" {k} " for k in dict.fromkeys(map(normalize_answer, aliases)) if k]


def passages_text(passages: Iterable) -> str:
    """The titles and texts of ``passages``, normalised, with a space each side (for :func:`phrase_keys`)."""
    return f" {normalize_answer(' '.join(f'{p.title} {p.text}' for p in passages))} "


def states_any(passages: Iterable, aliases: Iterable[str]) -> bool:
    """Whether the passages state one of ``aliases`` as a whole-word phrase, after normalisation."""
    text = passages_text(passages)
    return any(k in text for k in phrase_keys(aliases))


def numbers_as_digits(text: str) -> str:
    return " ".join(NUMBER_WORDS.get(w, w) for w in text.split())


def mentions(text: str, answer: str) -> bool:
    """Whether ``text`` states ``answer``: its normalised form (case, punctuation, articles, number words
    as digits) is a phrase of the text, or, for a name of 2+ words, every word is in one sentence of it
    ("Leonardo da Vinci" in "Leonardo di ser Piero da Vinci", "Donald Trump" in "Donald John Trump")."""
    key = numbers_as_digits(normalize_answer(answer))
    if not key:
        return False
    if f" {key} " in f" {numbers_as_digits(normalize_answer(text))} ":
        return True
    words = set(key.split())
    return len(words) > 1 and any(words <= set(numbers_as_digits(normalize_answer(s)).split()) for s in _SENTENCES.split(text))


def names_each(text: str, answer: str) -> bool:
    """Whether ``text`` states ``answer`` (:func:`mentions`) or, for a list ("Alexander Fleming, Howard
    Florey and Ernst Chain"), each of its items, wherever it names them."""
    items = list_items(answer)
    return mentions(text, answer) or (len(items) > 1 and all(mentions(text, i) for i in items))


def list_items(answer: str) -> list[str]:
    """The items of a list answer ("A, B and C" -> A, B, C); a single answer is its own one item."""
    return [i for i in _LIST_ITEMS.split(answer) if i]


def ptb_tokenize(s: str) -> list[str]:
    """Lowercased PTB-style tokens with punctuation removed, as the official AmbigQA script sees them.

    Mirrors Stanford PTBTokenizer 3.4.1 (``-lowerCase``) plus pycocoevalcap's punctuation filter:
    clitics split (``john 's``, ``do n't``, ``can not``), brackets escaped and kept (``-lrb-``).
    """
    s = _PTB_SPLIT_WORDS.sub(lambda m: " ".join(g for g in m.groups() if g), s.translate(_PTB_CHARS))
    tokens = [_PTB_ESCAPES.get(t, t).lower() for t in _PTB_TOKEN.findall(s)]
    return [t for t in tokens if t not in PTB_PUNCTUATION]


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


# Control characters (but tab and newline) and the bidirectional embeddings, overrides and isolates:
# shown as typed they reorder the text around them (a question ending in U+202E garbles the page).
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` without control and bidirectional-override characters (nothing else changes)."""
    return _INVISIBLE.sub("", text)


def word_diff(prompt: str, rewrite: str) -> list[tuple[str, str]]:
    """Aligned word-level diff for display: ``("=", w)``, ``("+", w)`` or ``("-", w)`` in reading order."""
    from difflib import SequenceMatcher

    a, b = words(prompt), words(rewrite)
    ops: list[tuple[str, str]] = []
    matcher = SequenceMatcher(a=[w.lower() for w in a], b=[w.lower() for w in b], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops += [("=", w) for w in b[j1:j2]]
            continue
        ops += [("-", w) for w in a[i1:i2]]
        ops += [("+", w) for w in b[j1:j2]]
    return ops
