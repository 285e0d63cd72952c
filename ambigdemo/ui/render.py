"""Result -> HTML for the Ask tab. Every piece of user or passage text goes through ``html.escape``."""

from __future__ import annotations

import json
import re
from html import escape as _html_escape

from ambigdemo.corpus import WIKI_CREDIT
from ambigdemo.text import normalize_answer, visible, word_diff
from ambigdemo.types import Also, Interpretation, Passage, Result, passage_title

CITATION = re.compile(r"\[(\d+)\]")
WORD = re.compile(r"\w+(?:[-'\u2019]\w+)*|[^\w\s]", re.UNICODE)  # the tokens of ``text.words``, with their places


def escape(text: str) -> str:
    """HTML-escaped, control and bidirectional-override characters removed: what every shown text goes through."""
    return _html_escape(visible(text))


def anchor(n: int) -> str:
    return f"passage-{n}"


def diff_html(prompt: str, rewrite: str) -> str:
    """The rewrite as written (its own spacing kept), added words in <ins>, removed words in <del> where they were."""
    prompt, rewrite = visible(prompt), visible(rewrite)
    spans = [m.span() for m in WORD.finditer(rewrite)]
    parts, j, end = [], 0, 0
    for op, word in word_diff(prompt, rewrite):
        if op == "-":
            parts.append(f" <del>{escape(word)}</del>")
            continue
        start, stop = spans[j]
        gap, token = escape(rewrite[end:start]), escape(rewrite[start:stop])
        parts.append(gap + (f"<ins>{token}</ins>" if op == "+" else token))
        j, end = j + 1, stop
    return "".join(parts).strip() + escape(rewrite[end:])


def card_html(prompt: str, n: int, interp: Interpretation, numbers: dict[str, int], ambiguous: bool) -> str:
    links = " ".join(
        f'<a class="cite" href="#{anchor(numbers[pid])}">[{numbers[pid]}]</a>' for pid in interp.passages if pid in numbers
    )
    label = f"Reading {n}" if ambiguous else "Answer"
    if interp.source == "pending":
        label += " (finding the words that tell it apart…)" if ambiguous else ""
    apart = ""
    if interp.source == "as asked" and ambiguous and interp.passages:
        title = passage_title(interp.passages[0])
        apart = f'<div class="ad-apart" data-testid="unrewritten">not rewritten: the reading of “{escape(title)}”</div>'
    return (
        f'<div class="ad-card" data-testid="interpretation">'
        f'<div class="ad-label">{label}</div>'
        f'<div class="ad-question">{diff_html(prompt, interp.question)}</div>{apart}'
        f'<div class="ad-answer">{escape(interp.answer)} {links}</div></div>'
    )


def interpretations_html(result: Result) -> str:
    numbers = {p.id: n for n, p in enumerate(result.passages, 1)}
    more = ('<div class="ad-also-pending" data-testid="also-pending">Reading further passages for less certain '
            "answers…</div>") if result.also_pending else ""
    if not result.interpretations:
        message = escape(result.message or "No answer found.")
        return f'<div class="ad-empty" data-testid="no-answer">{message}</div>' + also_html(result.also, numbers) + more
    head = (
        f'<div class="ad-summary">{len(result.interpretations)} answers: the question can be read '
        f"{len(result.interpretations)} ways, each rewritten below to ask for one answer.</div>"
        if result.ambiguous
        else '<div class="ad-summary">One answer found in the passages.</div>'
    )
    cards = "".join(
        card_html(result.question, n, i, numbers, result.ambiguous) for n, i in enumerate(result.interpretations, 1)
    )
    return head + f'<div class="ad-cards">{cards}</div>' + also_html(result.also, numbers) + more


def marked(sentence: str, answer: str) -> str:
    """``sentence`` escaped, its first mention of ``answer`` (any case) in <mark>."""
    at = sentence.lower().find(answer.lower())
    if at < 0:
        return escape(sentence)
    end = at + len(answer)
    return f"{escape(sentence[:at])}<mark>{escape(sentence[at:end])}</mark>{escape(sentence[end:])}"


