"""Verify: nothing the model says reaches the user unless its passage states it.

An answer must occur in its passage (or a normalised alias of it) and must not merely repeat the
question (a part of a longer name the question writes, or its words in another order, is no repeat:
:func:`~ambigdemo.stages.answers.renames_question`). Two checks on the question stay, each kept because, alone, it
lowered the wrong readings on the frozen test set (docs/experiments/question-shaped-checks.md): a superlative is not answered by a passage that ranks only
with an ordinal (:func:`outranked`), and a year the question names must be stated beside the answer
(:func:`other_year`).
"""

from __future__ import annotations

import re

from ambigdemo.stages.answers import bare_title, echoes_question, question_names, renames_question
from ambigdemo.stages.question import NOT_RANKING, YEAR, Question, content_words, stem
from ambigdemo.text import mentions, names_each, normalize_answer, numbers_as_digits, split_sentences
from ambigdemo.types import Passage

ORDINAL = r"(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"


def rejection(question: Question, answer: str, passage: Passage, least_coverage: float = 0.0) -> str | None:
    """Why ``answer``, read from ``passage``, may not be shown; None when it passes every check.
    ``least_coverage``: the share of the question's words a sentence stating it must hold (:func:`coverage`)."""
    if repeats_question(question, answer, passage):
        return "repeats the question"
    if not occurs_in(answer, passage):
        return "not in its passage"
    if least_coverage and coverage(question, answer, passage) < least_coverage:
        return "stated apart from the question's words"
    if outranked(question, passage):
        return "ranked only with an ordinal"
    if other_year(question, answer, passage):
        return "another year"
    return None


def repeats_question(question: Question, answer: str, passage: Passage) -> bool:
    """``answer`` only repeats the question (:func:`~ambigdemo.stages.answers.echoes_question`: "Bolivia" for the
    capital of Bolivia), unless it names something else the passage writes apart from the question's name
    (:func:`~ambigdemo.stages.answers.renames_question`, :func:`named_apart`: "Kano" for the capital of Kano State)."""
    if not echoes_question(answer, question):
        return False
    return not (renames_question(answer, question) and named_apart(question, answer, passage))


def named_apart(question: Question, answer: str, passage: Passage) -> bool:
    """Each name the question writes that shares a word with ``answer`` is written by the passage apart from the
    answer: the longer name the answer is part of ("Kano State" beside "Kano"), or the name itself outside the answer
    ("the Republic of Guatemala" beside "Guatemala City"; Benin City's lead writes "Benin" only in "Benin City")."""
    text = titled(passage)
    rest = re.sub(re.escape(answer), " ", text, flags=re.I)
    key = normalize_answer(answer)
    for name in question_names(question.text):
        if not content_words(name) & content_words(answer):
            continue
        longer = f" {key} " in f" {normalize_answer(name)} "
        if not mentions(text if longer else rest, name):
            return False
    return True


def titled(passage: Passage) -> str:
    """The passage's text after its title, as the checks read it."""
    return f"{passage.title}. {passage.text}" if passage.title else passage.text


def occurs_in(answer: str, passage: Passage) -> bool:
    """The answer is stated by the passage, its title included (:func:`~ambigdemo.text.mentions`)."""
    return mentions(titled(passage), answer)


# Words an answer may add around what its passage states: articles, linking words and hedges ("around the
# 7th century BC" for "the 7th century BC", "1271 to 1295" for "between 1271 and 1295")
LINKING = frozenset("a an the of to and or between from in on at by around about approximately roughly circa c ca".split())
_WORD = re.compile(r"\d[\d,.]*\d|\w+")


