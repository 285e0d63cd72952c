"""The chat turns a generator reads, as text: ChatML (the shipped Qwen readers) or a model's own Jinja chat
template (a GGUF's ``tokenizer.chat_template``), cut into the pieces the readers' cached contexts grow by.

The readers never render a whole conversation at once: a system turn and worked examples are read once and
cached, then each question adds a user turn and the opening of the assistant's reply, and a reply is closed
before a follow-up turn. :meth:`Chat.from_template` finds those pieces by rendering conversations of sentinel
words with the template and cutting around them, then checks that the pieces put back together render a
longer conversation exactly as the template does; a template whose earlier turns change as the
conversation grows (one that moves the system prompt into the last user turn, say) is refused
(:class:`TemplateError`). Gemma's templates fold the system prompt into the first user turn: so do the pieces
(``first_user_pre`` is then empty), and a template that refuses a system role gets it folded the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache

SENTINELS = ("Qsysq", "Quoneq", "Qaoneq", "Qutwoq", "Qatwoq", "Quthreeq")
FOLD = "\n\n"  # between a system prompt folded into the first user turn and that turn's words (Gemma's own)


class TemplateError(ValueError):
    """A chat template the readers cannot use; the message says why in one line."""


@dataclass(frozen=True)
class Chat:
    """The text around each turn: ``system(S)`` opens a conversation, ``turn("user", U, first=...)`` follows it
    (``first``: the user turn right after the system turn), ``opener`` starts the assistant's reply and
    ``closer`` ends it."""

    sys_pre: str
    sys_post: str
    user_pre: str
    first_user_pre: str
    user_post: str
    opener: str
    closer: str
    past_opener: str = ""  # an earlier reply's opening where the template writes it apart (Qwen3's empty thoughts)
    start: str = ""  # before a conversation with no system turn (a BOS, or a default system turn the template adds)

    def system(self, content: str) -> str:
        return self.sys_pre + content + self.sys_post

    def turn(self, role: str, content: str, first: bool = False) -> str:
        """A whole user or assistant turn (an assistant turn: its words and the closer)."""
        if role == "system":
            return self.system(content)
        if role == "assistant":
            return (self.past_opener or self.opener) + content + self.closer
        return (self.first_user_pre if first else self.user_pre) + content + self.user_post

    def ask(self, content: str, first: bool = False) -> str:
        """A user turn and the opening of the assistant's reply."""
        return self.turn("user", content, first) + self.opener

    def render(self, messages: list, system_prompt: str = "") -> str:
        """A conversation (``Message``-like: ``.role``, ``.content``) ending with the assistant's opener;
        ``system_prompt`` when it has no system turn."""
        turns = [(m.role, m.content) for m in messages]
        if system_prompt and (not turns or turns[0][0] != "system"):
            turns.insert(0, ("system", system_prompt))
        out, after_system = [] if turns and turns[0][0] == "system" else [self.start], False
        for role, content in turns:
            out.append(self.turn(role, content, first=after_system))
            after_system = role == "system"
        return "".join(out) + self.opener

    @classmethod
    def from_template(cls, template: str, bos_token: str = "", eos_token: str = "", add_bos: bool = False) -> "Chat":
        """The pieces of a Jinja chat template (TemplateError: it cannot be rendered, or not turn by turn);
        ``add_bos``: the model reads ``bos_token`` first even where its template does not write it."""
        if not template or not template.strip():
            raise TemplateError("it has no chat template (tokenizer.chat_template)")
        render = _renderer(template, bos_token, eos_token)
        s, u1, a1, u2, a2, u3 = SENTINELS
        try:
            probe = render([("system", s), ("user", u1), ("assistant", a1), ("user", u2)], True)
            folded = False
        except TemplateError:
            probe = render([("user", u1), ("assistant", a1), ("user", u2)], True)  # no system role: fold it in
            folded = True
        def unended(text: str, going_on: str) -> str:
            """``text`` as it reads inside a longer conversation (``going_on``): without the EOS some templates end
            a conversation with (Phi-3's) where the longer one does not write it there."""
            if eos_token and text.endswith(eos_token) and not going_on.startswith(text):
                return text[: len(text) - len(eos_token)]
            return text

        first_open = render([("user", u1)], True)
        first = unended(render([("user", u1)], False), first_open)
        if not first_open.startswith(first):
            raise TemplateError("its chat template changes the conversation when it opens the assistant's reply")
        opener = first_open[len(first):]  # "" where a reply follows the user turn directly (Mistral's [/INST])
        closer = unended(_after(render([("user", u1), ("assistant", a1)], False), a1), _after(probe, a1))
        after_u2 = _after(probe, u2)
        if not after_u2.endswith(opener):
            raise TemplateError("its chat template does not end a conversation with the assistant's opening")
        user_post = after_u2[: len(after_u2) - len(opener)]
        between = _between(probe, a1, u2)
        if not between.startswith(closer):
            raise TemplateError("its chat template renders an assistant turn differently once another turn follows")
        user_pre = between[len(closer):]
        if not (user_pre or user_post or opener):
            raise TemplateError("its chat template marks no turns (it writes the words alone)")
        replied = _between(probe, u1, a1)
        if not replied.startswith(user_post):
            raise TemplateError("its chat template ends the first user turn unlike the others")
        past = replied[len(user_post):]
        past = "" if past == opener else past
        bare = _before(first, u1)  # what the template writes before a first user turn when there is no system turn
        if not bare.endswith(user_pre):
            raise TemplateError("its chat template opens the first user turn unlike the others")
        start = bare[: len(bare) - len(user_pre)]
        if folded:
            pieces = cls(bare, FOLD, user_pre, "", user_post, opener, closer, past, start)
        else:
            to_user = _between(probe, s, u1)
            standalone = user_pre != "" and to_user.endswith(user_pre)
            pieces = cls(_before(probe, s), to_user[: len(to_user) - len(user_pre)] if standalone else to_user, user_pre,
                         user_pre if standalone else "", user_post, opener, closer, past, start)
        turns = [("user", u1), ("assistant", a1), ("user", u2), ("assistant", a2), ("user", u3)]
        for conversation in [turns] if folded else [turns, [("system", s), *turns]]:
            if pieces.render([_Turn(r, c) for r, c in conversation]) != render(conversation, True):
                raise TemplateError("its chat template renders earlier turns differently as the conversation grows")
        if add_bos and bos_token:  # the pieces that open a conversation
            pieces = replace(pieces, **{name: bos_token + getattr(pieces, name) for name in ("sys_pre", "start")
                                        if not getattr(pieces, name).startswith(bos_token)})
        return pieces


