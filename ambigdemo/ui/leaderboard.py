"""The Leaderboard tab: ASQA scores, Bradley-Terry strengths, win rates and quality checks.

Only aggregates are shown. Admin actions (export, reset) appear after entering a token equal to
``AMBIGDEMO_ADMIN_TOKEN`` and every action checks the token again on the server; without the
variable they are disabled. Nothing else reads the judgment database out.
"""

from __future__ import annotations

import logging
import secrets
import tempfile
import threading
import time
from html import escape
from pathlib import Path

import gradio as gr

from ambigdemo.config import Config
from ambigdemo.judging.rating import Leaderboard, compute_leaderboard, plot_strengths
from ambigdemo.judging.store import JudgmentStore, check_admin_token

log = logging.getLogger(__name__)

ROUNDS = 1000
WRONG_TOKEN_DELAY_S = 1.0
CSS = """
.lb-table{border-collapse:collapse;margin:6px 0}
.lb-table th,.lb-table td{border-bottom:1px solid #d0d7de;padding:4px 10px;text-align:right}
.lb-table th:nth-child(2),.lb-table td:nth-child(2){text-align:left}
.lb-matrix th:first-child,.lb-matrix td:first-child{text-align:left}
.lb-count{font-size:1.05em;margin:6px 0}
.lb-note{font-size:.85em;color:#57606a}
.lb-checks li{margin:2px 0}
"""
HELP = (
    "Scores from the Compare tab's blind pairwise judgments (ASQA section 5): **HO** overall preference, "
    "**COMP** comprehensiveness and **FLUE** fluency as the percentage of comparisons won (a tie counts half), "
    "**ACC** the share of a system's interpretations judged correctly answered, and a Bradley-Terry "
    "**strength** on an Elo-like scale (mean system 1000) with a 95% bootstrap interval."
)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def table_html(lb: Leaderboard) -> str:
    """Per-system rows, count, win-rate matrix and quality checks as escaped HTML."""
    count = (f'<div class="lb-count" data-testid="lb-count"><b data-testid="lb-n">{lb.n_judgments}</b> '
             f"judgment{'s' if lb.n_judgments != 1 else ''} counted ({lb.n_skipped} skipped, not counted)</div>")
    if not lb.systems:
        return count + '<div class="lb-note">No judgments yet: judge some pairs in the Compare tab.</div>'
    rows = "".join(
        f"<tr><td>{rank}</td><td>{escape(s.system)}</td><td>{s.strength:.0f} "
        f'<span class="lb-note">({s.lower:.0f}–{s.upper:.0f})</span></td><td>{_pct(s.ho)}</td>'
        f"<td>{_pct(s.comp)}</td><td>{_pct(s.flue)}</td><td>{_pct(s.acc)}</td><td>{s.n}</td></tr>"
        for rank, s in enumerate(lb.systems, 1)
    )
    systems = (
        '<table class="lb-table" data-testid="lb-systems"><thead><tr><th>#</th><th>System</th>'
        "<th>Strength (95% CI)</th><th>HO %</th><th>COMP %</th><th>FLUE %</th><th>ACC %</th><th>n</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )
    names = [s.system for s in lb.systems]
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    body = "".join(
        f"<tr><td>{escape(a)}</td>" + "".join(
            "<td>·</td>" if a == b else f"<td>{_rate(lb.win_rate.get(a, {}).get(b))}</td>" for b in names
        ) + "</tr>"
        for a in names
    )
    matrix = (f'<h4>Win rate (row beats column, overall; ties half)</h4><table class="lb-table lb-matrix" '
              f'data-testid="lb-matrix"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>')
    bias = ("–" if lb.position_bias is None else f"{100 * lb.position_bias:.1f}%")
    kappa = "–" if lb.kappa is None else f"{lb.kappa:.2f}"
    checks = (
        '<ul class="lb-checks" data-testid="lb-checks">'
        f"<li>Position bias: the left answer wins {bias} of {lb.position_bias_n} decided votes (50% is unbiased).</li>"
        f"<li>Agreement: Cohen's kappa {kappa} over {lb.kappa_n} pairs judged by two annotators.</li>"
        f"<li>Intervals from {lb.rounds} bootstrap rounds over judgments.</li></ul>"
    )
    return count + systems + matrix + checks


def _rate(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


class LeaderboardView:
    """Computes the leaderboard and its plot from the store; one computation at a time."""

    def __init__(self, store: JudgmentStore, rounds: int = ROUNDS):
        self.store = store
        self.rounds = rounds
        self._lock = threading.Lock()
        self._plots = Path(tempfile.mkdtemp(prefix="ambigdemo-leaderboard-"))

    def refresh(self) -> tuple[str, str | None]:
        with self._lock:
            lb = compute_leaderboard(self.store.iter_all(), rounds=self.rounds)
            plot = None
            if lb.systems:
                plot = str(plot_strengths(lb, self._plots / f"strengths-{time.time_ns()}.png"))
                for old in sorted(self._plots.glob("strengths-*.png"))[:-4]:
                    old.unlink(missing_ok=True)
        return table_html(lb), plot


EXPORT_TTL_S = 600  # an export's file (and Gradio's cached copy: ``delete_cache`` in ui/app.py) lives this long


def export_for_admin(store: JudgmentStore, folder: Path, kind: str) -> tuple[Path, int]:
    """Write an export into a fresh folder with a random name, deleting every earlier export.

    Its download link is handed only to the admin's page; the random folder makes it unguessable and
    the file (with Gradio's cached copy) is deleted within ``EXPORT_TTL_S``.
    """
    kind = kind if kind in ("jsonl", "csv") else "jsonl"
    for old in folder.glob("*/judgments-*"):
        old.unlink(missing_ok=True)
        old.parent.rmdir()
    private = folder / secrets.token_urlsafe(18)
    private.mkdir()
    path = private / f"judgments-{time.strftime('%Y%m%d-%H%M%S')}.{kind}"
    return path, store.export(path, kind)


def _authorised(token: str | None, config: Config) -> str:
    """Empty when ``token`` is the admin token, else why not (after a delay on a wrong token)."""
    try:
        check_admin_token(token or "", config.admin_token)
        return ""
    except PermissionError as exc:
        if config.admin_token:
            time.sleep(WRONG_TOKEN_DELAY_S)
        return str(exc)


def build(store: JudgmentStore, config: Config, tab: gr.Tab | None = None) -> LeaderboardView:
    """Add the Leaderboard tab's components and events to the current Blocks."""
    view = LeaderboardView(store)
    gr.Markdown(HELP)
    refresh = gr.Button("Refresh", variant="primary", elem_id="lb-refresh")
    table = gr.HTML('<div class="lb-note">Press Refresh.</div>', css_template=CSS, elem_id="lb-table")
    plot = gr.Image(label="Bradley-Terry strengths (95% bootstrap intervals)", type="filepath", format="png",
                    interactive=False, elem_id="lb-plot", buttons=["download"])
    for trigger in [refresh.click] + ([tab.select] if tab is not None else []):
        trigger(view.refresh, outputs=[table, plot], api_visibility="private", concurrency_limit=1,
                concurrency_id="leaderboard")

    with gr.Accordion("Admin", open=False):
        if not config.admin_token:
            gr.Markdown("Admin actions are disabled: set `AMBIGDEMO_ADMIN_TOKEN` to enable export and reset.")
            return view
        token = gr.Textbox(label="Admin token", type="password", max_lines=1, elem_id="admin-token")
        unlock = gr.Button("Unlock", elem_id="admin-unlock")
        admin_msg = gr.Markdown(elem_id="admin-message")
        with gr.Group(visible=False) as admin:
            fmt = gr.Radio(["jsonl", "csv"], value="jsonl", label="Export format")
            export_btn = gr.Button("Export judgments", elem_id="admin-export")
            export_file = gr.File(label="Export", interactive=False, elem_id="admin-file")
            confirm = gr.Checkbox(label="I understand that reset deletes every judgment", value=False)
            reset_btn = gr.Button("Reset (delete all judgments)", variant="stop", elem_id="admin-reset")
    exports = Path(tempfile.mkdtemp(prefix="ambigdemo-export-"))

    def do_unlock(tok: str):
        why = _authorised(tok, config)
        return gr.update(visible=not why), escape(why) if why else "Admin actions unlocked."

    def do_export(tok: str, kind: str):
        why = _authorised(tok, config)
        if why:
            return None, escape(why)
        path, n = export_for_admin(store, exports, kind)
        return str(path), f"Exported {n} judgments. The link works for this page only and expires in {EXPORT_TTL_S // 60} minutes."

    def do_reset(tok: str, sure: bool):
        why = _authorised(tok, config)
        if why:
            return escape(why), gr.update()
        if not sure:
            return "Tick the confirmation first.", gr.update()
        n = store.reset(tok, config.admin_token)
        log.warning("admin reset deleted %d judgments", n)
        return f"Deleted {n} judgments.", gr.update(value=False)

    unlock.click(do_unlock, inputs=token, outputs=[admin, admin_msg], api_visibility="private")
    token.submit(do_unlock, inputs=token, outputs=[admin, admin_msg], api_visibility="private")
    export_btn.click(do_export, inputs=[token, fmt], outputs=[export_file, admin_msg], api_visibility="private")
    reset_btn.click(do_reset, inputs=[token, confirm], outputs=[admin_msg, confirm], api_visibility="private")
    return view
