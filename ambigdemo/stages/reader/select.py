"""Select: a verified answer as it is shown (the name its article gives it, the passage's own spelling,
the list it is named in), folded into the answers found so far when it is one of them."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import NamedTuple

from ambigdemo.stages.answers import bare_title, echoes_question, is_name_of, same_answer
from ambigdemo.stages.question import PLACE, Question
from ambigdemo.stages.reader.recall import parse_reply
from ambigdemo.stages.reader.verify import in_own_words, occurs_in, ranks, rejection, repeats_question, stating, titled
from ambigdemo.text import list_items, mentions, normalize_answer, split_sentences
from ambigdemo.types import Answer, Passage

LIST_GAP = re.compile(r"\s*(?:,|,?\s*(?:and|or|&))\s*")
ROLE_GAP = re.compile(LIST_GAP.pattern + r"([a-z]+)\s+")  # a list's joint and a role: "Jerry Siegel and artist Joe Shuster"
NAME = r"(?!(?:He|She|They|It|His|Her|Their|The|In|On|At|A|An)\b)[A-Z][\w'.\-]*(?:\s+(?:(?:von|van|de|da|der|den|du|la|le|del|di|bin)\s+)*[A-Z][\w'.\-]*)*"
NAME_LIST = re.compile(rf"{NAME}(?:(?:,\s*{NAME})*,?\s+(?:and|or)\s+{NAME})")
PARTNER = re.compile(r"\bwith(?:\s+(?:his|her|their)\s+\w+)?,?\s*$")
# A name a relative clause is about: "Francis Ford Coppola, who co-wrote the screenplay with Mario Puzo" (the partner
# of its "with" is that name's, not the passage subject's)
RELATIVE = re.compile(rf"({NAME}),\s+who\b")
KINDRED = {"LANGUAGE": "NORP"}  # spaCy tags a language NORP or LANGUAGE by context ("Arabic and French")
MEASURES = frozenset({"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT"})  # the kinds a range joins
JOINT_POS = frozenset({"PUNCT", "CCONJ", "DET", "NOUN", "ADJ", "ADP", "ADV", "PROPN"})  # the words a list's joint may hold
YEAR_AFTER = re.compile(r",?\s+\d{3,4}")  # what follows a date's day and month: its year
RANGE_GAP = re.compile(r"\s*(?:[\u2013\u2014-]|\b(?:to|until|till|through)\b(?:\s+[a-z]+){0,4})\s*")
# The words a lead's opening joins its subject's names with: "Medina, officially al-Madinah al-Munawwarah, also known as
# al-Madinah an-Nabawiyyah and Taybah, is ...", "A gear or gearwheel, also called a toothed wheel, is ...", "Tao
# Yuanming, also known as Tao Qian, courtesy name Yuanliang, was ..."
_NAMING_ADVERB = (r"(?:also|officially|formally|formerly|historically|commonly|popularly|sometimes|colloquially|originally|"
                  r"previously|alternatively|locally|traditionally|informally|simply|professionally|widely|later|often|usually|"
                  r"posthumously|best|better|otherwise|most|more|eponymously)")
_NAMING_VERB = (r"(?:known|called|written|spelled|spelt|named|referred\s+to|romani[sz]ed|transliterated|styled|titled|born|"
                r"surnamed|nicknamed|rendered)")
_NAME_NOUN = r"(?:courtesy|art|pen|stage|birth|given|regnal|posthumous|temple|native|full|official)\s+name"
_NAMING = (rf"(?:(?:{_NAMING_ADVERB}\s+)*{_NAMING_VERB}(?:\s+{_NAMING_ADVERB})?(?:\s+as)?|{_NAME_NOUN}|"
           rf"(?:officially|formally|formerly|historically|originally))")
NAMES_JOINT = re.compile(
    rf"\s*(?:,\s*(?:(?:and|or)\s+)?|\s(?:and|or)\s+|\s+(?={_NAMING}\s))(?:{_NAMING_ADVERB}\s+)*"
    rf"(?:{_NAMING_VERB}(?:\s+{_NAMING_ADVERB})?(?:\s+as)?\s+)?(?:by\s+(?:his|her|its|their)\s+)?(?:{_NAME_NOUN}\s+)?"
    rf"(?:(?:the|a|an)\s+)?", re.I)
NAMING = re.compile(rf"\b{_NAMING}\b", re.I)
BRACKETED = re.compile(r"\s*\([^()]*\)")
OPENING_VERB = re.compile(r"(?:\s|,|[\u2013\u2014])\s*(?:is|was|are|were)\s")
ADVERBIAL = re.compile(r"^(?:in|at|on|during|after|before|from|for|with|by|under|since|while|when|although|though|as)\b", re.I)
QUALIFIED = re.compile(r"\s+(?:in|by|among|from|for|after|during|until|since|at)\s+.*$")
QUOTES = " \"'\u201c\u201d"  # what a name's ends may carry besides it


def shown_as(question: Question, answer: str, passage: Passage, nlp) -> str:
    """The answer as shown: "Neil Armstrong", as his article names him, for "Neil Alden Armstrong" (not for a list
    that names the subject: "Rawalpindi and Islamabad" stays whole in Rawalpindi's article), in the passage's spelling,
    with the names listed beside it (:func:`listed_with`) unless the question asks for one ("the largest"); a date
    cut before its year with its year (:func:`with_year`) when nothing else changed it. It never names only what the
    question does (:func:`~ambigdemo.stages.reader.verify.repeats_question`) where the reply did not: "Georg Ohm" stays
    whole in the lead of the ohm, asked whom it is named after, and "Panama City" in Panama's, asked its capital city
    (not the lead's title, "Panama")."""
    shown = _named(question, answer, passage, nlp)
    if shown != answer and repeats_question(question, shown, passage) and not repeats_question(question, answer, passage):
        shown = surface(answer, passage)
    return with_year(shown, passage, nlp) if shown == answer else shown


def _named(question: Question, answer: str, passage: Passage, nlp) -> str:
    title = bare_title(passage.title)
    if len(list_items(answer)) == 1 and is_name_of(title, answer) and normalize_answer(title) != normalize_answer(answer):
        answer = title
    answer = surface(answer, passage)
    if question.superlatives:
        return answer
    listed = listed_with(answer, passage, nlp)
    if not question.asks_person:
        return listed
    return with_subject(named_with(answer, passage) if listed == answer else listed, passage, question)


def with_year(answer: str, passage: Passage, nlp) -> str:
    """A date cut before its year ("February 4") as its passage writes it whole ("February 4, 1899"): the date
    entity of a sentence stating the answer that opens with it and goes on with a year only; else the answer."""
    if (nlp is None or re.search(r"\d{3}", answer)
            or not re.search(re.escape(answer) + YEAR_AFTER.pattern + r"\b", passage.text)):
        return answer
    for _, _, ents, _ in _answer_entities(answer, passage, nlp):
        for e in ents:
            if e.label_ == "DATE" and e.text.startswith(answer) and YEAR_AFTER.fullmatch(e.text[len(answer):]):
                return e.text
    return answer


def surface(answer: str, passage: Passage) -> str:
    """The answer as the passage writes it ("pretoria" -> "Pretoria"), when the passage has it verbatim but for case."""
    m = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", titled(passage), re.I)
    return m.group(0) if m else answer


def listed_with(answer: str, passage: Passage, nlp) -> str:
    """The answer with the names listed beside it, as the passage states it: "James Watson and Francis
    Crick" for "James Watson", "Comorian, Arabic and French" for "Comorian", "Jerry Siegel and artist Joe
    Shuster" for "writer Jerry Siegel". A list is a run of entities of the answer's kind joined only by
    commas and a final "and" / "or", each joint perhaps followed by one noun naming the next one's role,
    in a sentence that states the answer. A measure the passage states as the start of a range is shown
    as the range: "20 June 1837 until her death in 1901" for "1837", "1939 to 1945" for "1939"
    (:func:`range_from`). Without either (or without ``nlp``) the answer itself."""
    for sentence, doc, ents, at in _answer_entities(answer, passage, nlp):
        kind = _kind(ents[at])

        def joined(i: int) -> bool:  # ents[i] and ents[i + 1] are neighbours in one list
            if _kind(ents[i + 1]) != kind:
                return False
            gap = sentence[ents[i].end_char : ents[i + 1].start_char]
            role = ROLE_GAP.fullmatch(gap)
            if role is not None:
                word = doc.char_span(ents[i].end_char + role.start(1), ents[i].end_char + role.end(1))
                return word is not None and word[0].pos_ == "NOUN"
            return LIST_GAP.fullmatch(gap) is not None

        first, last = _run(len(ents), at, joined)
        closing = sentence[ents[last - 1].end_char : ents[last].start_char] if last > first else ""
        if re.search(r"\b(?:and|or)\b|&", closing):
            return sentence[ents[first].start_char : ents[last].end_char]
        if kind in MEASURES:
            ranged = range_from(answer, sentence, ents, at)
            if ranged:
                return ranged
    return answer


def names_given(answer: str, passage: Passage) -> list[str]:
    """The other names a lead's opening gives its subject, when ``answer`` is one of them and not its title: "al-Madinah
    an-Nabawiyyah" and "Taybah" for "al-Madinah al-Munawwarah" in "Medina, officially al-Madinah al-Munawwarah, also
    known as al-Madinah an-Nabawiyyah and Taybah, is the capital ...". The names run from the subject to the first
    sentence's verb, joined by commas, "and" or "or", each perhaps after words that name it ("also known as",
    "formerly", "courtesy name"), at least one such word among them; brackets are skipped, an adverbial before the
    subject ("In ancient Roman religion and mythology, Jupiter ...") is not a name, and a name qualified by a place or a
    time ("timber in the United Kingdom") is the last one."""
    sentences = split_sentences(passage.text)
    opening = BRACKETED.sub("", BRACKETED.sub("", sentences[0])) if sentences else ""  # a bracket within a bracket too
    verb = OPENING_VERB.search(opening)
    title = bare_title(passage.title)
    key, title_key = normalize_answer(answer), normalize_answer(title)
    if verb is None or key == title_key:
        return []
    head = opening[: verb.start()]
    if ADVERBIAL.match(head):
        at = head.lower().find(title.lower())
        if at < 0:
            return []
        head = head[at:]
    if not NAMING.search(head):
        return []
    names = []
    for item in NAMES_JOINT.split(head):
        whole, name = item.strip(QUOTES), QUALIFIED.sub("", item).strip(QUOTES)
        if name and len(name.split()) <= 6:
            names.append(name)
        if name != whole:
            break
    keys = {n: normalize_answer(n) for n in names}
    if key not in keys.values():
        return []
    return [n for n, k in keys.items() if k not in (key, title_key) and not is_name_of(title, n)]


def siblings(answer: str, passage: Passage, nlp) -> list[str]:
    """The other items of the list the passage names ``answer`` in, in a sentence stating it: "France", "Germany",
    "Austria" and "Liechtenstein" for "Italy" in "bordered by Italy to the south, France to the west, Germany to the
    north, and Austria and Liechtenstein to the east". A list is a run of entities of the answer's kind (not a
    measure; places are one kind, :func:`_kin`), each joint a comma, semicolon, "and" or "or", perhaps after a short
    phrase that opens with a preposition ("to the south") and before nouns naming a role ("drummer") or a phrase that
    repeats the list's frame ("bordered to the north by Ecuador and Colombia, to the east by Brazil"), never a verb; one joint, perhaps the
    one to an item of another kind that ends it ("Argentina to the east, and the Drake Passage"), is an "and" or
    "or", so "New Haven, Connecticut, United States" is no list. The model replies one name of such a list; the
    others are read as its less likely replies."""
    for sentence, doc, ents, at in _answer_entities(answer, passage, nlp):
        kind = _kind(ents[at])
        if kind in MEASURES:
            continue
        first, last = _run(
            len(ents), at, lambda i: all(_kin(ents[at], e) for e in ents[i : i + 2]) and _joint(doc, ents[i], ents[i + 1])
        )
        items = ents[first : last + 1]
        gaps = [sentence[a.end_char : b.start_char] for a, b in zip(items, items[1:])]
        if last + 1 < len(ents) and _joint(doc, ents[last], ents[last + 1]):  # the list goes on with another kind
            gaps.append(sentence[ents[last].end_char : ents[last + 1].start_char])
        if len(items) > 1 and any(re.search(r"\b(?:and|or)\b|&", g) for g in gaps):
            return [e.text for e in items if not mentions(e.text, answer)]
    return []


def other_names(question: Question, answer: str, passage: Passage, nlp) -> list[str]:
    """Asked of the passage's subject, the other names its lead gives that subject (:func:`names_given`), then the other
    names of the list a reply's ``answer`` is named in (:func:`siblings`, :func:`coordinated`, then
    :func:`written_list`), each that its passage grounds and once ("spirits of salt" before the parse's "spirits"); for
    a reply the passage states only apart, the names it coordinates (:func:`stated_apart`).
    None when the question asks for one (:func:`asks_one`: a list's other names are other things than the one asked
    for, "Tashkent" and "Samarkand" beside "Bukhara" for the city that became a khanate's capital), or when the passage
    does not ground the answer or its names."""
    if asks_one(question, nlp):
        return []
    if rejection(question, answer, passage) is not None:
        return stated_apart(question, answer, passage)
    names: list[str] = []
    given = names_given(answer, passage) if echoes_question(bare_title(passage.title), question) else []
    for name in given + siblings(answer, passage, nlp) + coordinated(answer, passage, nlp) + written_list(answer, passage, nlp):
        key = normalize_answer(name)
        if not any(same_answer(key, normalize_answer(n)) for n in names) and rejection(question, name, passage) is None:
            names.append(name)
    return names


PLURAL_COPULA = frozenset({"are", "were", "'re"})


def asks_several(question: Question, nlp) -> bool:
    """Whether the question asks for several things, as its grammatical number reads: the first noun after its question
    word is plural ("Which countries grow the most sesame?"), or a plural copula follows it ("What are D. H. Lawrence's
    most famous novels?", "Who were the first to ..."). False for a singular one, a question word that is its verb's
    subject ("Who led the first ..."), no question word, or no ``nlp``."""
    if nlp is None:
        return False
    doc = nlp(question.text)
    wh = next((t for t in doc if t.tag_ in ("WDT", "WP", "WP$")), None)
    for token in doc[wh.i + 1 :] if wh is not None else ():
        if token.pos_ in ("NOUN", "PROPN"):
            return "Plur" in token.morph.get("Number")
        if token.pos_ in ("AUX", "VERB"):
            return token.lower_ in PLURAL_COPULA
    return False


def asks_one(question: Question, nlp) -> bool:
    """Whether the question asks for one thing: it ranks and does not ask for several ("the largest", "the fourth",
    "the first"; :func:`asks_several`), or its "which" or "what" phrase is singular (:func:`_singular_phrase`).
    Without ``nlp``, whether it ranks."""
    if nlp is None:
        return bool(ranks(question.text))
    return (bool(ranks(question.text)) and not asks_several(question, nlp)) or _singular_phrase(nlp(question.text))


def _singular_phrase(doc) -> bool:
    """Whether the phrase a "which" or "what" opens is singular: every noun of it singular ("Which city became ...",
    "What language do the Maasai speak?"), and no plural verb agreeing with it after ("Which fish make up ..."; a "do"
    before its subject agrees with that subject). False for a plural noun ("Which city-states ...", "What keyboard
    instruments ..."), no noun ("What is ...", "Which of ..."), and other question words: "who", "where" and "when"
    do not say how many are asked for ("Who founded ..." may be two)."""
    wh = next((t for t in doc if t.tag_ in ("WDT", "WP") and t.lower_ in ("which", "what")), None)
    nouns, after = [], None
    for token in doc[wh.i + 1 :] if wh is not None else ():
        if token.pos_ in ("NOUN", "PROPN"):
            nouns.append(token)
        elif token.pos_ != "ADJ" and token.tag_ != "HYPH":
            after = token
            break
    if not nouns or any("Plur" in t.morph.get("Number") for t in nouns):
        return False
    return after is None or not ((after.tag_ == "VBP" and after.lower_ != "do") or after.lower_ in PLURAL_COPULA)


def stated_apart(question: Question, answer: str, passage: Passage) -> list[str]:
    """The names a reply coordinates ("Bill Gates and Paul Allen", "Swahili and English") that its passage grounds each
    apart, when it does not state the reply whole (a lead that names the two in two sentences grounds only its
    names). None for a single name, a measure, or a reply that grounds whole or only repeats the question."""
    items = list_items(answer)
    if len(items) < 2 or re.search(r"\d", answer) or occurs_in(answer, passage) or echoes_question(answer, question):
        return []
    return [item for item in dict.fromkeys(items) if rejection(question, item, passage) is None]


def coordinated(answer: str, passage: Passage, nlp) -> list[str]:
    """The other items of a list that coordinates ``answer`` with them, as the dependency parse of a sentence stating
    it reads the list, whatever their entity tags: "ureters", "bladder" and "urethra" for "kidneys" in "it consists
    of the kidneys, ureters, bladder, and the urethra"; "turnip cabbage" for "German turnip"; "Denmark" for "England"
    in "King of England from 1016, King of Denmark from 1018" (the item in the same place of each coordinated phrase,
    at most two steps down a preposition or a compound). A proper name's items are proper names, a common noun's
    common nouns; measures and items of a verb's coordination ("born in Paris and died in London") are none. Without
    ``nlp`` or its parser, none."""
    if nlp is None or "parser" not in nlp.component_names or re.search(r"\d", answer):
        return []
    parse = nlp.get_pipe("parser")
    out: list[str] = []
    for span in _stated_spans(answer, passage, lambda sentence: parse(nlp(sentence))):
        proper = any(t.pos_ == "PROPN" for t in span)
        node, path = _coordinating(span)
        for other in (node.conjuncts if node is not None else ()):
            end = _follow(other, path)
            item = _item(end, proper) if end is not None and end.i not in range(span.start, span.end) else ""
            if item and not re.search(r"\d", item) and not mentions(item, answer) and not mentions(answer, item):
                out.append(item)
    return list(dict.fromkeys(out))


def written_list(answer: str, passage: Passage, nlp) -> list[str]:
    """The other items of a list written around ``answer`` in a sentence stating it, read from its words and their
    tags where entities and parse miss them: "predicate calculus" and "quantificational logic" for "predicate logic" in
    "also called predicate logic, predicate calculus, or quantificational logic"; "The Rainbow" and "Women in Love" for
    "Sons and Lovers" in "Sons and Lovers (1913), The Rainbow (1915), Women in Love (1920), and ...". Items are joined
    by commas, "and" or "or" (a bracket after an item is skipped), and the list ends with its one "and" or "or" item;
    a verb after a pair joins clauses ("in Vienna and Hitler moved"), not items; an item is of the answer's kind (a
    name opening with a capital, or a common noun phrase), at most five words, no number. Without ``nlp``, none."""
    if nlp is None or re.search(r"\d", answer):
        return []
    for span in _stated_spans(answer, passage, nlp):
        doc, adjective = span.doc, span[-1].pos_ == "ADJ"
        if span.start == 0 and not any(t.text[:1].isupper() for t in span[1:]):  # "Lamb, hogget, and mutton": either
            shapes = [_Shape(False, False, True, adjective), _Shape(True, True, False, adjective)]
        else:
            lower = any(t.text.islower() and t.lower_ not in LIST_WORDS for t in span)
            shapes = [_Shape(span[0].text[:1].isupper(), span[-1].text[:1].isupper(), lower, adjective)]
        for shape in shapes:
            before, last = _written_items(doc, span.start - 1, -1, shape)
            after, closed = ([], True) if last else _written_items(doc, span.end, 1, shape)
            end = after[-1][1] if after else span.end
            if closed and before + after and not (len(before + after) == 1 and _clause_follows(doc, end)):
                items = [doc[lo:hi].text for lo, hi in before + after]
                return [item for item in items if not mentions(item, answer) and not mentions(answer, item)]
    return []


def _stated_spans(answer: str, passage: Passage, read):
    """The span of ``answer`` in the doc ``read`` makes of each of the first two sentences stating it, its whitespace
    read as single spaces (a line break or a no-break space inside a list is no joint of it)."""
    for sentence in (" ".join(s.split()) for s in stating(answer, passage)[:2]):
        at = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", sentence)
        doc = read(sentence) if at else None
        span = doc.char_span(at.start(), at.end(), alignment_mode="expand") if doc is not None else None
        if span is not None:
            yield span


class _Shape(NamedTuple):
    """A written list's answer as its items repeat it: whether it opens and ends with a capital, whether it holds a
    lowercase word that is not a name's ("Kellwasser event"; "in" of "Women in Love" is a name's), whether it ends with
    an adjective ("Russian")."""

    proper: bool
    capped: bool
    lower: bool
    adjective: bool


LIST_WORDS = frozenset({"of", "in", "the", "de", "du", "la", "le", "von", "van", "'s", "\u2019s", "-", "\u2013", "on", "for"})


def _written_items(doc, i: int, step: int, shape: _Shape) -> tuple[list[tuple[int, int]], bool]:
    """The items (token ranges) of a written list from token ``i`` on, away from its answer (``step`` 1 after it, -1
    before it), and whether an "and" or "or" joint closes it there: after the answer, the last item's; before it,
    only the first joint may hold one (the answer is then the list's last item)."""
    items: list[tuple[int, int]] = []
    closed = False
    while True:
        joint, i = _joint_words(doc, _past_bracket(doc, i, step), step)
        closing = bool(joint & {"and", "or"})
        if not joint or closing and step == -1 and items:
            return items, closed
        item = _written_item(doc, _past_bracket(doc, i, step), step, shape)
        if item is None and closing and step == 1:
            item = _closing_word(doc, i, shape)
        if item is None:
            return items, closed
        items.append(item)
        i = item[1] if step == 1 else item[0] - 1
        closed = closed or closing
        if closing and step == 1:
            return items, True


def _past_bracket(doc, i: int, step: int) -> int:
    """Token ``i``, or the token past a bracket of at most eight words that opens there ("(1913)")."""
    opening, closing = ("(", ")") if step == 1 else (")", "(")
    if 0 <= i < len(doc) and doc[i].text == opening:
        for j in range(i + step, i + step * 10, step):
            if not 0 <= j < len(doc):
                break
            if doc[j].text == closing:
                return j + step
    return i


def _joint_words(doc, i: int, step: int) -> tuple[set[str], int]:
    """The words of a list joint at token ``i`` (",", "and", "or", ", and", ", or"; none else), and the token past it."""
    words: list[str] = []
    while 0 <= i < len(doc) and doc[i].lower_ in {",", "and", "or"} and len(words) < 2:
        words.append(doc[i].lower_)
        i += step
    return (set(words), i) if len(words) < 2 or words.count(",") == 1 else (set(), i)


def _written_item(doc, i: int, step: int, shape: _Shape) -> tuple[int, int] | None:
    """The token range of a written list's item of the answer's ``shape`` from token ``i`` on, away from the answer, or
    None."""
    proper, capped, lower, adjective = shape
    j = i
    while 0 <= j < len(doc) and abs(j - i) < 7 and _item_word(doc[j], proper, lower):
        j += step
    lo, hi = (i, j) if step == 1 else (j + 1, i + 1)
    while lo < hi and doc[lo].lower_ in LIST_WORDS and not (proper and doc[lo].text[:1].isupper()):
        lo += 1
    while lo < hi and (doc[hi - 1].lower_ in LIST_WORDS or capped and not doc[hi - 1].text[:1].isupper()):
        hi -= 1
    words = doc[lo:hi]
    if not 0 < len(words) <= 5 or words[-1].pos_ not in ("NOUN", "PROPN", "ADJ") or any(_number(t) for t in words):
        return None
    if words[-1].pos_ == "ADJ" and not adjective:  # "interdependence of economic, social and ..." ends no noun
        return None
    return (lo, hi) if not proper or words[0].text[:1].isupper() else None


def _number(token) -> bool:
    """Whether ``token`` is a number ("1913", "three"), not an ordinal that opens a name ("Second World War")."""
    return token.pos_ == "NUM" or token.text[:1].isdigit()


# The tags the tagger gives a rare noun it reads out of place: a base or present verb ("and rook;"), an adverb ("and
# brinjal."), a foreign or unknown word
MISREAD_NOUN = frozenset({"VB", "VBP", "RB", "FW", "XX"})


def _closing_word(doc, i: int, shape: _Shape) -> tuple[int, int] | None:
    """The last item of a list of common nouns when the tagger misreads it: one lowercase word after the closing "and"
    or "or", directly before a full stop, semicolon or colon, tagged as :data:`MISREAD_NOUN` ("the carrion crow, hooded
    crow, common raven, and rook;"); None else."""
    if shape.proper or not 0 <= i < len(doc) - 1 or doc[i + 1].text not in (".", ";", ":"):
        return None
    word = doc[i]
    return (i, i + 1) if word.is_alpha and word.is_lower and not word.is_stop and word.tag_ in MISREAD_NOUN else None


def _item_word(token, proper: bool, lower: bool) -> bool:
    """Whether ``token`` may be a word of a written list's item: a noun, adjective or name word (a name's capitalised
    article: "The Rainbow"), lowercase in a common noun phrase, capitalised in a name but where the answer holds a
    lowercase word ("Hangenberg event")."""
    if token.lower_ in LIST_WORDS:
        return True
    if token.pos_ == "DET":
        return proper and token.text[:1].isupper()
    if token.pos_ not in ("NOUN", "PROPN", "ADJ"):
        return False
    return token.text[:1].isupper() or lower if proper else token.text.islower()


def _clause_follows(doc, i: int) -> bool:
    """Whether a verb follows token ``i`` (so an "and" before it joined clauses, not list items)."""
    return i < len(doc) and doc[i].pos_ in ("VERB", "AUX")


COORDINATED_PATH = frozenset({"pobj", "prep", "compound", "poss", "nmod", "appos"})  # the steps up to a coordinated phrase


def _coordinating(span):
    """The token whose conjuncts coordinate ``span``'s phrase (its root, or a noun at most two steps up), and the steps
    (dependency label, preposition) back down to the span's root; (None, []) when none."""
    node, path = span.root, []
    for _ in range(3):
        if any(not (span.start <= c.i < span.end) for c in node.conjuncts):
            return (node, path) if node.pos_ in ("NOUN", "PROPN") or not path else (None, [])
        if node.dep_ not in COORDINATED_PATH or node.head.i == node.i or node.head.pos_ in ("VERB", "AUX"):
            return None, []
        path.append((node.dep_, node.lower_ if node.dep_ == "prep" else None))
        node = node.head
    return None, []


def _follow(token, path):
    """The token reached from ``token`` down ``path`` (:func:`_coordinating`), or None."""
    for dep, word in reversed(path):
        token = next((c for c in token.children if c.dep_ == dep and (word is None or c.lower_ == word)), None)
        if token is None:
            return None
    return token


def _glued(token) -> bool:
    """Whether ``token`` and the next one are written as one word ("Guinea", "-", "Bissau")."""
    if token.i + 1 >= len(token.doc) or token.whitespace_:
        return False
    joins = token.text in ("-", "\u2013") or not token.is_punct
    return joins and token.nbor().text not in (",", ";", ":", ".", "(", ")", "[", "]", '"', "'s", "\u2019s")


ITEM_DEPS = frozenset({"compound", "amod", "flat", "nmod", "poss", "case"})  # the words a list item's noun keeps


def _item(token, proper: bool) -> str:
    """A list item as the text of its noun ``token`` and the words that name it with it: for a proper name, the run of
    proper nouns (and capitalised adjectives: "Second Anglo-Chinese War") around it, none when its noun is not one; for
    a common noun, its modifiers too, none when it is a proper name."""
    doc = token.doc
    if proper:
        if token.pos_ != "PROPN":
            return ""
        lo = hi = token.i
        while lo > 0 and (_glued(doc[lo - 1])  # "Guinea-Bissau": the words a hyphen joins
                          or _named_word(doc[lo - 1]) and doc[lo - 1].head.i in range(lo - 1, token.i + 1)):
            lo -= 1
        while hi + 1 < len(doc) and doc[hi + 1].pos_ == "PROPN" and doc[hi + 1].head.i == token.i:
            hi += 1
        while hi + 1 < len(doc) and _glued(doc[hi]):
            hi += 1
        return doc[lo : hi + 1].text
    if token.pos_ != "NOUN":
        return ""
    kept = [token.i] + [t.i for c in token.children if c.dep_ in ITEM_DEPS and c.i < token.i for t in c.subtree]
    lo, hi = min(kept), max(kept)
    words = doc[lo : hi + 1]
    return "" if any(t.pos_ in ("PROPN", "PRON", "NUM") for t in words) else _unbracketed(words.text)


def _unbracketed(item: str) -> str:
    """A list item cut before a bracket it opens but does not close ("potassium nitrate (saltpeter" of "potassium
    nitrate (saltpeter)." -> "potassium nitrate")."""
    return item[: item.index("(")].rstrip() if item.count("(") > item.count(")") else item


def _named_word(token) -> bool:
    """Whether ``token`` is a word of a proper name: a proper noun, or a capitalised adjective ("Anglo-Chinese")."""
    return token.pos_ == "PROPN" or (token.pos_ == "ADJ" and token.text[:1].isupper())


def subject_named(question: Question, passage: Passage, said: list[str]) -> str | None:
    """The passage's subject (its bare title) read as if the model had replied it, when it reads as an answer, its
    passage grounds it, and no answer read from the passage (``said``) names it: None otherwise. A lead states its
    subject's relations ("It is bordered by Latvia to the north") where the model, asked of another name, replies
    that name or none."""
    title = parse_reply(bare_title(passage.title), names=question.asks_person)
    if not title:
        return None
    title = in_own_words(title, passage)
    key = normalize_answer(title)
    if any(same_answer(key, normalize_answer(s)) for s in said) or rejection(question, title, passage) is not None:
        return None
    return title


def _answer_entities(answer: str, passage: Passage, nlp):
    """Each sentence stating ``answer`` where an entity names it: the sentence, its spaCy doc, its entities and
    the index of the answer's (none without ``nlp``)."""
    if nlp is None:
        return
    for sentence in stating(answer, passage):
        doc = nlp(sentence)
        ents = list(doc.ents)
        at = next((i for i, e in enumerate(ents) if _names(e, answer)), None)
        if at is not None:
            yield sentence, doc, ents, at


def _names(entity, answer: str) -> bool:
    """Whether ``entity`` names ``answer``: states it (or is it without a role word, "writer Jerry Siegel"), and, but
    for a measure ("1837" in "20 June 1837"), is a name whose head word the answer holds, not a longer name the answer
    only qualifies ("French" in "the French Community of Belgium")."""
    if _names_with_role(answer, entity.text):
        return True
    if not mentions(entity.text, answer):
        return False
    return _kind(entity) in MEASURES or normalize_answer(entity.root.text) in normalize_answer(answer).split()


def _run(count: int, at: int, joined) -> tuple[int, int]:
    """The first and last of ``count`` entities in the run around the ``at``-th, ``joined(i)`` telling whether
    the ``i``-th and the next are neighbours in it."""
    first, last = at, at
    while first > 0 and joined(first - 1):
        first -= 1
    while last + 1 < count and joined(last):
        last += 1
    return first, last


def _kind(entity) -> str:
    return KINDRED.get(entity.label_, entity.label_)


def _kin(left, right) -> bool:
    """Two entities that may be items of one list: of one kind, or a country's name (GPE) and a name spaCy's small
    model tags otherwise by its context ("Slovakia" ORG, "North Macedonia" LOC), not one the article opens (a feature:
    "the Drake Passage", "the Pacific Ocean")."""
    kinds = {_kind(left), _kind(right)}
    if len(kinds) == 1:
        return True
    other = right if _kind(left) == "GPE" else left
    return "GPE" in kinds and kinds <= PLACE | {"ORG"} and not other.text.lower().startswith("the ")


def _joint(doc, left, right) -> bool:
    """Whether the words between two entities join two items of a list (:func:`siblings`)."""
    gap = [t for t in doc if left.end_char <= t.idx < right.start_char]
    if len(gap) > 7 or any(t.pos_ not in JOINT_POS for t in gap):
        return False
    seps = [i for i, t in enumerate(gap) if t.text.lower() in {",", ";", "and", "or", "&"}]
    if not seps:
        return False
    before, after = gap[: seps[0]], gap[seps[-1] + 1 :]
    if before and before[0].pos_ != "ADP":
        return False
    if after and after[-1].pos_ == "ADP" and after[-1].lower_ in _frames(doc, left):  # "..., to the east by Brazil"
        return True
    return not any(t.pos_ == "ADP" for t in after)


def _frames(doc, left) -> set[str]:
    """The prepositions that open an entity before ``left`` in its sentence ("by" in "bordered to the north by Ecuador"):
    a later joint ending with one of them repeats the list's frame ("and Colombia, to the east by Brazil")."""
    return {doc[e.start - 1].lower_ for e in doc.ents if 0 < e.start and e.end <= left.end and doc[e.start - 1].pos_ == "ADP"}


def range_from(answer: str, sentence: str, ents: list, at: int) -> str:
    """The range that ``ents[at]`` (a measure stating ``answer``) opens, as the sentence writes it, or "":
    the entity and the next one of its kind joined by a dash or "to" / "until" / "through" and at most
    four lowercase words ("1837 until her death in 1901"), or the entity itself when it is such a range
    that starts with the answer ("from 1939 to 1945"). Not a range the answer closes."""
    own = ents[at]
    inside = own.text[own.text.find(answer) + len(answer):] if answer in own.text else ""
    gap = RANGE_GAP.match(inside)
    if gap and gap.end() < len(inside):
        return re.sub(r"^(?:from|between)\s+", "", own.text)
    end = next((e for e in ents[at + 1 :] if e.label_ == own.label_), None)
    if end is not None and not inside and RANGE_GAP.fullmatch(sentence[own.end_char : end.start_char]):
        return sentence[own.start_char : end.end_char]
    return ""


def _names_with_role(answer: str, name: str) -> bool:
    """``answer`` is ``name`` with lowercase words only beside it ("writer Jerry Siegel")."""
    rest = answer.replace(name, " ") if name in answer else answer
    return rest != answer and not re.search(r"[A-Z0-9]", rest)


def named_with(answer: str, passage: Passage) -> str:
    """The list of names the passage writes the answer in, told by capitals where entity tags miss a
    name ("Howard Florey and Ernst Chain", spaCy's small model tagging only the first): capitalised
    names joined by commas and a final "and" / "or", in a sentence that states the answer."""
    for sentence in stating(answer, passage):
        at = sentence.find(answer)
        for match in NAME_LIST.finditer(sentence):
            names = re.sub(r"(\w{2,})\.$", r"\1", match.group(0))  # the sentence's full stop, not an initial's
            if at >= 0 and match.start() <= at and at + len(answer) <= match.start() + len(names) and names != answer:
                return names
    return answer


def with_subject(answer: str, passage: Passage, question: Question) -> str:
    """The answer with the passage's subject, when a sentence about the subject names it as the subject's
    partner: "Estée Lauder and Joseph Lauter" where "She co-founded her eponymous cosmetics company with her
    husband, Joseph Lauter" (Estée Lauder's lead), "Francis Crick, James Watson, ..." where "He, James
    Watson, ... played crucial roles". The sentence must open with the subject (He, She, They, or its
    name) and name the answer right after "with" (and at most a possessive and a noun) or right after
    its opening "He,". A relative clause about another name holding the "with" makes that name the partner
    ("The Godfather is a film directed by Francis Ford Coppola, who co-wrote the screenplay with Mario Puzo":
    "Francis Ford Coppola and Mario Puzo"). Not when the question itself asks who the subject did it with ("Who did
    George Harrison tour with?")."""
    subject = bare_title(passage.title)
    if not subject or mentions(answer, subject) or mentions(subject, answer):
        return answer
    if echoes_question(subject, question) and re.search(r"\bwith\b", question.text, re.I):
        return answer
    opening = rf"(?:He|She|They|{re.escape(subject)}|{re.escape(subject.split()[-1])})\b"
    for sentence in stating(answer, passage):
        at = sentence.find(answer)
        if at < 0 or not re.match(opening, sentence):
            continue
        before = sentence[:at]
        if PARTNER.search(before) or re.fullmatch(r"(?:He|She|They),\s*", before):
            clauses = list(RELATIVE.finditer(before))
            last = clauses[-1] if clauses else None
            partner = last.group(1) if last and PARTNER.search(before[last.end():]) else subject
            if mentions(answer, partner) or mentions(partner, answer):
                return answer
            return f"{partner}, {answer}" if len(list_items(answer)) > 1 else f"{partner} and {answer}"
    return answer


def add(found: list[Answer], text: str, passage: Passage) -> Answer:
    """Add ``text`` from ``passage`` to ``found``: a new answer, or an earlier one it is an alias of, now
    also supported by this passage (each passage cited once, though a passage's less likely reply may
    give the answer again). Returns the new or updated answer."""
    key = normalize_answer(text)
    same = next((i for i, a in enumerate(found) if same_answer(key, normalize_answer(a.text))), None)
    if same is None:
        found.append(Answer(text, round(passage.score, 4), [passage.id], context=passage.text))
        return found[-1]
    old = found[same]
    passages = old.passages if passage.id in old.passages else old.passages + [passage.id]
    found[same] = replace(old, passages=passages, aliases=old.aliases + [text])
    return found[same]