def _key(word: str) -> str:
    """A word as :func:`in_own_words` matches it: lower case, a number word as digits, a plural as its singular."""
    word = numbers_as_digits(word.lower().replace(",", ""))
    return word[:-1] if word.isalpha() and len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def in_own_words(answer: str, passage: Passage) -> str:
    """``answer`` in its passage's own words: itself when the passage states it (:func:`occurs_in`), else a
    run of one sentence's words that holds each of its words but :data:`LINKING`, in any order, with only
    :data:`LINKING` words between them ("82 kilometers" -> "82-kilometer", "1271 to 1295" -> "1271 and
    1295"; the shortest such run); itself when no sentence has one."""
    if occurs_in(answer, passage):
        return answer
    keys = [_key(w) for w in _WORD.findall(answer) if w.lower() not in LINKING]
    if not keys:
        return answer
    runs = []  # (words after the first, the run's text)
    for sentence in split_sentences(titled(passage)):
        words = [(m.start(), m.end(), _key(m.group()), m.group().lower() in LINKING) for m in _WORD.finditer(sentence)]
        for i, (start, _, first, _) in enumerate(words):
            if first not in keys:
                continue
            missing = list(keys)
            for length, (_, end, key, linking) in enumerate(words[i:]):
                if key in missing:
                    missing.remove(key)
                elif not linking:
                    break
                if not missing:
                    runs.append((length, sentence[start:end]))
                    break
    return min(runs)[1] if runs else answer


def states(answer: str, passage: Passage) -> bool:
    """The passage states the answer as shown: a list the reader composed ("Alexander Fleming, Howard
    Florey and Ernst Chain", the subject from the title) by each of its names (:func:`~ambigdemo.text.names_each`)."""
    return names_each(titled(passage), answer)


def stating(answer: str, passage: Passage) -> list[str]:
    """The passage's sentences that state the answer; all of them when the answer is the passage's subject."""
    about = normalize_answer(bare_title(passage.title)) == normalize_answer(answer)
    return [s for s in split_sentences(passage.text) if about or mentions(s, answer)]


def evidence(answer: str, passage: Passage) -> str:
    """The passage's first sentence that names ``answer`` (its first sentence when the answer is its subject)."""
    named = [s for s in split_sentences(passage.text) if mentions(s, answer)]
    return (named or stating(answer, passage) or [passage.text])[0]


def coverage(question: Question, answer: str, passage: Passage) -> float:
    """The largest share of the question's content words (less the answer's own) that the passage's
    title and one sentence stating the answer hold together: 1.0 for "Prayagraj" from "Prayagraj ... is
    the judicial capital of Uttar Pradesh", 0.33 for "1955" from "Lolita is a 1955 novel" asked when
    Don Quixote was published."""
    asked = question.words - content_words(answer)
    if not asked:
        return 1.0
    title = content_words(bare_title(passage.title))
    return max((len(asked & (title | content_words(s))) / len(asked) for s in stating(answer, passage)), default=0.0)


def outranked(question: Question, passage: Passage) -> bool:
    """The question asks for a superlative ("largest", "most populous") that the passage states only
    with another ordinal than the question's own ("the second-largest of the world's oceans" for the largest, "the
    third-largest city" for the second-largest): its subject is not the answer."""
    text = passage.text.lower()
    asked = ranks(question.text)
    for word in question.superlatives:
        ranked = [m for m in re.finditer(rf"\b{ORDINAL}[- ]{word}\b", text) if m.group().replace(" ", "-") not in asked]
        if ranked and len(ranked) == len(re.findall(rf"\b{word}\b", text)):
            return True
    return False


_RANKED = re.compile(rf"\b(?:{ORDINAL}[- ])?(?:[a-z]{{2,}}est|most|least|first|last|{ORDINAL})\b")
_OF_NAME = re.compile(r"\b([a-z]+) of (?:the )?([A-Z][\w'-]+)")


def ranks(text: str) -> set[str]:
    """The ranking words of ``text``, an ordinal kept with the superlative it qualifies ("second-largest", "first", "smallest")."""
    return {m.group().replace(" ", "-") for m in _RANKED.finditer(text.lower())} - NOT_RANKING


def ranks_otherwise(question: Question, answer: str, passage: Passage) -> bool:
    """The question ranks ("the longest", "the first", "the second-largest") and every sentence stating the answer
    ranks it another way only ("the fourth-longest", "the smallest", "the largest"): evidence that the passage
    mentions the answer in another relation."""
    asked = ranks(question.text)
    if not asked:
        return False
    sentences = stating(answer, passage)
    return bool(sentences) and all(ranks(s) and not ranks(s) & asked for s in sentences)


