"""Judgments to files and back: one row per judgment, or one row per judgment and criterion.

Formats (``write`` / ``read``; a file's format follows from its name unless given; a folder, or a name
without a suffix, is ``hf``):

* ``jsonl``, ``csv``: one row per judgment, every field (lists as JSON text in CSV).
* ``criteria-jsonl``, ``criteria-csv``: one row per judgment *and criterion* (comprehensiveness,
  fluency, overall): the judgment's fields, then ``criterion``, ``label`` (A, B or tie, as shown) and
  ``winner`` (the system preferred, or ``tie``); both are empty where the verdict (skip, both bad)
  collects no label. Rows are never merged across annotators.
* ``hf``: a folder laid out as a Hugging Face dataset: ``judgments.jsonl``, ``criteria.jsonl`` and
  a ``README.md`` dataset card whose YAML names both as configurations.

Reading any of them gives back exactly the judgments written (``read(write(x)) == x``).
"""

from __future__ import annotations

import csv
import json
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ambigdemo.judging.judgment import COLUMNS, CRITERIA, Judgment

FORMATS = ("jsonl", "csv", "criteria-jsonl", "criteria-csv", "hf")
CRITERIA_COLUMNS = tuple(c for c in COLUMNS if c not in CRITERIA) + ("criterion", "label", "winner")
CARD = """---
license: other
pretty_name: ambigdemo pairwise judgments
configs:
- config_name: judgments
  data_files: judgments.jsonl
  default: true
- config_name: criteria
  data_files: criteria.jsonl
task_categories:
- question-answering
language:
- en
---
# ambigdemo pairwise judgments

Blind pairwise human judgments of answers to ambiguous questions, collected with ambigdemo's Compare
tab following ASQA's protocol (Stelmakh et al. 2022): for each question, two systems' answers side by
side, judged on comprehensiveness, fluency and overall (A, B or tie), with the interpretations each
answer got right ticked (ACC).

- `judgments` ({n} rows): one row per judgment, every field. `A`/`B` mean `system_a`/`system_b`;
  `left_is` names the system shown on the left; `answer_a`/`answer_b` hold the full answers as JSON.
- `criteria` ({m} rows): one row per judgment and criterion, with `label` and `winner` (the system
  preferred, or `tie`); both are empty on a skip or a "both bad" verdict, which judge no criterion.
  Several annotators' judgments of one pair stay separate rows.

Annotators: {annotators}. Systems: {systems}. Passages shown to annotators are Wikipedia text
(CC BY-SA 4.0); the answers are the compared systems' outputs. Re-import with
`python -m ambigdemo judgments import <this folder>`.
"""


def guess_format(path: str | os.PathLike) -> str:
    path = Path(path)
    if path.is_dir() or not path.suffix:
        return "hf"
    kind = "csv" if path.suffix.lower() == ".csv" else "jsonl"
    return f"criteria-{kind}" if path.name.startswith("criteria") else kind


def write(judgments: Iterable[Judgment], path: str | os.PathLike, fmt: str = "") -> int:
    """Write ``judgments`` to ``path`` as ``fmt`` (default: from the name); returns how many."""
    path = Path(path)
    fmt = fmt or guess_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use {', '.join(FORMATS)}")
    judgments = list(judgments)
    if fmt == "hf":
        path.mkdir(parents=True, exist_ok=True)
        write(judgments, path / "judgments.jsonl", "jsonl")
        write(judgments, path / "criteria.jsonl", "criteria-jsonl")
        (path / "README.md").write_text(CARD.format(
            n=len(judgments), m=len(CRITERIA) * len(judgments), annotators=len({j.annotator for j in judgments}),
            systems=", ".join(sorted({s for j in judgments for s in (j.system_a, j.system_b)})) or "none"),
            encoding="utf-8")
        return len(judgments)
    path.parent.mkdir(parents=True, exist_ok=True)
    per_criterion = fmt.startswith("criteria-")
    rows = [r for j in judgments for r in (criterion_rows(j) if per_criterion else [j.to_dict()])]
    with path.open("w", encoding="utf-8", newline="") as f:
        if fmt.endswith("csv"):
            writer = csv.DictWriter(f, fieldnames=CRITERIA_COLUMNS if per_criterion else COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows({k: json.dumps(v) if isinstance(v, list) else v for k, v in r.items()} for r in rows)
        else:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return len(judgments)


def criterion_rows(j: Judgment) -> list[dict[str, Any]]:
    base = {k: v for k, v in j.to_dict().items() if k not in CRITERIA}
    out = []
    for criterion in CRITERIA:
        label = getattr(j, criterion)
        winner = {"A": j.system_a, "B": j.system_b}.get(label, label)
        out.append({**base, "criterion": criterion, "label": label, "winner": winner})
    return out


def read(path: str | os.PathLike, fmt: str = "") -> Iterator[Judgment]:
    """Judgments of a file or folder written by ``write``; a bad row raises ``ValueError`` naming it."""
    path = Path(path)
    fmt = fmt or guess_format(path)
    if fmt == "hf":
        yield from read(path / "judgments.jsonl", "jsonl")
        return
    if fmt not in FORMATS:
        raise ValueError(f"unknown import format {fmt!r}; use {', '.join(FORMATS)}")
    rows = _rows(path, fmt.endswith("csv"))
    if not fmt.startswith("criteria-"):
        for n, row in rows:
            yield _judgment(path, n, row)
        return
    grouped: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    for n, row in rows:
        grouped[str(row.get("id", ""))].append((n, row))
    for lines in grouped.values():
        yield _from_criterion_rows(path, lines)


def _rows(path: Path, is_csv: bool) -> list[tuple[int, dict]]:
    try:
        with path.open(encoding="utf-8", newline="" if is_csv else None) as f:
            if is_csv:
                return list(enumerate(csv.DictReader(f), start=2))
            return [(n, _json_object(path, n, line)) for n, line in enumerate(f, start=1) if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from exc


def _json_object(path: Path, n: int, line: str) -> dict:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{n}: not JSON: {exc.msg}") from exc
    if not isinstance(row, dict):
        raise ValueError(f"{path}:{n}: each line must be a JSON object")
    return row


def _judgment(path: Path, n: int | str, row: dict) -> Judgment:
    try:
        return Judgment.from_dict(row)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}:{n}: {exc}") from exc


def _from_criterion_rows(path: Path, lines: list[tuple[int, dict]]) -> Judgment:
    where = ",".join(str(n) for n, _ in lines)
    labels = {row.get("criterion"): row.get("label") for _, row in lines}
    if sorted(labels) != sorted(CRITERIA) or len(lines) != len(CRITERIA):
        raise ValueError(f"{path}:{where}: judgment {lines[0][1].get('id')!r} needs one row per criterion "
                         f"({', '.join(CRITERIA)}), got {sorted(map(str, labels))}")
    shared = [{k: v for k, v in row.items() if k not in ("criterion", "label", "winner")} for _, row in lines]
    if any(s != shared[0] for s in shared):
        raise ValueError(f"{path}:{where}: the rows of judgment {shared[0].get('id')!r} disagree on its fields")
    return _judgment(path, where, {**shared[0], **labels})