def also_html(also: list[Also], numbers: dict[str, int], link: bool = True) -> str:
    """"Also in the passages": answers that scored under the readings, each with the sentence stating it and
    its passage's number (``link``: a link to the passage below), not rewritten and not in the paragraph ("" for none)."""
    if not also:
        return ""

    def cite(n: int) -> str:
        return f'<a class="cite" href="#{anchor(n)}">[{n}]</a>' if link else f'<span class="cite">[{n}]</span>'

    items = "".join(
        f'<li data-testid="also"><b>{escape(a.answer)}</b> {cite(numbers[a.passage])}'
        f'<div class="ad-also-sentence">“{marked(a.sentence, a.answer)}”</div></li>'
        for a in also if a.passage in numbers
    )
    return (
        '<div class="ad-also"><div class="ad-label">Also in the passages</div>'
        '<div class="ad-also-note">Less certain: answers a passage states that scored too low to be shown as readings. '
        f'Read the sentence before relying on one.</div><ul>{items}</ul></div>'
    )


def paragraph_html(text: str, n_passages: int, final: bool = True, pending: str = "") -> str:
    """The paragraph, escaped, with [n] turned into links to passage n; ``pending`` (the sentence
    being written, not checked yet) follows in grey, so a sentence the check replaces was never shown
    as part of the answer."""
    if not text and not pending:
        return ""

    def link(m: re.Match) -> str:
        n = int(m.group(1))
        return f'<a class="cite" href="#{anchor(n)}">[{n}]</a>' if 1 <= n <= n_passages else m.group(0)

    body = CITATION.sub(link, escape(text))
    if pending:
        body += f' <span class="ad-pending" data-testid="pending">{escape(pending)}</span>'
    state = "" if final else '<span class="ad-writing"> (writing…)</span>'
    return f'<div class="ad-paragraph" data-testid="paragraph">{body}{state}</div>'


def passages_html(passages: list[Passage], credit: str = WIKI_CREDIT) -> str:
    items = "".join(
        f'<li id="{anchor(n)}"><b>[{n}] {escape(p.title)}</b> <span class="ad-score">{p.score:.2f}</span>'
        f"<div>{escape(p.text)}</div></li>"
        for n, p in enumerate(passages, 1)
    )
    return f'<ul class="ad-passages">{items}</ul><div class="ad-credit">{escape(credit)}</div>' if items else ""


def note_html(note: str) -> str:
    """A remark on how the question was read, above its answers ("" for none)."""
    return f'<div class="ad-note" data-testid="note">{escape(note)}</div>' if note else ""


def conversation_html(history: list[dict]) -> str:
    """The conversation so far: each turn as asked, the standalone question it was answered as, its answers."""
    rows = []
    for turn in history:
        asked_as = "" if turn["question"] == turn["asked"] else f'<div class="ad-label">answered as: {escape(turn["question"])}</div>'
        answers = "; ".join(escape(a) for a in turn["answers"]) or "cannot answer from the passages"
        rows.append(f'<li data-testid="turn"><b>{escape(turn["asked"])}</b>{asked_as}<div>→ {answers}</div></li>')
    return f'<div class="ad-label">Conversation so far</div><ol class="ad-turns">{"".join(rows)}</ol>' if rows else ""


def contrast_html(a: Result, b: Result | None, credit: str = WIKI_CREDIT) -> str:
    """Two questions side by side: B's word edit of A, whether the answer changed, each side's answers
    and passages, the passages both retrieved marked "in both"."""
    credit = f'<div class="ad-credit">{escape(credit)}</div>'
    if b is None:
        return _side_html("A", a, set()) + credit
    shared = {p.id for p in a.passages} & {p.id for p in b.passages}
    answers = [{normalize_answer(i.answer) for i in r.interpretations} for r in (a, b)]
    changed = answers[0] != answers[1]
    verdict = "The answer changed." if changed else "Same answer: the edit did not change what the passages answer."
    head = (
        f'<div class="ad-label">B as an edit of A</div><div class="ad-question" data-testid="contrast-edit">{diff_html(a.question, b.question)}</div>'
        f'<div class="ad-verdict" data-testid="verdict" data-changed="{str(changed).lower()}">{verdict} '
        f"{len(shared)} of the top {max(len(a.passages), len(b.passages))} passages are retrieved for both.</div>"
    )
    return head + f'<div class="ad-contrast">{_side_html("A", a, shared)}{_side_html("B", b, shared)}</div>' + credit


