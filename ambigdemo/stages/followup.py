"""Follow-up questions in a conversation (QuAC): rewrite a follow-up into a standalone question.

"When did he die?" after "Who played Dumbledore?" / "Richard Harris" becomes "When did Richard
Harris die?". A follow-up that reads on its own is answered as asked. Otherwise the model proposes
the standalone question from the conversation; it is used only if every word it adds comes from the
conversation (nothing invented) and it is still one question. Else simple rules stand in
(a pronoun replaced by the last answer or the last question's subject, "What about X?", "When?"),
and failing those the follow-up is answered as asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ambigdemo.runtimes.chat import Chat
from ambigdemo.runtimes.onnx import Context, Generator
from ambigdemo.stages.question import STOPWORDS, Question, words_without_possessives
from ambigdemo.stages.rewrite import edit_of
from ambigdemo.types import Edit, Turn

SYSTEM = (
    "You rewrite the last question of a conversation so that it can be understood on its own: replace "
    "pronouns with what they refer to and add what the question leaves out, taken from the earlier "
    "questions and answers. Keep its other words. If it is already clear on its own, repeat it. Reply "
    "with the question only."
)
# (conversation [(question, answer)], follow-up, standalone): read once at load as the prompt's prefix.
EXAMPLES = (
    ((("Who wrote Hamlet?", "William Shakespeare"),), "When was he born?", "When was William Shakespeare born?"),
    ((("What is the longest river in Africa?", "Nile"),), "How long is it?", "How long is the Nile?"),
    ((("What is the capital of Italy?", "Rome"),), "What about Spain?", "What is the capital of Spain?"),
    ((("Who invented the light bulb?", "Thomas Edison"),), "Who painted The Starry Night?", "Who painted The Starry Night?"),
    ((("Where was the Battle of Hastings fought?", "Hastings"),), "When?", "When was the Battle of Hastings fought?"),
)
REFERRING = frozenset("he she him his her hers they them their theirs it its there then this that these those".split())
PRONOUNS = frozenset("he she him his her hers they them their theirs it its".split())  # name what came before
# The pronouns that stand for the question's subject or its owner ("When was he born?", "What is its
# capital?"), and "it" after a verb that asks about it ("When was it built?"); a question whose
# subject is only such a pronoun asks about nobody in particular.
SUBJECT_PRONOUNS = frozenset("he she they his her its their".split())
IT_SUBJECT = re.compile(r"^\W*it\b|\b(?:is|was|are|were|do|does|did|has|have|had|can|could|will|would)\s+it\b", re.I)
# A possessive the question's own wh-subject binds ("Which planet is known for its Great Red Spot?", "Who founded his
# own party?"): "which"/"what" with its noun, or "who" before a main verb, then the possessive later in the clause,
# not as the subject after a copula or auxiliary ("Which city is its capital?", "Who was his father?": those refer back)
_COPULAS = ("is", "are", "was", "were", "do", "does", "did")
_OPENING_VERBS = "|".join(_COPULAS + ("can", "could", "will", "would"))
BOUND = re.compile(
    rf"^\W*(?:(?:which|what)\s+(?!(?:of|{_OPENING_VERBS})\b)[\w'-]+|who\s+(?!(?:{_OPENING_VERBS})\b)\w+)\b"
    r"(?:\s+[\w'-]+)*?\s+" + "".join(rf"(?<!\b{w} )" for w in _COPULAS) + r"(his|her|its|their)\b",
    re.I,
)
LEAD_INS = re.compile(r"^\s*(and|so|but|also|what about|how about|and what about|what of)\b[\s,]*", re.I)
MIN_CONTENT = 3  # a follow-up with fewer content words leaves something out ("How many people died?")
MAX_QUESTION_WORDS = 40


@dataclass(frozen=True)
class Standalone:
    """A follow-up as asked, the standalone question answered in its place, and who wrote it."""

    asked: str
    question: str
    source: str  # "as asked", "llm" or "rules"
    edit: Edit = field(default_factory=Edit)
    note: str = ""  # said to the user beside the answer: a pronoun with nothing to refer to
    answerable: bool = True  # False: the question's subject is a pronoun with nothing to refer to (``note`` says so)
    follows: bool = False  # the question refers back to the conversation (a new question that reads on its own does not)


def unreferred(asked: str) -> Standalone:
    """A first question as asked, with a note where a pronoun can only mean something said before. A
    pronoun that is the question's subject ("When did he die?" with no conversation) leaves nobody
    to answer about: not answerable. Any other ("Who wrote it?") is answered as typed; a possessive the
    question's own wh-subject binds ("Which planet is known for its Great Red Spot?") needs no note."""
    own = bound(asked)
    words = [w for w in re.findall(r"\w+", asked) if w.lower() not in own]
    subject = next((w for w in words if w.lower() in SUBJECT_PRONOUNS), "")
    if not subject and IT_SUBJECT.search(asked):
        subject = next(w for w in words if w.lower() == "it")
    if subject:
        return Standalone(asked, asked, "as asked", answerable=False, note=(
            f"“{subject}” refers to nothing earlier in this conversation, so there is no one to answer about: "
            "ask again naming who or what you mean."))
    word = next((w for w in words if w.lower() in PRONOUNS), "")
    if not word:
        return Standalone(asked, asked, "as asked")
    return Standalone(asked, asked, "as asked", note=(
        f"“{word}” refers to nothing earlier in this conversation, so the question was answered as typed: "
        "name who or what you mean for a better answer."))


