"""``judgments``: run a pairwise study and work with its judgments.

Verbs (each has ``--help``):

* ``systems add NAME FILE``: import a system's predictions (AmbigQA JSON, ASQA JSON, or JSONL);
  ``systems list`` shows the imported ones.
* ``study create NAME``: systems, a question set, judgments per pair, attention checks, reading time;
  ``study status NAME`` shows how far the judging has come. Serve it with ``AMBIGDEMO_STUDY=NAME``.
* ``leaderboard``: rank the systems (Bradley-Terry, ASQA's COMP/FLUE/HO/ACC).
* ``agreement``: Krippendorff's alpha, Fleiss' and Cohen's kappa per criterion, with intervals;
  with ``--study``, agreement with STR-EM and ROUGE-L too (and DR with ``--dr``).
* ``quality``: per-annotator attention checks, reading time, side bias and outlier flags.
* ``export`` / ``import``: judgments as JSONL, CSV, per-criterion rows, or a Hugging Face dataset folder.
* ``check``: list judgments whose stored criteria disagree with their verdict (a skip or "both bad"
  stored with labels, as the Compare tab did before schema v2); ``--repair`` clears those labels
  after saving the rows as they were.
* ``reset``: delete every judgment (admin).

The database is ``Config.from_env().judgments_db`` unless ``--db`` names one; systems and studies
live under ``AMBIGDEMO_DATA_DIR``. The CLI is local shell access, so only two actions ask for the
admin token (``--token`` must equal the environment's ``AMBIGDEMO_ADMIN_TOKEN``): ``reset`` always,
and ``export`` when the database lives on a Space's persistent ``/data`` volume (annotator data).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXPORT_FORMATS = ("jsonl", "csv", "criteria-jsonl", "criteria-csv", "hf")


def register(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", type=Path, help="judgments database (default: from AMBIGDEMO_DATA_DIR)")
    parser = subparsers.add_parser("judgments", help="run a pairwise study: systems, studies, ratings, agreement, exports",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="action", required=True, metavar="VERB")

    systems = verbs.add_parser("systems", help="import or list bring-your-own systems")
    system_verbs = systems.add_subparsers(dest="systems_action", required=True, metavar="VERB")
    add = system_verbs.add_parser("add", help="import a prediction file as the system stored:NAME")
    add.add_argument("name", help="letters, digits, '.', '_' or '-'")
    add.add_argument("file", type=Path, help="predictions: AmbigQA JSON, ASQA JSON or JSONL")
    add.add_argument("--format", choices=("ambigqa", "asqa", "jsonl"), default="",
                     help="default: jsonl by suffix, asqa when every value is a string, else ambigqa")
    add.add_argument("--questions", type=Path, help="question set the ids refer to (AmbigNQ JSON, ASQA JSON or JSONL)")
    add.set_defaults(func=_systems_add)
    listing = system_verbs.add_parser("list", help="imported systems and how many questions each answers")
    listing.set_defaults(func=_systems_list)

    study = verbs.add_parser("study", help="create a study or show its progress")
    study_verbs = study.add_subparsers(dest="study_action", required=True, metavar="VERB")
    create = study_verbs.add_parser("create", help="define a study (serve it with AMBIGDEMO_STUDY=NAME)")
    create.add_argument("name")
    create.add_argument("--systems", required=True, help="comma list, e.g. stored:mine,stored:theirs or full,evidence")
    create.add_argument("--questions", type=Path, required=True, help="question set (AmbigNQ JSON, ASQA JSON or JSONL)")
    create.add_argument("--per-pair", type=int, default=2, help="judgments wanted per pair (2+ for agreement)")
    create.add_argument("--attention", type=float, default=0.1, help="share of attention checks (default 0.1)")
    create.add_argument("--min-read", type=float, default=10.0, help="seconds before a verdict is accepted")
    create.set_defaults(func=_study_create)
    status = study_verbs.add_parser("status", parents=[common], help="pairs judged against the target")
    status.add_argument("name")
    status.set_defaults(func=_study_status)

    board = verbs.add_parser("leaderboard", parents=[common], help="rank the systems")
    board.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    board.add_argument("--plot", type=Path, help="also draw the strengths to this PNG")
    board.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (0: no intervals)")
    board.add_argument("--seed", type=int, default=0)
    board.add_argument("--exclude-flagged", action="store_true", help="leave out annotators `quality` flags")
    board.set_defaults(func=_leaderboard)

    agree = verbs.add_parser("agreement", parents=[common], help="inter-annotator agreement per criterion")
    agree.add_argument("--study", default="", help="also agreement with STR-EM / ROUGE-L on the study's gold")
    agree.add_argument("--dr", action="store_true",
                       help="with --study: also ASQA's DR, the embedded LLM as Disambig-F1's reader (slower)")
    agree.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds")
    agree.add_argument("--json", action="store_true")
    agree.set_defaults(func=_agreement)

    quality = verbs.add_parser("quality", parents=[common], help="per-annotator quality checks and flags")
    quality.add_argument("--min-read", type=float, default=0.0, help="flag a median reading time under this")
    quality.add_argument("--json", action="store_true")
    quality.set_defaults(func=_quality)

    export = verbs.add_parser("export", parents=[common], help="write all judgments to a file or dataset folder")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="",
                        help="default from --out: .csv, .jsonl, criteria*.{csv,jsonl}, or a folder (hf)")
    export.add_argument("--out", type=Path, required=True)
    export.add_argument("--token", default="", help="admin token (needed on a Space's /data volume)")
    export.set_defaults(func=_export)

    load = verbs.add_parser("import", parents=[common], help="add judgments from an export (file or hf folder)")
    load.add_argument("file", type=Path)
    load.add_argument("--format", choices=EXPORT_FORMATS, default="", help="default: from the name")
    load.set_defaults(func=_import)

    check = verbs.add_parser("check", parents=[common],
                             help="list judgments whose stored criteria disagree with their verdict")
    check.add_argument("--json", action="store_true", help="one JSON object per judgment found")
    check.add_argument("--repair", action="store_true",
                       help="clear the labels a skip or both-bad verdict does not collect (rows saved first)")
    check.add_argument("--backup", type=Path,
                       help="with --repair: where the rows go as they were (default: beside the database)")
    check.set_defaults(func=_check)

    reset = verbs.add_parser("reset", parents=[common], help="delete every judgment (admin)")
    reset.add_argument("--token", default="", help="must equal AMBIGDEMO_ADMIN_TOKEN")
    reset.set_defaults(func=_reset)


def _config():
    from ambigdemo.config import Config

    return Config.from_env()


def _db_path(args: argparse.Namespace) -> Path:
    return args.db or _config().judgments_db


def on_space_volume(db: Path) -> bool:
    """Whether ``db`` lives on a storage volume that outlives the process (``AMBIGDEMO_STORAGE``, or a Space's ``/data``)."""
    from ambigdemo.config import SPACE_VOLUME, storage_dir

    parents = db.resolve().parents
    storage = storage_dir()
    return SPACE_VOLUME in parents or (storage is not None and storage.resolve() in parents)


def _refused(token: str) -> bool:
    """Check ``token`` against ``AMBIGDEMO_ADMIN_TOKEN``; print why and return True when refused."""
    from ambigdemo.judging.store import check_admin_token

    try:
        check_admin_token(token, _config().admin_token)
    except PermissionError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return True
    return False


def _open(args: argparse.Namespace):
    from ambigdemo.judging.store import JudgmentStore

    return JudgmentStore(_db_path(args))


def _failed(exc: Exception) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2


def _systems_add(args: argparse.Namespace) -> int:
    from ambigdemo.judging.predictions import load_questions, read_predictions, save_system
    from ambigdemo.judging.systems import STORED_PREFIX, SpecError

    try:
        questions = load_questions(args.questions) if args.questions else None
        answers = read_predictions(args.file, STORED_PREFIX + args.name, args.format, questions)
        path = save_system(args.name, answers, _config().systems_dir)
    except SpecError as exc:
        return _failed(exc)
    print(f"imported {len(answers)} answers as {STORED_PREFIX}{args.name} ({path})")
    return 0


def _systems_list(args: argparse.Namespace) -> int:
    folder = _config().systems_dir
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    for path in files:
        n = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        print(f"stored:{path.stem}\t{n} answers\t{path}")
    if not files:
        print(f"no imported systems in {folder}; add one with `judgments systems add NAME FILE`")
    return 0


def _study_create(args: argparse.Namespace) -> int:
    from ambigdemo.judging.arena import Arena
    from ambigdemo.judging.predictions import load_questions
    from ambigdemo.judging.study import Study
    from ambigdemo.judging.systems import SpecError, check_specs, parse_specs

    config = _config()
    try:
        check_specs(parse_specs(args.systems), config.data_dir)
        study = Study(args.name, parse_specs(args.systems), load_questions(args.questions), args.per_pair,
                      args.attention, args.min_read)
        if all(s.startswith("stored:") for s in study.systems):
            arena = Arena.from_study(None, study, config.data_dir)  # checks the systems cover the questions
            print(f"{len(arena.checks)} questions can hold an attention check" if study.attention_share
                  else "no attention checks (--attention 0)")
        path = study.save(config.studies_dir)
    except SpecError as exc:
        return _failed(exc)
    print(f"study {study.name}: {len(study.systems)} systems, {len(study.questions)} questions, "
          f"{study.per_pair} judgments per pair ({path}); serve it with AMBIGDEMO_STUDY={study.name} python app.py")
    return 0


def _study_status(args: argparse.Namespace) -> int:
    from ambigdemo.judging.arena import Arena
    from ambigdemo.judging.study import Study
    from ambigdemo.judging.judgment import pair_id
    from ambigdemo.judging.systems import SpecError, candidate_pairs

    config = _config()
    try:
        study = Study.load(args.name, config.studies_dir)
        arena = Arena.from_study(None, study, config.data_dir)
    except SpecError as exc:
        return _failed(exc)
    counts = _open(args).pair_counts()
    pairs = candidate_pairs(arena.pool.questions, arena.systems)
    done = sum(min(counts.get(pair_id(*p), 0), study.per_pair) for p in pairs)
    full = sum(counts.get(pair_id(*p), 0) >= study.per_pair for p in pairs)
    print(f"study {study.name}: {full} of {len(pairs)} pairs have {study.per_pair} judgments; "
          f"{done} of {len(pairs) * study.per_pair} judgments given")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from ambigdemo.judging.quality import flagged
    from ambigdemo.judging.rating import compute_leaderboard, plot_strengths

    judgments = list(_open(args).iter_all())
    exclude = flagged(judgments) if args.exclude_flagged else set()
    board = compute_leaderboard(judgments, rounds=args.rounds, seed=args.seed, exclude=exclude)
    print(json.dumps(board.to_dict(), indent=2) if args.json else board.to_markdown())
    if exclude:
        print(f"left out {len(exclude)} flagged annotators: {', '.join(sorted(exclude))}", file=sys.stderr)
    if args.plot:
        plot_strengths(board, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _agreement(args: argparse.Namespace) -> int:
    from ambigdemo.judging.agreement import agreement
    from ambigdemo.judging.systems import SpecError

    judgments = list(_open(args).iter_all())
    rows = agreement(judgments, rounds=args.rounds)
    metrics = []
    if args.study:
        try:
            metrics = _metric_agreements(args.study, judgments, args.dr)
        except SpecError as exc:
            return _failed(exc)
    if args.json:
        print(json.dumps({"criteria": [r.to_dict() for r in rows],
                          "metrics": [{"metric": m.metric, "agree": m.agree, "n": m.n, "rate": m.rate} for m in metrics]},
                         indent=2))
        return 0
    print("| Criterion | Krippendorff's alpha (95% CI) | Fleiss' kappa (95% CI) | Cohen's kappa (95% CI) | items |")
    print("|---|---|---|---|---:|")
    for r in rows:
        print(f"| {r.criterion} | {_estimate(r.alpha)} | {_estimate(r.fleiss)} | {_estimate(r.cohen)} | {r.alpha.n} |")
    for m in metrics:
        rate = "–" if m.rate is None else f"{100 * m.rate:.0f}%"
        print(f"Annotators' overall winner = the system {m.metric} scores higher: {rate} of {m.n} decided votes")
    return 0


def _metric_agreements(name: str, judgments: list, dr: bool = False) -> list:
    """Agreement of the judgments with STR-EM, ROUGE-L (and DR) of the study's stored answers."""
    from ambigdemo.judging.agreement import metric_agreement, metric_scores
    from ambigdemo.judging.arena import Arena
    from ambigdemo.judging.study import Study
    from ambigdemo.judging.systems import SpecError, StoredSystem, question_key

    config = _config()
    study = Study.load(name, config.studies_dir)
    if not all(s.startswith("stored:") for s in study.systems):
        raise SpecError("metric agreement reads stored answers: the study's systems must all be stored:NAME")
    arena = Arena.from_study(None, study, config.data_dir)
    answers = [a for s in arena.systems.values() if isinstance(s, StoredSystem) for a in s.answers.values()]
    reader = None
    if dr:
        from ambigdemo.pipeline import Pipeline

        reader = Pipeline.load(config.__class__.from_env(reader="llm")).reader.answer
    scores = metric_scores(answers, study.gold(), question_key, reader)
    return [metric_agreement(judgments, metric, by, question_key) for metric, by in scores.items()]


def _estimate(e) -> str:
    return "–" if e.value is None else f"{e.value:.2f} ({e.lower:.2f} to {e.upper:.2f})"


def _quality(args: argparse.Namespace) -> int:
    from ambigdemo.judging.quality import annotator_reports

    reports = annotator_reports(_open(args).iter_all(), args.min_read)
    if args.json:
        print(json.dumps([r.to_dict() for r in reports], indent=2))
        return 0
    print("| Annotator | judgments | attention passed | median read s | left share | outlier p | flags |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in reports:
        read = "–" if r.median_read_s is None else f"{r.median_read_s:.0f}"
        left = "–" if r.left_share is None else f"{100 * r.left_share:.0f}%"
        p = "–" if r.outlier_p is None else f"{r.outlier_p:.2g}"
        print(f"| {r.annotator} | {r.judgments} | {r.attention_passed}/{r.attention_total} | {read} | {left} | {p} "
              f"| {'; '.join(r.flags) or 'none'} |")
    return 0


def _export(args: argparse.Namespace) -> int:
    if on_space_volume(_db_path(args)) and _refused(args.token):
        return 2
    from ambigdemo.judging import exports

    n = exports.write(_open(args).iter_all(), args.out, args.format)
    print(f"exported {n} judgments to {args.out}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ambigdemo.judging import exports

    try:
        added, skipped = _open(args).add_many(exports.read(args.file, args.format))
    except ValueError as exc:
        return _failed(f"{exc}; nothing was imported")
    print(f"added {added}, skipped {skipped}")
    return 0


def _check(args: argparse.Namespace) -> int:
    """Exit 0 when every stored judgment is consistent (or was repaired), 1 when some are not."""
    from ambigdemo.judging.judgment import utc_now

    store = _open(args)
    found = store.inconsistent()
    for row, problems in found:
        if args.json:
            print(json.dumps({"id": row["id"], "created_at": row["created_at"], "annotator": row["annotator"],
                              "question": row["question"], "verdict": row["verdict"], "problems": problems},
                             ensure_ascii=False))
        else:
            print(f"{row['id']}  {str(row['created_at'])[:19]}  {row['annotator']}  {'; '.join(problems)}")
    if not args.json:
        print(f"{len(found)} of {store.count()} judgments are inconsistent: criteria their verdict does not "
              "collect, or a vote missing one")
    if not found or not args.repair:
        return 1 if found else 0
    out = sys.stderr if args.json else sys.stdout
    stamp = utc_now()[:19].replace(":", "")
    backup = args.backup or _db_path(args).with_name(f"{_db_path(args).stem}-before-repair-{stamp}.jsonl")
    backup.parent.mkdir(parents=True, exist_ok=True)
    backup.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row, _ in found), encoding="utf-8")
    cleared = store.clear_uncollected_labels()
    print(f"repaired {cleared}: their labels are cleared; the rows as they were are in {backup}", file=out)
    left = len(found) - cleared
    if left:
        print(f"{left} cannot be repaired by clearing labels (a vote missing a criterion): judge those pairs "
              "again, or delete the rows listed above", file=out)
    return 1 if left else 0


def _reset(args: argparse.Namespace) -> int:
    if _refused(args.token):
        return 2
    deleted = _open(args).reset(args.token, _config().admin_token)
    print(f"deleted {deleted} judgments")
    return 0
