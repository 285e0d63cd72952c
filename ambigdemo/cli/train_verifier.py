"""``train-verifier``: fit the reader's score (p(right) of every candidate) on AmbigNQ train; its thresholds are chosen on dev.

``python -m ambigdemo train-verifier --out runs/verifier`` reads the train questions the corpus answers
(resumable: ``OUT/train.jsonl`` grows one question at a time), fits the logistic verifier on their
candidates, reads the readings dev questions the same way (``OUT/dev.jsonl``), reports each feature's
AUC, the score's out of fold on train and on dev, and what each threshold would keep of the dev candidates. It
writes ``OUT/report.json`` and the score (``--export``, default the reader's file in ``config.VERIFIERS``) with
the reading and thresholds given, which the dev replay and funnel chose (docs/experiments/best-first.md).
With the candidates committed (docs/results/verifier-1.5b/), a rerun only computes the features (the model's
closed-book prior among them) and fits: minutes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ambigdemo.config import AMBIGNQ_TRAIN, ROOT

DEV = ROOT / "assets" / "readings-dev.json"
THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 20)]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-verifier", help="fit the reader's verifier on AmbigNQ train (resumable)",
                       description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=AMBIGNQ_TRAIN, help="AmbigNQ train JSON")
    p.add_argument("--dev", type=Path, default=DEV, help="the readings dev set the threshold is chosen on")
    p.add_argument("--out", type=Path, required=True, help="run folder: train.jsonl, dev.jsonl, report.json")
    p.add_argument("--export", type=Path, help="the verifier file to write (default: the reader's in config.VERIFIERS; a GGUF reader's beside it)")
    p.add_argument("--reader-model", metavar="READER", help="the reader to fit the score of (default: AMBIGDEMO_READER_MODEL): "
                   "a built-in name, a GGUF file's path or hf:OWNER/REPO/FILE.gguf@REVISION, built already")
    p.add_argument("--questions", type=int, default=420, help="train questions to read")
    p.add_argument("--l2", type=float, default=1.0, help="the L2 penalty of the logistic fit")
    p.add_argument("--threshold", type=float, default=0.35, help="p(right) a shown answer needs (chosen by the dev funnel, docs/reader.md)")
    p.add_argument("--more", type=float, default=0.5, help="p(right) each answer after the first needs (chosen likewise)")
    p.add_argument("--also", type=float, default=1.0, help="p(right) an answer under those needs to be shown \"also in the passages\" (1: never)")
    p.add_argument("--passages", type=int, default=4, help="passages read (chosen with the threshold)")
    p.add_argument("--relevance", type=float, default=0.0, help="of those, only the ones within this share of the best retrieval score (0: all)")
    p.add_argument("--branch-passages", type=int, default=1, help="of those, the first ones whose less likely replies are read")
    p.add_argument("--branch-min", type=float, default=0.1, help="the probability a less likely reply needs to be read")
    p.add_argument("--also-passages", type=int, default=0, help="then this many more passages read for \"also\" only (0: none)")
    p.add_argument("--also-further", type=float, default=1.0, help="p(right) an answer of those needs to be shown \"also\" (1: never)")
    p.add_argument("--siblings", action="store_true", help="the reader reads the other names of the list a reply is named in "
                   "(and so do the candidates it is fitted on)")
    p.add_argument("--titles", action="store_true", help="the reader reads each passage's subject as if replied "
                   "(and so do the candidates it is fitted on)")
    p.add_argument("--also-titles", type=float, default=1.0, help="p(right) each passage's subject, read after the readings "
                   "for \"also\" only, needs to be shown there (1: not read; the fit's candidates are not read so)")
    p.add_argument("--also-branches", type=float, default=1.0, help="p(right) the model's less likely replies (from "
                   "--branch-min) of the passages read for the readings, read after them for \"also\" only, need to be "
                   "shown there (1: not read)")
    p.add_argument("--also-beside", type=float, default=0.0, help="p(right) every \"also\" answer needs when the question "
                   "shows a reading, whatever its own bar (0: its own bar)")
    p.add_argument("--listed", type=float, default=1.0, help="p(right) another name of a list that gave a reading needs "
                   "to be a reading too (1: what any further reading needs)")
    p.add_argument("--lexical", action="store_true", help="the reader reads the passage BM25 ranks first too, wherever "
                   "the dense scores put it (the fit's candidates are read from the dense passages)")
    p.add_argument("--sets", type=Path, nargs="+", default=[], metavar="READINGS",
                   help="readings sets (assets/readings-*.json) read as the app reads them, with the reading given here, and "
                        "fitted on beside AmbigNQ train (OUT/sets/NAME.jsonl, resumable): questions of the kind the app is asked")
    p.add_argument("--ambignq-weight", type=float, default=1.0, help="with --sets: what each AmbigNQ train candidate "
                   "counts in the fit beside one of theirs (0: fitted on the sets alone)")
    p.add_argument("--trees", type=float, default=0.0, help="the share of gradient-boosted trees (LightGBM) in the score, "
                   "beside the logistic fit of the same candidates (0: the logistic fit alone)")
    p.add_argument("--features", help="the features fitted, comma-separated (default: the shipped score's, verifier.SCORED)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    from dataclasses import replace

    from ambigdemo.config import Config
    from ambigdemo.stages.reader.configure import reading_with, score_file
    from ambigdemo.evaluation.datasets import load_ambignq
    from ambigdemo.files import replace_text
    from ambigdemo.pipeline import Pipeline
    from ambigdemo.building.train_verifier import (add_unreplied, collect, current, featurize, gold_answers, labelled, left_out,
                                                   neutral, out_of_fold, record_reading, recorded_rows, records, sweep)
    from ambigdemo.stages.reader.verifier import FEATURES, SCORED, auc, blended

    names = tuple(args.features.split(",")) if args.features else SCORED
    if not set(names) <= set(FEATURES):
        print(f"error: unknown features {sorted(set(names) - set(FEATURES))}; known: {', '.join(FEATURES)}")
        return 2
    if not 0.0 <= args.trees <= 1.0:
        print(f"error: --trees is the trees' share of p, from 0 to 1 (got {args.trees})")
        return 2
    chosen = {"reader_model": args.reader_model} if args.reader_model else {}
    config = Config.from_env(use_generator=False, verifier="off", **chosen)
    pipeline = Pipeline.load(config)
    if pipeline.reader is None:
        print("error: the verifier needs the LLM reader (AMBIGDEMO_READER=llm and a preset with a generator)")
        return 2
    if config.reader_model and pipeline.reader_model != config.reader_model:  # it fell back: fit nobody else's score
        print(f"error: {pipeline.notice} Build the reader first: python -m ambigdemo build --reader-model {config.reader_model}")
        return 2
    export = args.export or score_file(config, pipeline.reader_model)
    if export is None:
        print(f"error: no verifier file is kept for the {pipeline.reader_model!r} reader: name one with --export")
        return 2
    train_items = [(e.question, gold_answers(e)) for e in load_ambignq(args.data)]
    dev_items = [(i["question"], i["answers"]) for i in json.loads(args.dev.read_text(encoding="utf-8"))]
    listed = {"siblings": args.siblings, "titles": args.titles}
    collect(pipeline.reader, pipeline.retriever, train_items, args.out / "train.jsonl", args.questions, args.seed, **listed)
    collect(pipeline.reader, pipeline.retriever, dev_items, args.out / "dev.jsonl", len(dev_items), seed=None, stated_only=False, **listed)
    for how in [h for h in ("siblings", "titles") if getattr(args, h)]:
        for collected, items in (("train.jsonl", train_items), ("dev.jsonl", dev_items)):
            add_unreplied(args.out / collected, pipeline.reader, pipeline.retriever, how, dict(items),
                          reach=args.passages + args.also_passages)  # collected before they were read

    settings = {"threshold": args.threshold, "more": args.more, "also": args.also, "passages": args.passages,
                "relevance": args.relevance, "branch_passages": args.branch_passages, "branch_min": args.branch_min,
                "also_passages": args.also_passages,
                "also_further": args.also_further, "siblings": args.siblings, "titles": args.titles, "listed": args.listed,
                "also_titles": args.also_titles, "lexical": args.lexical, "also_branches": args.also_branches,
                "also_beside": args.also_beside}
    nlp = pipeline.reader.nlp
    sets = {}
    if args.sets:
        app = reading_with(pipeline.reader, replace(neutral(names), **settings))  # the reading does not depend on the weights
        for path in args.sets:
            items = [(i["question"], i["answers"]) for i in json.loads(path.read_text(encoding="utf-8"))]
            out = args.out / "sets" / f"{path.stem}.jsonl"
            recorded = records(record_reading(app, pipeline.retriever, items, out, config.top_k, desc=path.stem))
            sets[path.stem] = current(recorded, nlp, app.also_titles, app.also_branches)  # as today's code relates them
    train_found = featurize(records(args.out / "train.jsonl"), pipeline.retriever, nlp, reader=pipeline.reader)
    dev_found = featurize(records(args.out / "dev.jsonl"), pipeline.retriever, nlp, reader=pipeline.reader)
    train_rows, train_labels = labelled(train_found)
    set_rows, set_labels = recorded_rows([r for found in sets.values() for r in found])
    rows, labels = labelled(dev_found)
    if len(set(train_labels + set_labels)) < 2:  # a score needs right and wrong replies to tell apart
        print(f"error: the reader's replies to {len(train_found)} train questions give {len(train_labels)} grounded answers, "
              f"{sum(train_labels)} of them right: no score can be fitted (read more questions: --questions)")
        return 2
    counts = [args.ambignq_weight if sets else 1.0] * len(train_rows) + [1.0] * len(set_rows)
    verifier = blended(train_rows + set_rows, train_labels + set_labels, args.trees, l2=args.l2, names=names, weights=counts)
    swept = sweep(dev_found, verifier, THRESHOLDS)
    verifier = replace(verifier, **settings)
    report = {
        "train": {"questions": len(train_found), "candidates": len(train_labels), "right": sum(train_labels),
                  "auc_in_sample": auc([verifier.p(r) for r in train_rows], train_labels),
                  "auc_out_of_fold": out_of_fold(train_found, names, trees=args.trees)},
        "dev": {"candidates": len(labels), "right": sum(labels), "auc": auc([verifier.p(r) for r in rows], labels),
                "auc_by_feature": {n: auc([r[n] for r in rows], labels) for n in FEATURES}},
        **({"sets": {"questions": sum(len(found) for found in sets.values()), "candidates": len(set_labels),
                     "right": sum(set_labels), "auc_in_sample": auc([verifier.p(r) for r in set_rows], set_labels),
                     "auc_left_out": left_out(train_rows, train_labels, sets, names, args.l2, args.ambignq_weight, args.trees)}}
           if sets else {}),
        "candidates_kept_dev": swept,
        "verifier": verifier.to_json(),
    }
    replace_text(args.out / "report.json", json.dumps(report, indent=2) + "\n")
    replace_text(export, json.dumps(verifier.to_json(), indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("train", "sets", "dev") if k in report}, indent=2))
    gate = f" within {args.relevance:.0%} of the best" if args.relevance else ""
    print(f"wrote {export}: {args.passages} passages read{gate}, less likely replies from {args.branch_passages}, "
          f"threshold {args.threshold}, then {args.more}, also from {args.also}"
          + (f"; {args.also_passages} more for \"also\" only, from {args.also_further}" if args.also_passages else "")
          + ("; the other names of a reply's list read" if args.siblings else "")
          + ("; each passage's subject read" if args.titles else "")
          + (f"; each passage's subject read for \"also\" only, from {args.also_titles}" if args.also_titles < 1 else "")
          + (f"; less likely replies read for \"also\" only, from {args.also_branches}" if args.also_branches < 1 else "")
          + (f", a list's further names from {args.listed}" if args.listed < 1 else "")
          + (f"; beside a reading, \"also\" from {args.also_beside}" if args.also_beside else "")
          + ("; the passage BM25 ranks first read too" if args.lexical else "")
          + (f"; fitted on AmbigNQ train and {len(sets)} readings sets" if sets else "")
          + (f"; {args.trees:.0%} of p from gradient-boosted trees" if args.trees > 0 else ""))
    return 0
