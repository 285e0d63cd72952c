"""The question, analysed once: its words, the answer type it asks for, the superlatives and years it
names. Every step that reads the question (the readers, their checks, the rewrite) shares one
:class:`Question` instead of normalising the text again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ambigdemo.text import normalize_answer, words

STOPWORDS = frozenset(
    """a an the of in on at to for from by with and or is are was were be been being do does did has have had
    who whom whose what which when where why how many much long old first last new current
    it its this that these those his her their there as into about than then not no
    sing sings sang sung play plays played win wins won make made get gets got come came go goes went""".split()
)
PERSON = {"PERSON"}
GROUP = {"ORG", "NORP"}
PLACE = {"GPE", "LOC", "FAC"}
TIME = {"DATE", "TIME"}
NUMBER = {"CARDINAL", "QUANTITY", "MONEY", "PERCENT"}
THING = {"WORK_OF_ART", "EVENT", "PRODUCT", "LAW", "LANGUAGE", "ORG", "NORP", "GPE", "LOC", "FAC", "PERSON"}


@dataclass(frozen=True)
class QuestionType:
    """The answer types a question asks for, from its wh-phrase, with a prior for each spaCy label."""

    wh: str
    labels: dict[str, float]
    counted: str = ""


def _priors(strong: set[str], weak: set[str] = frozenset()) -> dict[str, float]:
    return {**{label: 0.5 for label in weak}, **{label: 1.0 for label in strong}}


def question_type(question: str) -> QuestionType:
    """Map the wh-phrase to spaCy entity labels (AmbigQA's questions are mostly who/when/where/how many)."""
    q = question.lower()
    rules = [
        (r"\bhow (many|much)\b", "how many", _priors(NUMBER)),
        (r"\bhow (long|old|tall|far|big|high)\b", "how long", _priors(NUMBER | TIME)),
        (r"\b(what|which) (year|date|day|month|century|decade|time)\b|\bwhen\b", "when", _priors(TIME)),
        (r"\bwhere\b|\b(what|which) (city|country|state|place|continent|town|region|capital)\b", "where", _priors(PLACE, {"ORG"})),
        (r"\bcapital\b", "where", _priors(PLACE)),
        (r"\bwho(m|se)?\b", "who", _priors(PERSON, {"ORG"})),
    ]
    for pattern, wh, labels in rules:
        if re.search(pattern, q):
            return QuestionType(wh, labels, _counted_noun(q) if wh == "how many" else "")
    return QuestionType("what", _priors(THING - {"NORP"}, NUMBER | TIME | {"NORP"}))


def _counted_noun(question: str) -> str:
    """The head of the phrase after 'how many' ('how many Super Bowl rings does' -> 'ring'), stemmed."""
    after = re.split(r"\bhow many\b", question, maxsplit=1)
    phrase = []
    for word in re.findall(r"\w+", after[1]) if len(after) > 1 else []:
        if word in STOPWORDS:
            break
        phrase.append(word)
    return stem(phrase[-1]) if phrase else ""


def content_words(text: str) -> set[str]:
    """Lowercased non-stopword tokens, lightly stemmed so 'wrote'/'written' still differ but 'songs'/'song' match."""
    return {stem(w) for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS}


def words_without_possessives(text: str) -> set[str]:
    """:func:`content_words` of ``text`` with its possessives dropped ("Obama's wife" -> obama, wife)."""
    return content_words(re.sub(r"['’]s\b", "", text))


def stem(word: str) -> str:
    for suffix in ("'s", "ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


SUPERLATIVE = re.compile(r"\b([a-z]{2,}est|most|least)\b")
# "-est" words that do not rank anything, or rank by date ("the latest season"), which a passage need not say
NOT_RANKING = frozenset(
    "midwest northwest southwest interest forest request contest quest harvest protest guest chest honest modest "
    "everest conquest priest arrest crest digest bequest inquest latest newest".split()
)
WH_WORDS = ("who", "whom", "whose", "what", "which", "when", "where", "why", "how")
TYPED_WH = ("what", "which")  # "what year", "which river": a rewrite may ask with these instead of the prompt's word
YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


def superlatives(text: str) -> frozenset[str]:
    """The superlatives a text uses ("largest", "most"), less words that only end like one."""
    return frozenset(m.group(1) for m in SUPERLATIVE.finditer(text.lower())) - NOT_RANKING


@dataclass(frozen=True)
class Question:
    """A question as every step reads it: its text, its normalised form and content words, the answer
    type it asks for, and the superlatives and years it names."""

    text: str
    normalized: str
    words: frozenset[str]
    type: QuestionType
    superlatives: frozenset[str]
    years: frozenset[str]
    wh_word: str  # the first question word as written, lower-cased ("who", "which"); "" when none

    @classmethod
    def of(cls, question: "Question | str") -> "Question":
        """The analysed question (``question`` itself when it already is one)."""
        if isinstance(question, Question):
            return question
        return cls(
            text=question,
            normalized=normalize_answer(question),
            words=frozenset(content_words(question)),
            type=question_type(question),
            superlatives=superlatives(question),
            years=frozenset(YEAR.findall(question)),
            wh_word=next((w for w in (t.lower() for t in words(question)) if w in WH_WORDS), ""),
        )

    @property
    def asks_person(self) -> bool:
        return self.type.wh == "who"

    def asks_as(self, rewrite: "Question | str") -> bool:
        """``rewrite`` asks with this question's question word, or with a typed "what"/"which" phrase, or
        this question has none."""
        rewritten = Question.of(rewrite).wh_word
        return rewritten == self.wh_word or not self.wh_word or rewritten in TYPED_WH