def bound(asked: str) -> set[str]:
    """The possessives (lowercase) that the question's own wh-subject binds (:data:`BOUND`): in a first question they
    refer to no one said before. (In a conversation they may: "Which river flows through its capital?" after a
    country, so a follow-up is rewritten as before.)"""
    m = BOUND.match(asked)
    first = re.search(r"\b(?:his|her|its|their)\b", asked, re.I)
    return {m.group(1).lower()} if m and first and m.start(1) == first.start() else set()


def needs_context(asked: str) -> bool:
    """The follow-up refers back (a pronoun, "and ...", "what about ...") or leaves its subject out."""
    tokens = re.findall(r"\w+", asked.lower())
    return bool(REFERRING & set(tokens)) or bool(LEAD_INS.match(asked)) or len(Question.of(asked).words) < MIN_CONTENT


def conversation_text(history: Sequence[Turn], asked: str) -> str:
    lines = [f"Q: {t.question}\nA: {'; '.join(t.answers) or 'no answer'}" for t in history]
    return "Conversation:\n" + "\n".join(lines) + f"\nLast question: {asked}"


def example_prefix(chat: Chat) -> str:
    parts = [chat.system(SYSTEM)]
    for n, (turns, asked, standalone) in enumerate(EXAMPLES):
        history = [Turn(q, [a]) for q, a in turns]
        parts += [chat.turn("user", conversation_text(history, asked), first=n == 0), chat.turn("assistant", standalone)]
    return "".join(parts)


def check_standalone(asked: str, question: str, history: Sequence[Turn]) -> str | None:
    """Why a proposed standalone question may not be used, or None when it may."""
    if not question.endswith("?") or "\n" in question or question.count("?") > 1:
        return "not a single question"
    if len(question.split()) > MAX_QUESTION_WORDS:
        return "too long"
    said = words_without_possessives(" ".join([asked] + [t.question + " " + " ".join(t.answers) for t in history]))
    words = words_without_possessives(question)
    if any(not _grounded(w, said) for w in words):
        return "adds words the conversation does not have"
    if any(not _grounded(w, words) for w in words_without_possessives(asked) - REFERRING):
        return "drops words of the question"
    if needs_context(asked) and question.strip().lower() == asked.strip().lower():
        return "still refers back"
    if not Question.of(question).words:
        return "no content"
    return None


def _grounded(word: str, said: set[str]) -> bool:
    """``word`` or an inflection of it was said ("discover" for "discovered")."""
    return word in said or any(len(w) >= 4 and len(word) >= 4 and (w.startswith(word[:-1]) or word.startswith(w[:-1])) for w in said)


