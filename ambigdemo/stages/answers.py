"""The heuristic reader, :class:`HeuristicReader` (``AMBIGDEMO_READER=heuristic``, ``Pipeline.heuristic``, and
the LLM reader's fallback): typed spans of the retrieved passages (a :class:`Mention` each), scored, with
aliases folded together (a :class:`Cluster`); and the answer comparisons both readers share
(``same_answer``, ``is_name_of``, ``bare_title``). A :class:`Mention` is not a
:class:`ambigdemo.types.Candidate`, an answer the LLM reader replied.

There is no extractive reader small enough to ship, so mentions are named entities and numbers
(spaCy) whose type fits the question word, scored by how well their sentence matches the question,
how close they sit to the question's words, and how well their passage was retrieved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ambigdemo.runtimes.onnx import Embedder
from ambigdemo.stages.question import STOPWORDS, Question, QuestionType, content_words, stem
from ambigdemo.text import list_items, normalize_answer, numbers_as_digits, split_sentences
from ambigdemo.types import Answer, Passage

@dataclass
class Mention:
    """One mention of a possible answer in one sentence of one passage, with its features."""

    text: str
    label: str
    passage: Passage
    sentence: str
    features: dict[str, float]
    score: float = 0.0


@dataclass(frozen=True)
class Weights:
    """Linear scoring of candidate features, tuned on AmbigNQ train (see ``python -m ambigdemo tune``)."""

    passage: float = 0.45
    sentence: float = 0.0
    overlap: float = 0.35
    proximity: float = 0.2
    type_prior: float = 0.15
    title: float = 0.3

    def score(self, f: dict[str, float]) -> float:
        return (
            self.passage * f["passage"]
            + self.sentence * f["sentence"]
            + self.overlap * f["overlap"]
            + self.proximity * f["proximity"]
            + self.type_prior * f["type_prior"]
            + self.title * f["title"]
        )


@dataclass
class Cluster:
    """Mentions of one answer, aliases folded together."""

    mentions: list[Mention] = field(default_factory=list)

    @property
    def best(self) -> Mention:
        return max(self.mentions, key=lambda m: m.score)

    @property
    def score(self) -> float:
        support = len({m.passage.id for m in self.mentions})
        return self.best.score + 0.03 * min(support - 1, 3)

    def keys(self) -> set[str]:
        return {normalize_answer(m.text) for m in self.mentions}

    def to_answer(self) -> Answer:
        """The answer's common name, grounded in its best-scoring mention's sentence.

        The name is the title of an article the answer is the subject of ('Neil Armstrong' for "Neil
        Alden Armstrong", 'Cape Town' over "City of Cape Town"), else its fullest surface form
        ('Neil Armstrong' over 'Neil'). The best mention, not the fullest one, is the evidence: "Cape
        Town is the legislative capital" says why Cape Town answers, "part of the City of Cape Town
        municipality" does not.
        """
        best = self.best
        titles = [bare_title(m.passage.title) for m in self.mentions if is_name_of(m.passage.title, m.text)]
        shown = titles[0] if titles else max(self.mentions, key=lambda m: (len(m.text.split()), m.score)).text
        aliases = sorted({m.text for m in self.mentions} - {shown})
        passages = list(dict.fromkeys([best.passage.id] + [m.passage.id for m in self.mentions]))
        return Answer(text=shown, score=round(self.score, 4), passages=passages, aliases=aliases, context=best.sentence)


@dataclass
class HeuristicReader:
    """Finds every distinct, grounded answer in the retrieved passages.

    ``keep_ratio``: answers scoring at least this fraction of the best are kept (several readings);
    ``min_score``: below it nothing counts as an answer (Natural Questions' null answer).
    """

    nlp: object
    embedder: Embedder | None = None
    weights: Weights = Weights()
    keep_ratio: float = 0.85
    min_score: float = 0.7
    max_answers: int = 5

    def mentions(self, question: Question | str, passages: list[Passage]) -> list[Mention]:
        """Every typed mention in the passages, with features; scored by ``weights``."""
        question = Question.of(question)
        qtype, qwords = question.type, question.words
        sentences = [(p, s) for p in passages for s in split_sentences(p.text)]
        similarity = self._similarity(question.text, [s for _, s in sentences])
        found = []
        for (passage, sentence), doc, sim in zip(sentences, self.nlp.pipe([s for _, s in sentences]), similarity):
            overlap = _overlap(qwords, content_words(sentence) | content_words(passage.title))
            for ent in merged_entities(doc):
                prior = qtype.labels.get(ent.label_, 0.0)
                text = _clean_span(ent.text)
                if prior <= 0 or not text or echoes_question(text, question) or not _plausible(text, ent.label_, qtype):
                    continue
                features = {
                    "passage": passage.score,
                    "sentence": sim,
                    "overlap": overlap,
                    "proximity": _proximity(doc, ent, qwords),
                    "type_prior": prior,
                    "title": _names_title(text, passage.title),
                }
                features["counts"] = float(_counts(doc, ent, qtype.counted))
                found.append(Mention(text, ent.label_, passage, sentence, features, self.weights.score(features)))
        if any(c.features["counts"] for c in found):
            found = [c for c in found if c.features["counts"]]
        return found

    def _similarity(self, question: str, sentences: list[str]) -> list[float]:
        if self.embedder is None or not sentences:
            return [0.0] * len(sentences)
        query = self.embedder.encode_query([question])[0]
        return [float(x) for x in self.embedder.encode_passages(sentences, batch_size=64) @ query]

    def find(self, question: Question | str, passages: list[Passage]) -> list[Answer]:
        return self.select(cluster(self.mentions(question, passages)))

    def select(self, clusters: list["Cluster"]) -> list[Answer]:
        """The null answer, or every answer within ``keep_ratio`` of the best."""
        if not clusters or clusters[0].score < self.min_score:
            return []
        top = clusters[0].score
        kept = [c for c in clusters if c.score >= self.keep_ratio * top and c.score >= self.min_score]
        return [c.to_answer() for c in kept[: self.max_answers]]


def cluster(mentions: list[Mention]) -> list[Cluster]:
    """Fold aliases (same normalised text, or one name containing the other) into one answer, best first."""
    clusters: list[Cluster] = []
    for mention in sorted(mentions, key=lambda c: -c.score):
        key = normalize_answer(mention.text)
        if not key:
            continue
        home = next((c for c in clusters if any(same_answer(key, k) for k in c.keys())), None)
        if home is None:
            clusters.append(Cluster([mention]))
        else:
            home.mentions.append(mention)
    return sorted(clusters, key=lambda c: -c.score)


MONTHS = frozenset("january february march april may june july august september october november december".split())
AT_TIME = frozenset("in on around about circa c".split())  # words that place a date without changing it ("in 1848")


def same_answer(a: str, b: str) -> bool:
    """Aliases: equal (number words as digits: 'eleven' ~ '11'), the shorter one's words a contiguous
    run of the longer's ('obama' ~ 'barack obama'), or a year and a date in it ('1945' ~ 'may 1945',
    'in 1945'), or one list in two orders ('austria and switzerland' ~ 'switzerland and austria'); other numbers stay
    apart ('2' is not '2 million'), and so do a year and a bound ('before 1945')."""
    a, b = numbers_as_digits(a), numbers_as_digits(b)
    if a == b:
        return True
    items = set(list_items(a))
    if len(items) > 1 and items == set(list_items(b)):
        return True
    short, long = sorted((a, b), key=len)
    if short.isdigit():
        rest = f" {long} ".replace(f" {short} ", " ", 1).split()
        return (len(short) == 4 and f" {short} " in f" {long} " and bool(rest)
                and all(t in MONTHS or t in AT_TIME or (t.isdigit() and len(t) <= 2) for t in rest))
    if len(short) < 3:
        return False
    return f" {short} " in f" {long} "


def rewords(text: str, shown: str) -> bool:
    """Whether ``text`` only rewords ``shown``, an answer already shown: the same numbers, and every content word of
    one among the other's, a longer ``text`` adding no name (a capitalised word) and no unit (a word after a number):
    "Jacob and Wilhelm Grimm" beside "the Brothers Grimm, Jacob and Wilhelm", "from 1946 to his overthrow in 1955"
    beside "1946 to 1955"; not "Saturn, Jupiter and Uranus" beside "Jupiter and Saturn", nor "2 million" beside "2"."""
    mine, theirs = _content(text), _content(shown)
    if not mine or not theirs or {w for w in mine if w.isdigit()} != {w for w in theirs if w.isdigit()}:
        return False
    if mine <= theirs:
        return True
    added = mine - theirs
    raw = [(w, numbers_as_digits(w.lower())) for w in re.findall(r"\w+", text)]
    named = any(w[0].isupper() or (k > 0 and raw[k - 1][1].isdigit()) for k, (w, key) in enumerate(raw) if key in added)
    return theirs <= mine and not named


def repeats(text: str, shown: list[str]) -> bool:
    """Whether ``text`` names an answer of ``shown`` again: the same answer (``same_answer``) or in other words
    (``rewords``)."""
    key = normalize_answer(text)
    return any(same_answer(key, normalize_answer(s)) or rewords(text, s) for s in shown)


def _content(text: str) -> set[str]:
    return {w for w in numbers_as_digits(normalize_answer(text)).split() if w not in STOPWORDS}


def merged_entities(doc) -> list:
    """The sentence's entities, with touching ones of the same label joined: spaCy's small model reads
    "Neil Alden Armstrong" as "Neil" + "Alden Armstrong"."""
    merged = []
    for ent in doc.ents:
        last = merged[-1] if merged else None
        if last is not None and last.end == ent.start and last.label_ == ent.label_ and doc[last.end - 1].whitespace_:
            span = doc[last.start : ent.end]
            span.label_ = ent.label_
            merged[-1] = span
        else:
            merged.append(ent)
    return merged


def bare_title(title: str) -> str:
    """An article title without its disambiguating parenthesis ('Mercury (planet)' -> 'Mercury')."""
    return re.sub(r"\s*\(.*\)$", "", title)


def is_name_of(title: str, text: str) -> bool:
    """The mention is the article's subject in full or fuller form ('Barack Hussein Obama II' for 'Barack Obama',
    'Ursula Kroeber Le Guin' for 'Ursula K. Le Guin': an initial may be written out)."""
    head = [w for w in normalize_answer(bare_title(title)).split() if len(w) > 1]
    return bool(head) and set(head) <= set(normalize_answer(text).split())


_OPENING = re.compile(r"[,(;]|\s(?:is|was|are|were)\s")  # where a lead's opening name ends


def names_subject(text: str, passage: Passage) -> bool:
    """Whether ``text`` names ``passage``'s subject: its title in full or fuller form (:func:`is_name_of`), or all the
    words its text opens with before a comma, a parenthesis or "is"/"was" ("Constantine I" in "Constantine I, also known
    as Constantine the Great, was ...", "Frederick II" in "Frederick II was the monarch of Prussia ...")."""
    key = normalize_answer(text)
    return bool(key) and (is_name_of(passage.title, text) or key == normalize_answer(_OPENING.split(passage.text, maxsplit=1)[0]))


def _names_title(text: str, title: str) -> float:
    """1 when the candidate is the passage's subject ('Amsterdam' in the article Amsterdam), 0.5 for part
    of it or for a fuller form of it ('Barack Hussein Obama II' in the article Barack Obama)."""
    key, head = normalize_answer(text), normalize_answer(bare_title(title))
    if not key or not head:
        return 0.0
    if key == head:
        return 1.0
    return 0.5 if same_answer(key, head) or is_name_of(title, text) else 0.0


def _counts(doc, ent, noun: str) -> bool:
    """A number that counts what a 'how many' question asks about ('eleven players', 'two teams' does not)."""
    return bool(noun) and any(stem(t.lower_) == noun for t in doc[ent.end : ent.end + 3])


def _overlap(qwords: set[str], words: set[str]) -> float:
    return len(qwords & words) / len(qwords) if qwords else 0.0


def echoes_question(text: str, question: Question) -> bool:
    """An entity that only repeats the question ('Bolivia' for 'capital of Bolivia') is no answer."""
    words = content_words(text)
    return (bool(words) and words <= question.words) or f" {normalize_answer(text)} " in f" {question.normalized} "


POSSESSIVE = re.compile(r"['’]s\b")
# Lower-case words a name may hold between two capitalised ones ("Khanate of Bukhara", "Leonardo da Vinci")
NAME_JOINS = frozenset("of the de del della di da do dos du la le van von bin ibn al".split())
REGNAL = re.compile(r"^[IVXL]+$")


def question_names(text: str) -> list[str]:
    """The names a question writes: runs of capitalised words, with :data:`NAME_JOINS` between two of them; a
    possessive ends one ("Tarkovsky's Mirror" writes two). Its first word is not read (a question starts with a
    capital)."""
    names, run = [], []
    for token in re.findall(r"\w[\w'’-]*", text)[1:] + [""]:
        owner = POSSESSIVE.search(token)
        token = POSSESSIVE.sub("", token)
        if token[:1].isupper():
            run.append(token)
        elif run and token.lower() in NAME_JOINS:
            run.append(token)
            continue
        while run and not run[-1][:1].isupper():
            run.pop()
        if run and (owner or not token[:1].isupper()):
            names.append(" ".join(run))
            run = []
    return names


def _head(name: str) -> str:
    """A name's head word: its last before "of", a regnal number passed over ("Khanate of Bukhara" -> "Khanate",
    "Kano State" -> "State", "Andrew II of Hungary" -> "Andrew")."""
    words = [w for w in name.split(" of ")[0].split() if not REGNAL.match(w)]
    return normalize_answer(words[-1]) if words else ""


def renames_question(text: str, question: Question) -> bool:
    """``text``, made of the question's words, still names what the question does not: a part of a longer name it
    writes without that name's head ("Kano" for "the capital of Kano State", "Enlightenment" for "the Age of
    Enlightenment"; not "Turing" for "Alan Turing"), or two or more of its words in an order it never writes them
    ("Guatemala City" for "the largest city of Guatemala")."""
    key = normalize_answer(POSSESSIVE.sub("", text))
    if not key:
        return False
    for name in question_names(question.text):
        whole = normalize_answer(name)
        if whole != key and f" {key} " in f" {whole} " and _head(name) not in key.split():
            return True
    asked = normalize_answer(POSSESSIVE.sub("", question.text))
    return (len(content_words(text)) >= 2 and {stem(w) for w in key.split()} <= {stem(w) for w in asked.split()}
            and f" {key} " not in f" {asked} ")


def _proximity(doc, ent, qwords: set[str]) -> float:
    """1 when a question word is next to the entity, falling off with distance in tokens."""
    positions = [t.i for t in doc if stem(t.lower_) in qwords]
    if not positions:
        return 0.0
    distance = min(min(abs(p - ent.start), abs(p - (ent.end - 1))) for p in positions)
    return 1.0 / (1.0 + distance / 3.0)


_LEADING = re.compile(r"^(from|in|on|at|by|since|until|about|around|between|the)\s+", re.I)
YEARISH = re.compile(r"\b(1\d{3}|20\d{2}|\d{1,2}(st|nd|rd|th)? century|january|february|march|april|may|june|july|august|september|october|november|december)\b", re.I)


def _clean_span(text: str) -> str:
    """Trim punctuation and a leading preposition ('from 1939' -> '1939')."""
    text = text.strip(" ,.;:()\"'")
    while _LEADING.match(text) and len(text.split()) > 1:
        text = _LEADING.sub("", text, count=1)
    return text


def _plausible(text: str, label: str, qtype: QuestionType) -> bool:
    """Type-specific sanity: a 'when' answer names a date, not a duration ('12 years')."""
    if qtype.wh == "when" and label == "DATE":
        return bool(YEARISH.search(text)) and not re.search(r"\b(years?|months?|days?|weeks?) (old|long|ago)\b|^\d+ (years|months|days)$", text, re.I)
    return True
