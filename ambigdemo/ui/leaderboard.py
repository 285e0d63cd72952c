"""The Leaderboard tab: ASQA scores, Bradley-Terry strengths, win rates and quality checks.

Only aggregates are shown. Admin actions (export, reset) appear after entering a token equal to
``AMBIGDEMO_ADMIN_TOKEN`` and every action checks the token again on the server; without the
variable they are disabled. Nothing else reads the judgment database out.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from html import escape
from pathlib import Path

import gradio as gr

from ambigdemo.config import Config
from ambigdemo.judging import exports
from ambigdemo.judging.agreement import CriterionAgreement, Estimate, agreement
from ambigdemo.judging.predictions import load_questions, read_predictions, save_system
from ambigdemo.judging.quality import AnnotatorReport, annotator_reports, flagged
from ambigdemo.judging.rating import Leaderboard, compute_leaderboard, plot_strengths
from ambigdemo.judging.store import JudgmentStore, check_admin_token
from ambigdemo.judging.study import Study
from ambigdemo.judging.systems import STORED_PREFIX, SpecError, parse_specs

log = logging.getLogger(__name__)

ROUNDS = 1000
AGREEMENT_ROUNDS = 200
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


def _estimate(e: Estimate) -> str:
    return "–" if e.value is None else f'{e.value:.2f} <span class="lb-note">({e.lower:.2f} to {e.upper:.2f})</span>'


def agreement_html(rows: list[CriterionAgreement]) -> str:
    """Alpha, Fleiss' and Cohen's kappa per criterion, with their intervals and item counts."""
    body = "".join(
        f"<tr><td>{escape(r.criterion)}</td><td>{_estimate(r.alpha)}</td><td>{_estimate(r.fleiss)}</td>"
        f"<td>{_estimate(r.cohen)}</td><td>{r.alpha.n}</td></tr>" for r in rows)
    return ('<h4>Agreement between annotators (95% bootstrap intervals over pairs)</h4>'
            '<table class="lb-table lb-matrix" data-testid="lb-agreement"><thead><tr><th>Criterion</th>'
            "<th>Krippendorff's alpha</th><th>Fleiss' kappa</th><th>Cohen's kappa</th><th>pairs</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


def quality_html(reports: list[AnnotatorReport]) -> str:
    """Per-annotator checks for the admin: attention, reading time, side share, outlier p, flags."""
    if not reports:
        return '<div class="lb-note">No judgments yet.</div>'
    def cell(x: float | None, fmt: str) -> str:
        return "–" if x is None else format(x, fmt)
    body = "".join(
        f'<tr data-flagged="{str(bool(r.flags)).lower()}"><td>{escape(r.annotator)}</td><td>{r.judgments}</td>'
        f"<td>{r.attention_passed}/{r.attention_total}</td><td>{cell(r.median_read_s, '.0f')}</td>"
        f"<td>{cell(None if r.left_share is None else 100 * r.left_share, '.0f')}</td><td>{cell(r.outlier_p, '.2g')}</td>"
        f"<td>{escape('; '.join(r.flags)) or 'none'}</td></tr>" for r in reports)
    return ('<table class="lb-table lb-matrix" data-testid="admin-quality"><thead><tr><th>Annotator</th><th>judgments</th>'
            "<th>attention passed</th><th>median read s</th><th>left %</th><th>outlier p</th><th>flags</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


class LeaderboardView:
    """Computes the leaderboard and its plot from the store; one computation at a time."""

    def __init__(self, store: JudgmentStore, rounds: int = ROUNDS):
        self.store = store
        self.rounds = rounds
        self._lock = threading.Lock()
        self._folder = tempfile.TemporaryDirectory(prefix="ambigdemo-leaderboard-")  # deleted with the view, or at exit
        self._plots = Path(self._folder.name) / "plots"
        self.exports = Path(self._folder.name) / "exports"  # the admin's exports (export_for_admin)
        self._plots.mkdir()
        self.exports.mkdir()

    def refresh(self, exclude_flagged: bool = False) -> tuple[str, str | None]:
        with self._lock:
            judgments = list(self.store.iter_all())
            left_out = flagged(judgments) if exclude_flagged else set()
            lb = compute_leaderboard(judgments, rounds=self.rounds, exclude=left_out)
            kept = [j for j in judgments if j.annotator not in left_out]
            html = table_html(lb) + (agreement_html(agreement(kept, rounds=AGREEMENT_ROUNDS)) if lb.systems else "")
            if left_out:
                html += f'<div class="lb-note">Left out {len(left_out)} flagged annotator(s).</div>'
            plot = None
            if lb.systems:
                plot = str(plot_strengths(lb, self._plots / f"strengths-{time.time_ns()}.png"))
                for old in sorted(self._plots.glob("strengths-*.png"))[:-4]:
                    old.unlink(missing_ok=True)
        return html, plot


EXPORT_KINDS = ("jsonl", "csv", "criteria-jsonl", "criteria-csv", "hf")
EXPORT_TTL_S = 600  # an export's file (and Gradio's cached copy: ``delete_cache`` in ui/app.py) lives this long


def export_for_admin(store: JudgmentStore, folder: Path, kind: str) -> tuple[Path, int]:
    """Write an export into a fresh folder with a random name, deleting every earlier export.

    Its download link is handed only to the admin's page; the random folder makes it unguessable and
    the file (with Gradio's cached copy) is deleted within ``EXPORT_TTL_S``.
    """
    kind = kind if kind in EXPORT_KINDS else "jsonl"
    for old in folder.glob("*/judgments-*"):
        old.unlink(missing_ok=True)
        old.parent.rmdir()
    private = folder / secrets.token_urlsafe(18)
    private.mkdir()
    suffix = {"criteria-jsonl": "criteria.jsonl", "criteria-csv": "criteria.csv"}.get(kind, kind)
    path = private / f"judgments-{time.strftime('%Y%m%d-%H%M%S')}.{suffix}"
    if kind == "hf":
        n = exports.write(store.iter_all(), private / "dataset", "hf")
        shutil.make_archive(str(path.with_suffix("")), "zip", private / "dataset")
        shutil.rmtree(private / "dataset")
        return path.with_suffix(".zip"), n
    return path, exports.write(store.iter_all(), path, kind)


def _authorised(token: str | None, config: Config) -> str:
    """Empty when ``token`` is the admin token, else why not (after a delay on a wrong token)."""
    try:
        check_admin_token(token or "", config.admin_token)
        return ""
    except PermissionError as exc:
        if config.admin_token:
            time.sleep(WRONG_TOKEN_DELAY_S)
        return str(exc)


def import_system(name: str, upload: str | None, fmt: str, questions: str | None, config: Config) -> str:
    """Import an uploaded prediction file as ``stored:NAME``; the message says what happened or why not."""
    if not upload:
        return "Choose a prediction file first."
    try:
        gold = load_questions(questions) if questions else None
        answers = read_predictions(upload, STORED_PREFIX + (name or "").strip(), "" if fmt == "auto" else fmt, gold)
        path = save_system((name or "").strip(), answers, config.systems_dir)
    except SpecError as exc:
        return f"Not imported: {exc}"
    return f"Imported {len(answers)} answers as {STORED_PREFIX}{path.stem}."


def create_study(name: str, systems: str, questions: str | None, per_pair: float, attention: float, min_read: float,
                 config: Config, start: Callable[[Study], None]) -> str:
    """Save a study and make it the Compare tab's; the message says what happened or why not."""
    if not questions:
        return "Choose the study's question set first."
    try:
        study = Study((name or "").strip(), parse_specs(systems), load_questions(questions), int(per_pair),
                      float(attention), float(min_read))
        start(study)
        study.save(config.studies_dir)
    except SpecError as exc:
        return f"Not started: {exc}"
    return (f"Study {study.name} started: {len(study.systems)} systems, {len(study.questions)} questions, "
            f"{study.per_pair} judgments per pair. The Compare tab now assigns its pairs.")


def build(store: JudgmentStore, config: Config, tab: gr.Tab | None = None,
          start_study: Callable[[Study], None] | None = None) -> LeaderboardView:
    """Add the Leaderboard tab's components and events to the current Blocks.

    ``start_study`` makes a study the Compare tab's (the admin view's "Start study").
    """
    view = LeaderboardView(store)
    gr.Markdown(HELP)
    with gr.Row():
        refresh = gr.Button("Refresh", variant="primary", elem_id="lb-refresh")
        exclude = gr.Checkbox(label="Leave out flagged annotators", value=False, elem_id="lb-exclude")
    table = gr.HTML('<div class="lb-note">Press Refresh.</div>', css_template=CSS, elem_id="lb-table")
    plot = gr.Image(label="Bradley-Terry strengths (95% bootstrap intervals)", type="filepath", format="png",
                    interactive=False, elem_id="lb-plot", buttons=["download"])
    for trigger in [refresh.click] + ([tab.select] if tab is not None else []):
        trigger(view.refresh, inputs=exclude, outputs=[table, plot], api_visibility="private", concurrency_limit=1,
                concurrency_id="leaderboard")

    with gr.Accordion("Admin", open=False):
        if not config.admin_token:
            gr.Markdown("Admin actions are disabled: set `AMBIGDEMO_ADMIN_TOKEN` to enable quality checks, "
                        "system import, studies, export and reset.")
            return view
        token = gr.Textbox(label="Admin token", type="password", max_lines=1, elem_id="admin-token")
        unlock = gr.Button("Unlock", elem_id="admin-unlock")
        admin_msg = gr.Markdown(elem_id="admin-message")
        with gr.Group(visible=False) as admin:
            quality_btn = gr.Button("Annotator quality", elem_id="admin-quality-btn")
            quality = gr.HTML(css_template=CSS, elem_id="admin-quality")
            gr.Markdown("**Import a system**: AmbigQA prediction JSON, ASQA `{id: long answer}` JSON, or JSONL "
                        "(`question`, `paragraph`, `interpretations`, `passages`); the JSON forms need their question set.")
            with gr.Row():
                system_name = gr.Textbox(label="System name", max_lines=1, elem_id="admin-system-name")
                system_fmt = gr.Dropdown(["auto", "ambigqa", "asqa", "jsonl"], value="auto", label="Format")
            system_file = gr.File(label="Predictions", type="filepath", elem_id="admin-system-file")
            questions_file = gr.File(label="Question set (AmbigNQ JSON, ASQA JSON or JSONL)", type="filepath",
                                     elem_id="admin-questions-file")
            import_btn = gr.Button("Import system", elem_id="admin-import")
            gr.Markdown("**Start a study** on the question set above (systems: e.g. `stored:mine,stored:theirs`).")
            with gr.Row():
                study_name = gr.Textbox(label="Study name", max_lines=1, elem_id="admin-study-name")
                study_systems = gr.Textbox(label="Systems", max_lines=1, elem_id="admin-study-systems")
            with gr.Row():
                per_pair = gr.Number(2, label="Judgments per pair", precision=0, minimum=1, elem_id="admin-per-pair")
                attention = gr.Number(0.1, label="Attention-check share", minimum=0, maximum=0.9, elem_id="admin-attention")
                min_read = gr.Number(10, label="Minimum reading time (s)", minimum=0, elem_id="admin-min-read")
            study_btn = gr.Button("Start study", elem_id="admin-start-study", interactive=start_study is not None)
            fmt = gr.Radio(list(EXPORT_KINDS), value="jsonl", label="Export format (hf: a zipped dataset folder with its card)")
            export_btn = gr.Button("Export judgments", elem_id="admin-export")
            export_file = gr.File(label="Export", interactive=False, elem_id="admin-file")
            confirm = gr.Checkbox(label="I understand that reset deletes every judgment", value=False)
            reset_btn = gr.Button("Reset (delete all judgments)", variant="stop", elem_id="admin-reset")

    def gated(fn: Callable[..., str]) -> Callable[..., str]:
        def run(tok: str, *args):
            why = _authorised(tok, config)
            return escape(why) if why else fn(*args)
        return run

    def do_unlock(tok: str):
        why = _authorised(tok, config)
        return gr.update(visible=not why), escape(why) if why else "Admin actions unlocked."

    def do_quality(tok: str):
        why = _authorised(tok, config)
        return ("", escape(why)) if why else (quality_html(annotator_reports(store.iter_all())), "")

    def do_export(tok: str, kind: str):
        why = _authorised(tok, config)
        if why:
            return None, escape(why)
        path, n = export_for_admin(store, view.exports, kind)
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

    private = {"api_visibility": "private"}
    unlock.click(do_unlock, inputs=token, outputs=[admin, admin_msg], **private)
    token.submit(do_unlock, inputs=token, outputs=[admin, admin_msg], **private)
    quality_btn.click(do_quality, inputs=token, outputs=[quality, admin_msg], **private)
    import_btn.click(gated(lambda *a: escape(import_system(*a, config))),
                     inputs=[token, system_name, system_file, system_fmt, questions_file], outputs=admin_msg, **private)
    if start_study is not None:
        study_btn.click(gated(lambda *a: escape(create_study(*a, config, start_study))),
                        inputs=[token, study_name, study_systems, questions_file, per_pair, attention, min_read],
                        outputs=admin_msg, **private)
    export_btn.click(do_export, inputs=[token, fmt], outputs=[export_file, admin_msg], **private)
    reset_btn.click(do_reset, inputs=[token, confirm], outputs=[admin_msg, confirm], **private)
    return view