def _side_html(name: str, result: Result, shared: set[str]) -> str:
    """One question's answers, the less certain ones under "Also in the passages", and its passages."""
    answers = "".join(f"<li>{escape(i.answer)}</li>" for i in result.interpretations) or f"<li>{escape(result.message or 'No answer found.')}</li>"
    passages = "".join(
        f'<li class="{"ad-shared" if p.id in shared else ""}" data-testid="contrast-passage">'
        f'<b>{escape(p.title)}</b> <span class="ad-score">{p.score:.2f}</span>{" <i>in both</i>" if p.id in shared else ""}</li>'
        for p in result.passages
    )
    numbers = {p.id: n for n, p in enumerate(result.passages, 1)}  # the side's own numbered list
    return (
        f'<div class="ad-side" data-testid="side-{name.lower()}"><div class="ad-label">{name}: {escape(result.question)}</div>'
        f'<ul class="ad-answers">{answers}</ul>{also_html(result.also, numbers, link=False)}'
        f'<ol class="ad-passages">{passages}</ol></div>'
    )


def timings_html(timings: dict[str, float]) -> str:
    cells = "".join(f"<tr><td>{escape(k)}</td><td>{v:.0f} ms</td></tr>" for k, v in timings.items())
    return f'<table class="ad-timings">{cells}</table>' if cells else ""


BUSY = "too many people are asking at once (or the connection dropped)"
UNANSWERED = (
    f'<div class="ad-busy" role="alert" data-testid="busy">ambigdemo could not take this question: {BUSY}. '
    "Nothing was saved or lost. Please press the button again in a minute.</div>"
)


def failed_js(first: str, n_outputs: int = 1, echo: bool = False, unless: str = "") -> str:
    """Browser-side handler for an event that failed before reaching Python (Gradio's full queue):
    ``first`` into the first of ``n_outputs``, the others emptied; ``echo`` puts the handler's one
    input before them (an example's text into the question box). Where the JavaScript condition
    ``unless`` holds, the failure was asked for (Gradio runs the failure handlers of the events a
    click cancels): every output is emptied, no message, and ``window.ambigdemoQuiet`` counts it (a page
    waits on it to know a cancelled answer has ended in the browser too)."""
    values = json.dumps([first] + [""] * (n_outputs - 1))
    quiet = json.dumps([""] * (n_outputs + echo))
    chosen = f"({unless}) ? (window.ambigdemoQuiet = (window.ambigdemoQuiet || 0) + 1, {quiet}) : " if unless else ""
    return f"(text) => {chosen}[text, ...{values}]" if echo else f"() => {chosen}{values}"


CSS = """
.ad-card{border:1px solid #d0d7de;border-radius:8px;padding:10px 14px;margin:8px 0;background:#fff}
.ad-label{font-size:.8em;color:#57606a}
.ad-apart{font-size:.8em;color:#57606a;font-style:italic}
.ad-question{font-size:1.1em;margin:4px 0}
.ad-answer{font-weight:600}
.ad-question ins{background:#dafbe1;text-decoration:none;padding:0 2px}
.ad-question del{background:#ffebe9;padding:0 2px}
.ad-paragraph{line-height:1.6}
.ad-also{border:1px dashed #d0d7de;border-radius:8px;padding:8px 14px;margin:8px 0;background:#f6f8fa}
.ad-also ul{margin:4px 0;padding-left:18px}
.ad-also-note{font-size:.8em;color:#57606a}
.ad-also-sentence{font-size:.9em;color:#424a53}
.ad-also-pending{font-size:.85em;color:#57606a;margin:6px 0}
.ad-also mark{background:#fff8c5;padding:0 1px}
.ad-pending{color:#6e7781;font-style:italic}
.ad-passages{list-style:none;padding-left:0}
.ad-passages li{margin:6px 0}
a.cite{padding:0 !important;margin:0 !important}
.ad-credit{font-size:.8em;color:#57606a}
.ad-empty{padding:10px;color:#9a6700}
@media (max-width: 640px){.tab-container button{padding:0 7px !important;font-size:14px !important}}
.ad-note{padding:8px 12px;margin:4px 0;border-radius:8px;background:#fff8c5;color:#57606a}
.ad-turns{margin:4px 0 0 1.2em;padding:0}
.ad-turns li{margin:4px 0}
.ad-contrast{display:flex;flex-wrap:wrap;gap:12px}
.ad-side{flex:1 1 300px;min-width:0}
.ad-shared{background:#fff8c5}
.ad-verdict{margin:6px 0;font-weight:600}
[data-testid=status-tracker]:has(> .error){display:none}
.ad-busy{padding:10px;border:1px solid #cf222e;border-radius:6px;color:#82071e;background:#fff5f5}
#examples{flex-wrap:wrap;gap:6px}
#examples button{flex:1 1 auto;white-space:normal;max-width:100%}
.ad-card,.ad-paragraph,.ad-passages{overflow-wrap:anywhere}
"""