@dataclass
class FollowUps:
    """Turns follow-ups into standalone questions with a chat generator (None: rules only)."""

    generator: Generator | None = None
    max_tokens: int = 48
    context_turns: int = 3  # the earlier turns read (the prompt stays short)
    _prefix: Context | None = field(default=None, repr=False)

    def standalone(self, asked: str, history: Sequence[Turn]) -> Standalone:
        history = list(history)[-self.context_turns :]
        if not history:
            return unreferred(asked)
        if not needs_context(asked):
            return Standalone(asked, asked, "as asked")
        for source, proposal in (("llm", self._propose), ("rules", rule_rewrite)):
            question = " ".join((proposal(asked, history) or "").split())
            if question and check_standalone(asked, question, history) is None:
                return Standalone(asked, question, source, edit_of(asked, question), follows=True)
        return Standalone(asked, asked, "as asked", follows=True)

    def _propose(self, asked: str, history: Sequence[Turn]) -> str:
        if self.generator is None:
            return ""
        if self._prefix is None:
            self._prefix = self.generator.context(example_prefix(self.generator.chat))
        turn = self.generator.chat.ask(conversation_text(history, asked))
        return self._prefix.fork().extend(turn).complete(self.max_tokens, stop=("\n",)).strip().strip("\"'\u201c\u201d")


AUXILIARIES = frozenset("is are was were do does did has have had can could will would".split())
NAME = r"(?:\bthe )?[A-Z][\w'’.-]*(?: (?:of |and |the |da |de |di |von |van |del )?[A-Z][\w'’.-]*)*"


def rule_rewrite(asked: str, history: Sequence[Turn]) -> str:
    """A standalone question by rule, or "": "What about X?" puts X in the last question's subject's
    place, "And the largest?" swaps its superlative, "When?" its question word; "he"/"his" become the
    last person asked about ("who" answers), "it"/"its"/"there" the last thing answered ("what" answers)
    or the last question's subject."""
    last, original = history[-1], asked
    rest = LEAD_INS.sub("", asked).strip(" ?")
    if LEAD_INS.match(asked) and rest:
        if rest[:1].isupper():
            subject = subject_of(last.question)
            return last.question.replace(subject, rest, 1) if subject else ""
        superlative = next((w for w in rest.split() if w.lower().endswith("est")), "")
        return re.sub(r"\b\w+est\b", superlative, last.question, count=1) if superlative else ""
    if rest.lower() in {"when", "where", "why", "how", "who"}:
        wh = Question.of(last.question).wh_word
        after = re.search(rf"\b{wh}\s+(\w+)", last.question, re.I) if wh else None
        if after and after.group(1).lower() in AUXILIARIES:
            return rest.capitalize() + last.question[after.start(1) - 1 :]
        return ""
    person = next((t.answers[0] for t in reversed(history) if t.answers and Question.of(t.question).wh_word == "who"), "")
    person = person or (re.findall(NAME, last.question[1:]) or [""])[0]
    thing = topic(history)
    if thing:
        asked = re.sub(r"\bits ((?:\w+ ){0,3}?\w+)(?=\?|$| (?:of|in|on|at|for|from|to)\b)", rf"the \1 of {thing}", asked)

    used: list[str] = [thing] if asked != original else []

    def swap(match: re.Match) -> str:
        word = match.group(0).lower()
        name = person if word in ("he", "she", "him", "his", "her") else thing
        if not name:
            return match.group(0)
        used.append(name)
        if word in ("his", "her", "its"):
            return name + "'s"
        return ("in " if word == "there" else "") + name

    out = re.sub(r"\b(he|she|him|his|her|it|its|there)\b", swap, asked, flags=re.I)
    if len(used) != len(set(used)):
        return ""  # two pronouns cannot both mean the same name ("Who presented it with him?")
    return "" if out == original else out


def topic(history: Sequence[Turn]) -> str:
    """What "it" refers to: a thing answered earlier (not a person) that the last question is still
    about ("What river is Paris on?"), else the last answer to a "what"/"which" question if it is a
    name, else the last question's subject ("the Eiffel Tower")."""
    last = history[-1]
    things = [t.answers[0] for t in history[:-1] if t.answers and Question.of(t.question).wh_word in ("what", "which")]
    running = next((a for a in reversed(things) if a and a in last.question), "")
    answer = last.answers[0] if last.answers else ""
    if running:
        return running
    if Question.of(last.question).wh_word in ("what", "which") and answer[:1].isupper():
        return answer
    return subject_of(last.question)


def subject_of(question: str) -> str:
    """The last capitalised name in a question after its first word ("the Eiffel Tower", "Jupiter")."""
    names = re.findall(NAME, question[1:])
    names = [n for n in names if n.split()[-1].lower() not in STOPWORDS]
    return names[-1] if names else ""