_PLACE = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
_ABOVE = re.compile(r"\b(?:after|behind|than)\b")
# Ranking words that rank by one measure ("the most populous" answers "the largest"); any other word is its own
_MEASURE = {"biggest": "largest", "most populous": "largest", "greatest": "largest", "tallest": "highest",
            "earliest": "first", "oldest": "first", "least populous": "smallest"}


def measure(rank: str, after: str = "") -> str:
    """What a ranking word ranks by, ``after`` the text that follows it: "largest" for "biggest" and "second-most
    populous", "first" for "second" (an ordinal alone ranks an order), "most common" for "most" before "common", else
    the word less its ordinal."""
    head = rank.split("-")[-1]
    if head in _PLACE or head[:-2].isdigit() or head == "last":
        return "first"
    if head in ("most", "least"):
        head = " ".join([head, *after.replace("-", " ").split()[:1]])
    return _MEASURE.get(head, head)


def place(rank: str) -> int:
    """The place a ranking word names: 2 for "second-largest" or "2nd", 1 for "largest", "most" or "first"; -1 for
    "last" and "least" (the other end)."""
    head = rank.split("-")[0]
    if head in _PLACE:
        return _PLACE[head]
    if head[:-2].isdigit():
        return int(head[:-2])
    return -1 if head in ("last", "least") else 1


def rank_as_asked(question: Question, answer: str, passage: Passage) -> int:
    """Where the passage ranks the answer, by the measure the question ranks by (:func:`measure`), against the place
    the question asks: +1 at that place ("the most populous city in Scotland" asked for the largest), -1 at another
    ("the second-most populous city in Scotland", or named after "after" in "the third-largest city, after Paris and
    Marseille"), 0 when the question does not rank or no sentence stating the answer ranks it in the question's
    words. Of a sentence's ranking words, the one followed by most of the question's other content words is read
    (so "the second-largest city in Pakistan" over "the largest city of the province")."""
    asked = ranks(question.text)
    if not asked:
        return 0
    text = question.text.lower()
    first = next(m for m in _RANKED.finditer(text) if m.group().replace(" ", "-") in asked)
    rank = first.group().replace(" ", "-")
    wanted, by = place(rank), measure(rank, text[first.end():])
    words = question.words - {w for r in asked for w in r.split("-")}
    if _NAMES_PLACE.search(question.text):  # "in the country" stands for the place the question names
        words = words | _THE_PLACE
    best, verdict = 0, 0
    for sentence in stating(answer, passage):
        low = sentence.lower()
        at, length = named_at(sentence, answer)
        for m in _RANKED.finditer(low):
            said = m.group().replace(" ", "-")
            if said in NOT_RANKING or measure(said, low[m.end():]) != by:
                continue
            overlap = len(words & content_words(" ".join(low[m.end():].split()[:6])))
            if overlap <= best:
                continue
            above = at > m.end() and _ABOVE.search(low[m.end():at])
            if not above and not _ranked_one(sentence, at, length, m.start()):
                continue
            got = place(said)
            if above:  # named after "after": ranked above this place
                got = got - 1 if got > 2 else (1 if got == 2 else 0)
            best, verdict = overlap, (0 if got == 0 else 1 if got == wanted else -1)
    return verdict


# The rest of a name after the words an answer gives of it: capitalised words and the particles names hold
# ("Aisha" in "Aisha bint Abi Bakr was", "Simón" in "Simón de Bolívar")
_NAME_REST = re.compile(r"(?:\s+(?:(?:bint|bin|ibn|al|el|de|da|del|della|di|du|dos|van|von|der|den|la|le|y)\s+)*[A-Z][\w'-]*)*")
_GENERIC = re.compile(r"\s+(?:river|lake|mountain|mount|island|islands|dynasty|empire|city|state|province|sea|ocean|desert)$", re.I)


def named_at(sentence: str, answer: str) -> tuple[int, int]:
    """Where ``sentence`` names ``answer`` and how long the name is there, the rest of a longer name it begins
    included ("Aisha bint Abi Bakr" for "Aisha"); an answer ending in a generic word may be named without it ("The
    Godavari is" for "Godavari River"). (-1, 0) when it does not name it."""
    low = sentence.lower()
    for form in dict.fromkeys([answer, _GENERIC.sub("", answer)]):
        m = re.search(rf"(?<!\w){re.escape(form.lower())}(?!\w)", low)
        if m:
            return m.start(), m.end() - m.start() + len(_NAME_REST.match(sentence, m.end()).group())
    return -1, 0