CHATML = Chat("<|im_start|>system\n", "<|im_end|>\n", "<|im_start|>user\n", "<|im_start|>user\n", "<|im_end|>\n",
              "<|im_start|>assistant\n", "<|im_end|>\n")  # Qwen2.5's chat format, as the shipped readers were measured


@dataclass(frozen=True)
class _Turn:
    role: str
    content: str


def _renderer(template: str, bos_token: str, eos_token: str):
    """render(turns, add_generation_prompt) with the template, in Jinja's sandbox as transformers renders it."""
    compiled = _compile(template)

    def render(turns: list[tuple[str, str]], open_reply: bool) -> str:
        from jinja2.exceptions import TemplateError as JinjaError

        messages = [{"role": role, "content": content} for role, content in turns]
        try:
            return compiled.render(messages=messages, add_generation_prompt=open_reply, bos_token=bos_token,
                                   eos_token=eos_token, enable_thinking=False, tools=None, documents=None)
        except JinjaError as exc:
            raise TemplateError(f"its chat template cannot render a conversation ({exc})") from exc
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise TemplateError(f"its chat template cannot render a conversation ({type(exc).__name__}: {exc})") from exc

    return render


@cache
def _compile(template: str):
    from jinja2 import TemplateSyntaxError
    from jinja2.exceptions import TemplateError as JinjaError
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise JinjaError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    try:
        return env.from_string(template)
    except TemplateSyntaxError as exc:
        raise TemplateError(f"its chat template is not valid Jinja ({exc.message}, line {exc.lineno})") from exc


def _find(text: str, word: str) -> int:
    at = text.find(word)
    if at < 0 or text.find(word, at + 1) >= 0:
        raise TemplateError("its chat template does not write each turn's words once, as given")
    return at


def _before(text: str, word: str) -> str:
    return text[: _find(text, word)]


def _after(text: str, word: str) -> str:
    return text[_find(text, word) + len(word):]


def _between(text: str, left: str, right: str) -> str:
    start, end = _find(text, left) + len(left), _find(text, right)
    if end < start:
        raise TemplateError("its chat template does not write the turns in the order given (it moves the system prompt)")
    return text[start:end]
