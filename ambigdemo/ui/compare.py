"""The Compare tab: blind pairwise judgments of two systems' answers (ASQA's human evaluation).

An annotator (a typed name, or the Hugging Face login on a Space) loads a random pair the store
says they have not judged; both answers are generated before any verdict can be given (the buttons
stay disabled, and :meth:`CompareSession.judge` rejects a verdict without both answers). They tick
the interpretations each side answers correctly (ACC), prefer A, B or a tie on comprehensiveness,
fluency and overall, and submit, skip or call both answers bad. Each shown pair carries one
``client_key``, so repeated clicks store one judgment. System names are revealed after the verdict.

Which system is on which side lives only in the server-side ``gr.State``; every text shown (answers,
imported references, comments, messages) is HTML-escaped.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import logging
import math
import random
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html import escape
from typing import Any

import gradio as gr

from ambigdemo import __version__
from ambigdemo.config import Config, oauth_client_id, space_id
from ambigdemo.judging.judgment import CRITERIA_LABELS, Judgment, utc_now
from ambigdemo.judging.store import JudgmentStore, StoreError
from ambigdemo.judging.arena import Arena
from ambigdemo.judging.systems import Pair, SystemAnswer, same_words
from ambigdemo.ui import ANSWERING
from ambigdemo.ui.render import BUSY, failed_js
from ambigdemo.ui.workers import Workers

log = logging.getLogger(__name__)

MAX_NAME_CHARS = 64
MAX_COMMENT_CHARS = 2000
MAX_LABEL_CHARS = 300
MAX_UNFINISHED = 1000  # pairs kept for a reload (the least recently shown go first)
SAVED = {"vote": "Judgment saved", "both_bad": "Saved: both answers bad", "skip": "Skipped"}
REPEATED = "Saved once: repeated submissions of this pair are ignored."
# The browser keeps the typed name and the unfinished pair's key, never a system's name. Gradio encrypts
# a BrowserState with a key it sends to the page, so it hides nothing from the annotator; a fixed key
# keeps the name across restarts of the app.
BROWSER_KEY = "ambigdemo-compare"
CRITERIA = (
    ("comprehensiveness", "Comprehensiveness: which answer covers more of the question's interpretations?"),
    ("fluency", "Fluency: which answer reads better (clear, coherent, well-formed)?"),
    ("overall", "Overall: which answer would you rather receive?"),
)
CHOICES = [("A", "A"), ("B", "B"), ("Tie", "tie")]
INSTRUCTIONS = (
    "Compare two answers to the same question without knowing which system wrote them. Questions may "
    "be **ambiguous**: a good answer names every plausible interpretation and answers each one. "
    "For each side, tick the interpretations it answers **correctly**, then choose A, B or tie on each "
    "criterion and submit. The systems are revealed after your verdict."
)
CITATION = re.compile(r"\[(\d+)\]")
CSS = """
.cmp-question{font-size:1.2em;font-weight:600;margin:6px 0}
.cmp-answer{border:1px solid #d0d7de;border-radius:8px;padding:10px 14px;min-height:80px;background:#fff}
.cmp-side{font-size:.8em;color:#57606a;text-transform:uppercase;letter-spacing:.05em}
.cmp-paragraph{line-height:1.6;margin:6px 0;white-space:pre-wrap}
.cmp-paragraph a.cite{padding:0 1px;text-decoration:none}
.cmp-pending{color:#9a6700}
.cmp-meta{font-size:.85em;color:#57606a}
.cmp-passages{font-size:.85em}
.cmp-passages li{margin:4px 0}
.cmp-status{padding:8px 12px;border-radius:8px;margin:4px 0}
.cmp-ok{background:#dafbe1}
.cmp-warn{background:#fff8c5}
.cmp-reveal code{font-weight:600}
"""


NARROW = "(max-width: 640px)"
# Page rules (``launch`` adds them; Gradio scopes them under its container, so none starts at body): on
# a narrow screen the two answers are two tabs chosen by the A/B switch, each with its ticks, the
# criteria below both; the switch is hidden elsewhere.
PAGE_CSS = f"""
#side-switch{{display:none}}
.cmp-expires{{animation:cmp-expire 0s forwards}}
@keyframes cmp-expire{{to{{visibility:hidden;height:0;padding:0;margin:0;overflow:hidden}}}}
@media {NARROW} {{
  #side-switch{{display:block}}
  #compare-sides:has(#side-switch label.selected input[value="B"]) #side-a{{display:none !important}}
  #compare-sides:not(:has(#side-switch label.selected input[value="B"])) #side-b{{display:none !important}}
}}
"""
SIDE_CHOICES = [("Answer A", "A"), ("Answer B", "B")]
FIRST_SIDE_JS = "() => 'A'"  # a new pair opens on answer A
SHOW_STATUS_JS = "() => document.querySelector('#compare-status')?.scrollIntoView({block: 'center'})"


def keep_work_js(key: str) -> str:
    """Browser-side: the annotator's ``key`` (a tick group, a criterion, the comment) into the browser's
    memory, beside the key of the pair it was given on; each control writes its own field only."""
    return f"""(browser, value) => {{
    const b = browser || {{}};
    const work = b.work && b.work.pair === b.pair ? b.work : {{pair: b.pair || ""}};
    return {{...b, work: {{...work, {json.dumps(key)}: value}}}};
}}"""


NEXT_BELOW_JS = """() => {
    const next = document.querySelector('#next-pair');
    if (next && !next.disabled) { next.click(); document.querySelector('#compare-question')?.scrollIntoView(); }
}"""


def on_space() -> bool:
    """Identify annotators by their HF login: on a Space (``SPACE_ID``) with OAuth enabled.

    OAuth needs ``hf_oauth: true`` in the Space's README (which sets ``OAUTH_CLIENT_ID``) and
    ``gradio[oauth]``; without them Gradio cannot serve the login routes, so the typed name is used.
    """
    if not space_id():
        return False
    if not oauth_client_id():
        log.warning("SPACE_ID is set but OAuth is not enabled (hf_oauth: true); annotators type their name")
        return False
    if not all(importlib.util.find_spec(name) for name in ("authlib", "itsdangerous")):
        log.warning("gradio[oauth] is not installed; annotators type their name")
        return False
    return True


def clean_name(name: str | None) -> str:
    """Annotator key from a typed name: whitespace collapsed, case-folded, at most 64 characters."""
    return " ".join((name or "").split()).casefold()[:MAX_NAME_CHARS]


# ---------------------------------------------------------------- rendering (all text escaped)

def question_html(question: str, shown: str = "") -> str:
    """The question; ``shown`` (a random id per displayed pair) lets a page tell one pair from the next."""
    return (f'<div class="cmp-question" data-testid="compare-question" data-shown="{escape(shown)}">'
            f"{escape(question)}</div>")


def answer_html(answer: SystemAnswer | None, side: str, pending: bool = False, idle: str = "Press “Next pair”.") -> str:
    """One side's answer: escaped paragraph with [n] linked to its own escaped passages; without an
    answer, "Generating…" or ``idle``."""
    head = f'<div class="cmp-side">Answer {escape(side)}</div>'
    if answer is None:
        body = ('<div class="cmp-pending" data-testid="answer-pending">Generating…</div>' if pending
                else f'<div class="cmp-meta">{escape(idle)}</div>')
        return f'<div class="cmp-answer" data-testid="answer-{side.lower()}">{head}{body}</div>'
    n = len(answer.passages)
    prefix = f"cmp-{side.lower()}-p"

    def link(m: re.Match) -> str:
        k = int(m.group(1))
        return f'<a class="cite" href="#{prefix}{k}">[{k}]</a>' if 1 <= k <= n else m.group(0)

    paragraph = CITATION.sub(link, escape(answer.paragraph))
    count = len(answer.interpretations)
    meta = (f"Lists {count} interpretation{'s' if count != 1 else ''}: tick below the ones it answers correctly."
            if count else "Lists no interpretations: nothing to tick for this side.")
    passages = "".join(
        f'<li id="{prefix}{k}"><b>[{k}] {escape(p.get("title", ""))}</b> {escape(p.get("text", ""))}</li>'
        for k, p in enumerate(answer.passages, 1)
    )
    details = (f'<details class="cmp-passages"><summary>Passages</summary><ol>{passages}</ol></details>'
               if passages else "")
    return (f'<div class="cmp-answer" data-testid="answer-{side.lower()}" data-complete="true">{head}'
            f'<div class="cmp-paragraph">{paragraph}</div><div class="cmp-meta">{meta}</div>{details}</div>')


def interpretation_choices(answer: SystemAnswer | None) -> list[tuple[str, int]]:
    """Checkbox choices ``(label, index)``; labels are plain text (the browser shows them as text)."""
    if answer is None:
        return []
    out = []
    for k, i in enumerate(answer.interpretations):
        label = f"{k + 1}. {i['question']} → {i['answer']}"
        out.append((label if len(label) <= MAX_LABEL_CHARS else label[: MAX_LABEL_CHARS - 1] + "…", k))
    return out


def status_html(message: str, kind: str = "warn", expires_s: int = 0) -> str:
    """A message under the buttons; with ``expires_s`` it goes away by itself after that many seconds
    (a CSS animation's delay: nothing to run, nothing left behind when the wait is over)."""
    if not message:
        return ""
    expires = f' cmp-expires" style="animation-delay:{int(expires_s)}s' if expires_s > 0 else ""
    return f'<div class="cmp-status cmp-{kind}{expires}" data-testid="compare-status">{escape(message)}</div>'


def reveal_html(system_a: str, system_b: str, message: str, kind: str = "ok") -> str:
    """The store's message and which system wrote each side."""
    return (
        f'<div class="cmp-status cmp-{kind}" data-testid="compare-status">{escape(message)}'
        f'<div class="cmp-reveal" data-testid="reveal">Answer A was <code data-testid="system-a">'
        f'{escape(system_a)}</code>; answer B was <code data-testid="system-b">'
        f'{escape(system_b)}</code>. Press “Next pair” for another.</div></div>'
    )


# ---------------------------------------------------------------- server-side logic

@dataclass
class CompareSession:
    """The Compare tab's logic, independent of Gradio components (each method returns plain data)."""

    arena: Arena
    store: JudgmentStore
    rng: random.Random
    workers: Workers | None = None
    unfinished: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # handlers run on many threads

    def new_state(self, pair: Pair) -> dict[str, Any]:
        """Server-side state of one shown pair: its client_key, sides and (later) the answers."""
        return {
            "pair": pair.to_dict(), "client_key": str(uuid.uuid4()), "started_at": utc_now(),
            "answers": {"A": None, "B": None}, "done": False, "shown": uuid.uuid4().hex[:12],
        }

    def generate(self, state: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Fill ``state["answers"]`` side by side, yielding the state after each answer."""
        pair = state["pair"]
        for side, system in (("A", pair["system_a"]), ("B", pair["system_b"])):
            answer = (self.workers.call(self.arena.answer, system, pair["question"]) if self.workers
                      else self.arena.answer(system, pair["question"]))
            state["answers"][side] = answer.to_dict()
            if self.complete(state):
                state["read_from"] = time.monotonic()
            yield state

    def remember(self, state: dict[str, Any] | None) -> str:
        """Keep a pair ready to judge for a reload of the page; returns its key ("" if not ready)."""
        if not self.complete(state) or state.get("done"):
            return ""
        with self._lock:
            self.unfinished[state["client_key"]] = state
            self.unfinished.move_to_end(state["client_key"])
            while len(self.unfinished) > MAX_UNFINISHED:
                self.unfinished.popitem(last=False)
        return state["client_key"]

    def recall(self, key: str) -> dict[str, Any] | None:
        """The unfinished pair a reloaded page shows again, or None (a judged pair is no longer kept)."""
        with self._lock:
            return self.unfinished.get(key or "")

    def none_left(self) -> str:
        """Why there is no pair left to give."""
        if self.arena.complete(self.store):
            return "This study is complete: every pair has all the judgments it needs. Thank you!"
        return "You have judged every available pair. Thank you!"

    def use(self, arena: Arena) -> None:
        """Assign pairs from ``arena`` from now on (an admin started a study)."""
        self.arena = arena

    @staticmethod
    def complete(state: dict[str, Any] | None) -> bool:
        return bool(state and state.get("answers") and all(state["answers"].get(s) for s in ("A", "B")))

    def judge(self, annotator: str, state: dict[str, Any] | None, verdict: str, acc_a: Any = (), acc_b: Any = (),
              comprehensiveness: str | None = None, fluency: str | None = None, overall: str | None = None,
              comment: str | None = "") -> tuple[str, str, Judgment | None]:
        """Store one verdict on the shown pair; returns ``(kind, message, judgment)``.

        ``kind``: ``saved`` (new), ``repeat`` (same client_key: the stored one), ``rejected`` (not
        stored: missing answers, labels or identity), ``blocked`` (the store refused it: the pair
        was already judged, or the daily cap is reached).
        """
        if not annotator:
            return "rejected", "Type your name first (or sign in): it keeps your judgments apart.", None
        if not state or not state.get("pair"):
            return "rejected", "Load a pair first: press “Next pair”.", None
        if verdict != "skip" and not self.complete(state):
            return "rejected", "Wait until both answers are complete before judging.", None
        wait = self.read_left(state)
        if verdict != "skip" and wait > 0:
            return "rejected", (f"Please read both answers before judging: {math.ceil(wait)} more second"
                                f"{'s' if math.ceil(wait) != 1 else ''} (this study asks for "
                                f"{self.arena.min_read_s:.0f}). Your choices are kept."), None
        labels = {"comprehensiveness": comprehensiveness, "fluency": fluency, "overall": overall}
        if verdict == "vote":
            missing = [name for name, value in labels.items() if value not in CRITERIA_LABELS]
            if missing:
                return "rejected", f"Choose A, B or tie for: {', '.join(missing)}.", None
        else:  # a skip or "both bad" states no preference: whatever the radios show is not stored
            labels = dict.fromkeys(labels)
        pair, answers = state["pair"], state["answers"]
        totals = [len((answers.get(s) or {}).get("interpretations") or []) for s in ("A", "B")]
        try:
            judgment = Judgment.new(
                question=pair["question"], system_a=pair["system_a"], system_b=pair["system_b"],
                answer_a=answers.get("A"), answer_b=answers.get("B"), annotator=annotator,
                client_key=state["client_key"], left_is=pair["system_a"],
                acc_a=_indices(acc_a, totals[0]), acc_a_total=totals[0],
                acc_b=_indices(acc_b, totals[1]), acc_b_total=totals[1],
                verdict=verdict, comment=(comment or "").strip()[:MAX_COMMENT_CHARS],
                started_at=state["started_at"], app_version=__version__, **labels,
            )
            stored, created = self.store.add(judgment)
        except StoreError as exc:
            return "blocked", str(exc), None
        except ValueError as exc:
            log.warning("rejected judgment: %s", exc)
            return "rejected", f"Not saved: {exc}", None
        state["done"] = True
        with self._lock:
            self.unfinished.pop(state["client_key"], None)
        if not created:
            return "repeat", f"{SAVED[stored.verdict]}{self.today(annotator)} {REPEATED}", stored
        return "saved", SAVED[verdict] + self.today(annotator), stored

    def read_left(self, state: dict[str, Any] | None) -> float:
        """Seconds the study still asks the annotator to read the shown pair before a verdict (0 when none)."""
        if not state or not self.complete(state):
            return 0.0
        return max(0.0, self.arena.min_read_s - (time.monotonic() - state.get("read_from", 0.0)))

    def today(self, annotator: str) -> str:
        n, cap = self.store.count_today(annotator), self.store.daily_cap
        return f". You have given {n} verdict{'s' if n != 1 else ''} today" + (f" (daily cap {cap})." if cap else ".")


def _indices(values: Any, total: int) -> list[int]:
    """Ticked interpretation indices, validated: ints in ``range(total)``, distinct, sorted."""
    out = set()
    for v in values or ():
        try:
            i = int(v)
        except (TypeError, ValueError):
            continue
        if 0 <= i < total:
            out.add(i)
    return sorted(out)


# ---------------------------------------------------------------- Gradio wiring

def _identified(fn: Callable, n_inputs: int, space: bool, generator: bool = False) -> Callable:
    """A handler taking ``(name, *inputs)`` that calls ``fn(annotator, *inputs)``.

    On a Space the handler also declares ``profile: gr.OAuthProfile | None`` (Gradio injects the
    HF login) and the typed name is ignored; elsewhere the annotator is the typed name.
    """

    def annotator(args: tuple) -> tuple[str, tuple]:
        if space:
            *inputs, profile = args[1:]
            return (f"hf:{profile.username}" if profile is not None else ""), tuple(inputs)
        return clean_name(args[0]), args[1:]

    if generator:
        def handler(*args):
            who, inputs = annotator(args)
            yield from fn(who, *inputs)
    else:
        def handler(*args):
            who, inputs = annotator(args)
            return fn(who, *inputs)

    params = [inspect.Parameter(f"x{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD) for i in range(n_inputs + 1)]
    annotations: dict[str, Any] = {}
    if space:
        params.append(inspect.Parameter("profile", inspect.Parameter.POSITIONAL_OR_KEYWORD))
        annotations["profile"] = gr.OAuthProfile | None
    handler.__signature__ = inspect.Signature(params)
    handler.__annotations__ = annotations
    return handler


def browser_memory() -> gr.BrowserState:
    """What the browser keeps of the Compare tab. Made outside any tab: Gradio reads a BrowserState
    from the browser when it is mounted, and a tab's components are mounted only once it is opened."""
    return gr.BrowserState({"name": "", "pair": ""}, storage_key=BROWSER_KEY, secret=BROWSER_KEY)


def build(pipeline, store: JudgmentStore, config: Config, arena: Arena | None = None,
          rng: random.Random | None = None, workers: Workers | None = None,
          page: gr.Blocks | None = None, tabs: gr.Tabs | None = None,
          memory: gr.BrowserState | None = None) -> CompareSession:
    """Add the Compare tab's components and events to the current Blocks.

    With ``page`` (the app's Blocks) and ``memory`` (its :func:`browser_memory`) a reload brings back
    the typed name and the pair being judged, reopening the tab (``tabs``, whose tab id is ``compare``)."""
    arena = arena or Arena.from_specs(pipeline, config.compare_systems, config.compare_pool or None, config.data_dir)
    session = CompareSession(arena, store, rng or random.Random(), workers)
    space = on_space()

    gr.Markdown(INSTRUCTIONS)
    with gr.Row(equal_height=True):
        if space:
            gr.LoginButton(scale=1)
        name = gr.Textbox(label="Your name", placeholder="e.g. alice", max_lines=1, scale=3,
                          elem_id="annotator", visible=not space)
        next_btn = gr.Button("Next pair", variant="primary", scale=1, elem_id="next-pair")
    question = gr.HTML(css_template=CSS, elem_id="compare-question", padding=False)
    with gr.Column(elem_id="compare-sides"):
        side = gr.Radio(SIDE_CHOICES, value="A", show_label=False, container=False, interactive=True,
                        elem_id="side-switch")
        with gr.Row(equal_height=False):
            with gr.Column(elem_id="side-a"):
                answer_a = gr.HTML(answer_html(None, "A"), css_template=CSS, elem_id="answer-a")
                acc_a = gr.CheckboxGroup([], label="Which interpretations does answer A answer correctly?",
                                         elem_id="acc-a", interactive=False)
            with gr.Column(elem_id="side-b"):
                answer_b = gr.HTML(answer_html(None, "B"), css_template=CSS, elem_id="answer-b")
                acc_b = gr.CheckboxGroup([], label="Which interpretations does answer B answer correctly?",
                                         elem_id="acc-b", interactive=False)
    radios = [gr.Radio(CHOICES, label=label, elem_id=f"crit-{key}") for key, label in CRITERIA]
    comment = gr.Textbox(label="Comment (optional)", max_lines=4, elem_id="comment")
    with gr.Row():
        submit_btn = gr.Button("Submit", variant="primary", interactive=False, elem_id="submit")
        skip_btn = gr.Button("Skip", interactive=False, elem_id="skip")
        bad_btn = gr.Button("Both bad", variant="stop", interactive=False, elem_id="both-bad")
    status = gr.HTML(css_template=CSS, elem_id="compare-status")
    next_below = gr.Button("Next pair", size="md", elem_id="next-pair-below")  # beside the confirmation
    state = gr.State(None)
    skipped = gr.State([])
    saved = memory if memory is not None else browser_memory()
    buttons = [submit_btn, skip_btn, bad_btn]

    def enable(on: bool) -> list:
        return [gr.update(interactive=on) for _ in buttons]

    def load_pair(annotator: str, current: dict | None, skipped_ids: list) -> Iterator[list]:
        keep = [gr.update()] * 9
        ready = gr.update(interactive=True)
        if not annotator:
            yield [current, *keep, *[gr.update()] * 3,
                   status_html("Type your name first (or sign in): it keeps your judgments apart."), ready]
            return
        pair = session.arena.next_pair(annotator, store, session.rng, exclude=skipped_ids)
        if pair is None:  # said where the question goes, at the top, and below the buttons as after any verdict
            done = status_html(session.none_left(), "ok")
            yield [None, done.replace('data-testid="compare-status"', 'data-testid="compare-done"'),
                   *(answer_html(None, side, idle="Nothing left to judge.") for side in "AB"), *cleared(),
                   *enable(False), done, ready]
            return
        new = session.new_state(pair)
        yield [new, question_html(pair.question, new["shown"]), answer_html(None, "A", True), answer_html(None, "B", True),
               *cleared(), *enable(False), "", gr.update(interactive=False)]
        try:
            for new in session.generate(new):
                a, b = (SystemAnswer.from_dict(x) if x else None for x in (new["answers"]["A"], new["answers"]["B"]))
                yield [new, gr.update(), answer_html(a, "A", True), answer_html(b, "B", True),
                       *[gr.update()] * 6, *enable(False), "", gr.update()]
        except Exception:  # a failing system must not leave the tab stuck
            log.exception("answering %r failed", pair.question)
            yield [None, gr.update(), gr.update(), gr.update(), *[gr.update()] * 6, *enable(False),
                   status_html("One of the systems failed on this question; press “Next pair” for another."), ready]
            return
        if same_words(a, b):
            session.arena.mark_identical(pair)
            yield [None, gr.update(), gr.update(), gr.update(), *[gr.update()] * 6, *enable(False),
                   status_html("Both systems gave the same answer here, so there is nothing to compare: "
                               "press “Next pair”.", "ok"), ready]
            return
        yield [new, gr.update(), gr.update(), gr.update(), *_acc_updates(a, b), *[gr.update()] * 4, *enable(True), "", ready]

    def cleared() -> list:
        """Every control of a pair empty: ticks, the three criteria and the comment. One update object
        per component: Gradio consumes an update's ``value`` when it applies it, so a list repeating
        one object reset the first radio only and the others kept the last pair's choice."""
        return [*_acc_updates(None, None), *(gr.update(value=None) for _ in radios), gr.update(value="")]

    def _acc_updates(a: SystemAnswer | None, b: SystemAnswer | None, ticked: tuple = ((), ())) -> list:
        """Both sides' ticks at once (``ticked``: the indices ticked on each), with the buttons that submit
        them: the groups stay mounted (a group hidden and shown again was missing from the page in 11 of
        12 fresh sessions)."""
        return [gr.update(choices=interpretation_choices(x), value=_indices(ticks, len(x.interpretations) if x else 0),
                          interactive=bool(x and x.interpretations)) for x, ticks in zip((a, b), ticked)]

    def judge(verdict: str) -> Callable:
        def fn(annotator, current, skipped_ids, acc_a_v, acc_b_v, comp, flue, overall, comment_v):
            kind, message, _ = session.judge(annotator, current, verdict, acc_a_v, acc_b_v, comp, flue, overall,
                                             comment_v)
            # rejected while the study's reading time runs (judge's only rejection left once there is a
            # name and a complete pair): the notice goes when the time is up
            wait = session.read_left(current) if kind == "rejected" and annotator and verdict != "skip" else 0.0
            if verdict == "skip" and current and current.get("pair") and kind != "rejected":
                skipped_ids = [*skipped_ids, Pair(**current["pair"]).pair_id]
            if kind == "blocked":
                return [current, skipped_ids, *enable(False), status_html(message)]
            if kind == "rejected":
                still = current is not None and not current.get("done") and session.complete(current)
                return [current, skipped_ids, *enable(still), status_html(message, expires_s=math.ceil(wait))]
            pair = current["pair"]
            names = (session.arena.shown_name(pair[side], pair["question"]) for side in ("system_a", "system_b"))
            return [current, skipped_ids, *enable(False), reveal_html(*names, message)]

        return fn

    inputs = [state, skipped, acc_a, acc_b, *radios, comment]
    judge_outputs = [state, skipped, *buttons, status]
    # Next pair is off while a pair is being answered: a click then was dropped without a sign (Gradio
    # runs one load per button at a time), so the button looked live but did nothing.
    next_outputs = [state, question, answer_a, answer_b, acc_a, acc_b, *radios, comment, *buttons, status, next_btn]
    load = _identified(load_pair, 2, space, generator=True)
    limit = {"concurrency_id": ANSWERING, "concurrency_limit": config.concurrency}
    not_loaded = failed_js(status_html(f"No pair was loaded: {BUSY}. Press “Next pair” again in a minute."))
    not_saved = failed_js(status_html(f"Your judgment was not saved yet: {BUSY}. Your choices are still here: "
                                      "press the button again in a minute."))
    # Progress shows on the two answers only. Shown on all 14 outputs, it covered the whole form (radios,
    # buttons) for as long as the queue made the load wait (98-121 s with 80 users), and its timers kept
    # the tab's main thread twice as busy (24% against 13% of a 35 s wait: a one-off CDP measurement in Chromium).
    loading = {"show_progress_on": [answer_a, answer_b], **limit}

    def keep(current: dict | None, browser: dict | None) -> dict:
        """What the browser keeps for a reload: the name and the key of the pair ready to judge."""
        return {**(browser or {}), "pair": session.remember(current)}

    def after_load(event) -> None:
        """A load that failed says so; one that succeeded is kept for a reload."""
        event.failure(None, js=not_loaded, outputs=status)
        event.then(keep, inputs=[state, saved], outputs=saved, api_visibility="private", queue=False)

    next_below.click(None, js=NEXT_BELOW_JS)
    next_btn.click(None, js=FIRST_SIDE_JS, outputs=side)
    after_load(next_btn.click(load, inputs=[name, state, skipped], outputs=next_outputs, api_visibility="private",
                              **loading))
    # In the page, in typing order (one request per key could land out of order and keep "Fa" for "Fay"); on
    # change, not input: a name entered in one go (pasted, or by a password manager) raised one input event
    # read before the box held it, and the browser kept no name.
    name.change(None, js="(typed, browser) => ({...(browser || {}), name: typed})", inputs=[name, saved],
                outputs=saved)
    # The annotator's work on the pair (ticks, criteria, comment), kept beside its key for a reload. Ticks
    # and criteria on input (what the annotator clicks, not what a load clears); the comment on change, as
    # the name (a textbox raised no input event for a paste).
    for control, key in ((acc_a, "acc_a"), (acc_b, "acc_b"), *zip(radios, (k for k, _ in CRITERIA))):
        control.input(None, js=keep_work_js(key), inputs=[saved, control], outputs=saved)
    comment.change(None, js=keep_work_js("comment"), inputs=[saved, comment], outputs=saved)
    # Verdicts run one at a time: two clicks in one instant ran side by side, and whichever answered last
    # ("Judgment saved" or "Saved once") took the status, so the page could show the wrong one.
    judging = {"concurrency_id": "compare-judge", "concurrency_limit": 1}
    for button, verdict in ((submit_btn, "vote"), (bad_btn, "both_bad")):
        judged = button.click(_identified(judge(verdict), len(inputs), space), inputs=[name, *inputs],
                              outputs=judge_outputs, api_visibility="private", trigger_mode="always_last", **judging)
        judged.failure(None, js=not_saved, outputs=status)
        judged.then(None, js=SHOW_STATUS_JS)  # on a phone the confirmation is below the fold
    skip_btn.click(None, js=FIRST_SIDE_JS, outputs=side)
    after_load(skip_btn.click(_identified(judge("skip"), len(inputs), space), inputs=[name, *inputs],
                              outputs=judge_outputs, api_visibility="private", **judging).then(
        load, inputs=[name, state, skipped], outputs=next_outputs, api_visibility="private", **loading))

    def reopen(browser: dict | None) -> list:
        """A reloaded page: the typed name back, and the Compare tab if a pair was being judged on it."""
        browser = browser or {}
        typed = gr.update(value=browser["name"]) if browser.get("name") else gr.update()
        back = session.recall(browser.get("pair", "")) is not None
        return [typed, *([gr.Tabs(selected="compare") if back else gr.update()] if tabs else [])]

    def restore(browser: dict | None) -> list:
        """The pair that was being judged, with the ticks, criteria and comment given on it, once its tab
        is mounted (an update sent while the tab opened left Gradio's progress over its components)."""
        browser = browser or {}
        current = session.recall(browser.get("pair", ""))
        if current is None:
            return [gr.update() for _ in range(7 + len(radios) + len(buttons) + 1)]
        given = browser.get("work") or {}
        given = given if given.get("pair") == current["client_key"] else {}
        a, b = (SystemAnswer.from_dict(current["answers"][side]) for side in "AB")
        chosen = [gr.update(value=given.get(key) if given.get(key) in CRITERIA_LABELS else None) for key, _ in CRITERIA]
        typed = str(given.get("comment") or "")[:MAX_COMMENT_CHARS]
        return [current, question_html(current["pair"]["question"], current["shown"]), answer_html(a, "A"),
                answer_html(b, "B"), *_acc_updates(a, b, (given.get("acc_a"), given.get("acc_b"))), *chosen,
                gr.update(value=typed), *enable(True),
                status_html("Your unfinished pair is back: judge it, or press “Next pair” for another.", "ok")]

    if page is not None:
        page.load(reopen, inputs=saved, outputs=[name, *([tabs] if tabs else [])], api_visibility="private",
                  queue=False, show_progress="hidden").then(
            restore, inputs=saved, outputs=[state, question, answer_a, answer_b, acc_a, acc_b, *radios, comment, *buttons,
                                            status],
            api_visibility="private", show_progress="hidden")
    return session