_OTHER_SUBJECT = re.compile(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)* (?:is|was|are|were|has|had)\b")


def _ranked_one(sentence: str, at: int, length: int, rank_at: int) -> bool:
    """The ranking word at ``rank_at`` ranks the answer found at ``at`` (-1: the sentence is about the passage's subject,
    the answer, without naming it): no other name is the subject of a clause between them ("Its capital is Edinburgh,
    whilst Glasgow is the largest" does not rank Edinburgh; "Melbourne is the capital of Victoria and the second-most
    populous city" ranks Melbourne; the answer's other names may stand between them, as in "The Yangtze River, Yangzi River
    or Chang Jiang is the longest"), and they are at most twenty words apart; or the ranking word names the answer
    after it ("its largest city is Yangon", "its largest city, London", which rank that name and not one before it)."""
    if at < 0:  # the subject, as "It" or "The city": no other subject before the ranking word
        return not _OTHER_SUBJECT.search(sentence, sentence.find(" ") + 1 if " " in sentence else len(sentence), rank_at)
    if at > rank_at:  # "its largest city is Yangon"
        return bool(_RANK_IS.fullmatch(sentence[rank_at:at]) or _RANK_COMMA.fullmatch(sentence[rank_at:at]))
    named = _RANK_IS.match(sentence, rank_at)
    if named and re.match(r"[A-Z0-9]", sentence[named.end():]):
        return False  # "Naypyidaw, while its largest city is Yangon": it ranks the name after it
    between = sentence[at + length:rank_at]
    other_names = _OTHER_NAMES.match(between)  # "The Yangtze River, Yangzi River or Chang Jiang is the longest"
    if other_names and re.search(r"\b(?:or|known as|officially)\b", other_names.group()):
        between = between[other_names.end():]
    return not _OTHER_SUBJECT.search(between) and len(between.split()) <= 20


# A ranking word that names the answer after it: words that open no clause of their own, then "is" ("largest city is
# ", "most populous city in the country was ", "largest city of England and the UK is "; not "largest city and its
# capital is ")
_RANK_IS = re.compile(r"[a-z]+(?:[- ](?!(?:its|his|her|their|while|whereas|but|which|who|whose)\b)[\w'’]+){0,9} "
                      r"(?:is|was|remains) (?:the )?")
_RANK_COMMA = re.compile(r"[a-z]+(?:[- ][a-z]+){0,3}, ")  # "its largest city, London"
# A question that names a place ("in Kazakhstan"), and the words a passage calls such a place by
_NAMES_PLACE = re.compile(r"\b(?:in|of)\s+(?:the\s+)?[A-Z]")
_THE_PLACE = frozenset({"country", "nation"})
# The answer's other names right after it: ", Yangzi River or Chang Jiang", ", also known as Saigon,"
_OTHER_NAMES = re.compile(r"(?:\s*(?:,|\bor\b|\balso known as\b|\bofficially\b)\s*(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)+,?")


def of_another(question: Question, answer: str, passage: Passage) -> bool:
    """A word of the question stands, in a sentence stating the answer, before "of" and a name the question does
    not hold ("the capital of Victoria" asked for the capital of Australia), and never before one it holds."""
    own = content_words(answer)
    found = [(w.lower(), content_words(n)) for s in stating(answer, passage) for w, n in _OF_NAME.findall(s)]
    related = [(w, n) for w, n in found if stem(w) in question.words and n and not n & own]
    return bool(related) and all(not n & question.words for _, n in related)


def other_year(question: Question, answer: str, passage: Passage) -> bool:
    """The question names a year ("Who won the 2018 FIFA World Cup?") that neither the passage's title nor
    any sentence stating the answer does ("The reigning champion is Spain, who won ... the 2026 World Cup")."""
    if not question.years:
        return False
    return not any(question.years & set(YEAR.findall(s)) for s in [passage.title, *stating(answer, passage)])
