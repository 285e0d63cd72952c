"""What the reader says to the model: a system turn, worked examples, one turn per passage, and the
rewrite request that continues a passage's turn, in the reader's own chat format (``Chat``)."""

from __future__ import annotations

from ambigdemo.runtimes.chat import Chat

SYSTEM = (
    "You answer a question from one Wikipedia passage. Reply with the shortest answer that the passage "
    "states (a name, date or number), in the passage's words. If the passage does not state the answer "
    "to the question, reply: none"
)
REWRITE_TASK = (
    "Rewrite the question so that {answer} is its only answer: add the few words from the passage that "
    "make the difference and keep the other words. Do not put {answer} in the question. Reply with the "
    "question only."
)
# Worked turns, read once at load as the prefix of every passage's context (no cost per question):
# answers, a passage that does not answer, and a rewrite. (title, text, question, reply, rewrite)
EXAMPLES = (
    ("Alexander Graham Bell", "Alexander Graham Bell was a Scottish-born inventor who patented the first practical "
     "telephone in 1876.", "Who invented the telephone?", "Alexander Graham Bell", ""),
    ("Thomas Edison", "Thomas Edison was an American inventor who developed the phonograph and a long-lasting "
     "light bulb.", "Who invented the telephone?", "none", ""),
    ("Batman (1989 film)", "Batman is a 1989 superhero film directed by Tim Burton. It stars Michael Keaton as "
     "Batman and Jack Nicholson as the Joker.", "Who played Batman?", "Michael Keaton",
     "Who played Batman in the 1989 film?"),
    ("Great Pyramid of Giza", "The Great Pyramid of Giza is the largest Egyptian pyramid. It was built as the tomb of "
     "the pharaoh Khufu around 2560 BC.", "When was the Great Pyramid built?", "around 2560 BC", ""),
)


def passage_turn(chat: Chat, title: str, text: str, question: str, max_words: int = 100, first: bool = False) -> str:
    """The user turn for one passage and the question, opening the assistant's reply (``first``: right after
    the system turn)."""
    words = text.split()
    clipped = text if len(words) <= max_words else " ".join(words[:max_words]) + " ..."
    return chat.ask(f"Passage: {title}: {clipped}\nQuestion: {question}", first)


CLOSED_BOOK = "Answer the question with the shortest answer you know: a name, date or number."


def closed_book_system(chat: Chat) -> str:
    """The system turn of the question asked with no passage (the same for every question: cached once)."""
    return chat.system(CLOSED_BOOK)


def closed_book_question(chat: Chat, question: str) -> str:
    """The user turn that follows it, opening the assistant's reply."""
    return chat.ask(question, first=True)


def closed_book_turn(chat: Chat, question: str) -> str:
    """The question asked with no passage, opening the assistant's reply: the model's own prior over answers."""
    return closed_book_system(chat) + closed_book_question(chat, question)


def example_prefix(chat: Chat) -> str:
    """System turn and worked examples, rendered exactly as a real passage's turns are."""
    parts = [chat.system(SYSTEM)]
    for n, (title, text, question, reply, rewrite) in enumerate(EXAMPLES):
        parts += [passage_turn(chat, title, text, question, first=n == 0), reply + chat.closer]
        if rewrite:
            parts += [chat.turn("user", REWRITE_TASK.format(answer=reply)), chat.turn("assistant", rewrite)]
    return "".join(parts)
