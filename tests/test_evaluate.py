"""``evaluate`` on the real pipeline: prediction formats, ``score`` agreement, resume, plot, bad input.

The gold records are real AmbigNQ dev and NQ-open dev records (CC BY-SA 3.0) whose answers the
embedded corpus mentions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ambigdemo.evaluation.gold import disambiguate

from ambigdemo.cli import main
from ambigdemo.evaluation.runs import evaluate
from ambigdemo.evaluation import tuning

REPO = Path(__file__).resolve().parents[1]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

AMBIGNQ = [
    {"id": "-7609206244947636807", "question": "Which religion has the highest population in africa?", "annotations": [
        {"type": "multipleQAs", "qaPairs": [
            {"question": "Which religion was estimated to be the highest population in africa in 2002 by the World Book Encyclopedia?", "answer": ["Muslims", "Islam"]},
            {"question": "Which religion was estimated to be the highest population in africa in 2002 by other sources?", "answer": ["Christians", "Christianity"]},
        ]}]},
    {"id": "-4110940242602127727", "question": "What was the assyrians form of writing known as?", "annotations": [
        {"type": "singleAnswer", "answer": ["Cuneiform", "Sumero-Akkadian cuneiform"]}]},
    {"id": "-534703981297361693", "question": "When did the seljuk empire begin and end?", "annotations": [
        {"type": "multipleQAs", "qaPairs": [
            {"question": "When did the Seljuk Empire begin?", "answer": ["1037"]},
            {"question": "When did the Seljuk Empire end?", "answer": ["1194"]},
        ]},
        {"type": "multipleQAs", "qaPairs": [
            {"question": "When did the seljuk empire begin?", "answer": ["1037"]},
            {"question": "When did the seljuk empire end?", "answer": ["1194"]},
        ]}]},
    {"id": "8307493951745307544", "question": "Who led the first voyage to circumnavigate the globe?", "annotations": [
        {"type": "multipleQAs", "qaPairs": [
            {"question": "Who led the first voyage to circumnavigate the globe at the beginning of the voyage?", "answer": ["Ferdinand Magellan"]},
            {"question": "Who led the first voyage to circumnavigate the globe at the end of the voyage?", "answer": ["Juan Sebastián Elcano"]},
        ]}]},
]
NQ_LINES = [
    '{"question": "who won the mens single ice skating 2018", "answer": ["Yuzuru Hanyu", "Javier Fern\\u00e1ndez", "Shoma Uno"]}',
    "",
    '{"question": "swan lake the sleeping beauty and the nutcracker are three famous ballets by", "answer": ["Pyotr Ilyich Tchaikovsky"]}',
    '{"question": "when did the eagles win last super bowl", "answer": ["2017"]}',
]


@pytest.fixture(scope="module")
def fast(pipeline):
    """The session pipeline without the paragraph generator (no task scores the paragraph)."""
    return pipeline.with_options(use_generator=False)


def write_json(path: Path, content: object) -> Path:
    path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return path


def run_score(task: str, gold: Path, pred: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "ambigdemo", "score", "--task", task, "--data", str(gold), "--pred", str(pred), "--json"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_disambiguate_gives_one_rewrite_per_gold_answer(fast):
    question = AMBIGNQ[0]["question"]
    found = disambiguate(fast, question, ["Muslims", "Christians", "Zoroastrians of Mars"])
    assert [i.answer for i in found] == ["Muslims", "Christians", "Zoroastrians of Mars"]
    for i in found[:2]:  # both are mentioned in the retrieved passages
        assert i.passages and i.source != "prompt" and i.question != question and i.edit.added
    unfound = found[2]
    assert (unfound.question, unfound.passages, unfound.source) == (question, [], "prompt")


def test_qd_gold_pipeline_and_copy(tmp_path, fast):
    data = write_json(tmp_path / "dev.json", AMBIGNQ)
    out = tmp_path / "out"
    report = evaluate("qd-gold", data, out, fast.config, lambda: fast, systems=("pipeline", "copy"), progress=False)

    multi = [r for r in AMBIGNQ if any(a["type"] == "multipleQAs" for a in r["annotations"])]
    assert report["n"] == len(multi) == 3
    assert json.loads((out / "metrics.json").read_text()) == report
    for system, name in (("pipeline", "predictions.json"), ("copy", "predictions.copy.json")):
        predictions = json.loads((out / name).read_text())
        assert list(predictions) == [r["id"] for r in multi]
        for record in multi:
            pairs = predictions[record["id"]]
            gold = [p["answer"][0] for p in record["annotations"][0]["qaPairs"]]
            assert [set(p) for p in pairs] == [{"question", "answer"}] * len(gold)
            assert [p["answer"] for p in pairs] == gold
            if system == "copy":
                assert {p["question"] for p in pairs} == {record["question"]}
        assert run_score("ambigqa", out / "gold.json", out / name) == report["systems"][system]["scores"]
        assert run_score("ambigqa", data, out / name)["f1_bleu"] == report["systems"][system]["scores"]["f1_bleu"]

    copy, ours = report["systems"]["copy"], report["systems"]["pipeline"]
    assert copy["scores"]["f1_ans"] == 1.0 and copy["scores"]["f1_edit_f1"] == 0.0
    assert copy["sources"] == {"copy": 6}
    assert copy["fluency"]["rewrites"] == 6 and copy["fluency"]["changed"] == 0
    assert ours["fluency"]["rewrites"] == 6 and ours["fluency"]["perplexity_ratio_mean"] is None  # no judge given
    assert "**copy**: 0 of 6 rewrites differ from the prompt" in (out / "fluency.md").read_text()
    edited = sum(n for source, n in ours["sources"].items() if source != "prompt")
    assert edited > 0, ours["sources"]  # the corpus mentions these answers, so some rewrites are grounded edits
    rewrites = [p["question"] for pairs in json.loads((out / "predictions.json").read_text()).values() for p in pairs]
    assert sum(q not in {r["question"] for r in multi} for q in rewrites) == edited
    assert "| pipeline | 3 | 100.0 | 3 | 100.0 |" in (out / "metrics.md").read_text()


def test_ambigqa_plot_and_markdown(tmp_path, fast):
    data = write_json(tmp_path / "dev.json", AMBIGNQ)
    out = tmp_path / "out"
    report = evaluate("ambigqa", data, out, fast.config, lambda: fast, progress=False)

    predictions = json.loads((out / "predictions.json").read_text())
    assert list(predictions) == [r["id"] for r in AMBIGNQ]
    assert all(isinstance(v, list) and all(set(p) == {"question", "answer"} for p in v) for v in predictions.values())
    scores = report["systems"]["pipeline"]["scores"]
    assert run_score("ambigqa", data, out / "predictions.json") == scores
    assert scores["f1_ans"] > 0  # Cuneiform, Magellan and Islam are in the corpus
    buckets = report["systems"]["pipeline"]["by_answers"]
    assert [(b["answers"], b["n"], b["n_multi"]) for b in buckets] == [("1", 1, 0), ("2", 3, 3)]
    assert sum(b["n"] * b["scores"]["f1_ans"] for b in buckets) / scores["n"] == pytest.approx(scores["f1_ans"])

    png = (out / "f1_by_answers.png").read_bytes()
    assert png.startswith(PNG_SIGNATURE)
    import matplotlib.image

    height, width, _ = matplotlib.image.imread(out / "f1_by_answers.png").shape
    assert width > 300 and height > 200
    table = (out / "metrics.md").read_text()
    assert "| system | questions | F1 answer |" in table
    assert f"| pipeline | 4 | {100 * scores['f1_ans']:.1f} | 3 |" in table


UNSUPPORTED = {"id": "1", "question": "Who won the zorblax cup?", "annotations": [
    {"type": "multipleQAs", "qaPairs": [
        {"question": "Who won the zorblax cup in 3021?", "answer": ["Quux Vendramin"]},
        {"question": "Who won the zorblax cup in 3022?", "answer": ["Plim Orrabat"]},
    ]}]}


def test_multi_answer_subset_and_tuned_threshold_baseline(tmp_path, fast):
    data = write_json(tmp_path / "dev.json", AMBIGNQ + [UNSUPPORTED])
    out = tmp_path / "out"
    report = evaluate("multi-answer", data, out, fast.config, lambda: fast, systems=("pipeline", "threshold"), train=data, progress=False)

    supported = [r["id"] for r in AMBIGNQ if r["annotations"][0]["type"] == "multipleQAs"]
    assert (out / "subset.txt").read_text().split() == supported  # the corpus has no zorblax, and one answer is no multi-answer question
    assert report["n"] == 3 and report["mean_gold_answers"] == 2.0
    threshold = report["systems"]["threshold"]
    assert threshold["threshold"]["threshold"] in tuning.THRESHOLDS
    assert threshold["threshold"]["train"]["n_supported"] == 3
    for system, name in (("pipeline", "predictions.json"), ("threshold", "predictions.threshold.json")):
        predictions = json.loads((out / name).read_text())
        assert list(predictions) == supported
        assert all(isinstance(v, list) and all(isinstance(a, str) for a in v) for v in predictions.values())
        scores = report["systems"][system]["scores"]
        assert run_score("ambigqa", out / "gold.json", out / name) == scores
        assert report["systems"][system]["mean_answers"] == pytest.approx(sum(map(len, predictions.values())) / 3, abs=1e-4)
    assert threshold["scores"]["f1_ans"] > 0  # Islam, Christianity, Magellan... are in the passages
    table = (out / "metrics.md").read_text()
    assert "answers per question (gold 2.00)" in table and "| threshold | 3 |" in table

    again = evaluate("multi-answer", data, tmp_path / "again", fast.config, lambda: fast, subset=out / "subset.txt", progress=False)
    assert again["n"] == 3


def test_ceilings_predict_only_gold_found_in_the_passages(tmp_path, fast):
    """The upper bounds: a perfect reader of the passages the LLM reads, and of all top-k retrieved."""
    data = write_json(tmp_path / "dev.json", AMBIGNQ)
    report = evaluate("multi-answer", data, tmp_path / "out", fast.config, lambda: fast,
                      systems=("ceiling", "ceiling-top-k"), progress=False)
    read = json.loads((tmp_path / "out" / "predictions.ceiling.json").read_text())
    top_k = json.loads((tmp_path / "out" / "predictions.ceiling-top-k.json").read_text())
    gold = {r["id"]: {a for p in r["annotations"][0].get("qaPairs", []) for a in p["answer"][:1]} for r in AMBIGNQ}
    assert all(set(answers) <= gold[i] for i, answers in top_k.items())
    assert all(set(read[i]) <= set(top_k[i]) for i in read)  # the read passages are some of the top k
    assert "Ferdinand Magellan" in top_k["8307493951745307544"]
    assert report["systems"]["ceiling-top-k"]["scores"]["f1_ans"] >= report["systems"]["ceiling"]["scores"]["f1_ans"] > 0


def test_paragraph_gold_cites_every_sentence_and_states_only_grounded_answers(tmp_path, fast):
    data = write_json(tmp_path / "dev.json", AMBIGNQ + [UNSUPPORTED])
    out = tmp_path / "out"
    report = evaluate("paragraph-gold", data, out, fast.config, lambda: fast, progress=False)

    scores = report["systems"]["pipeline"]["scores"]
    assert scores["n"] == 4
    assert scores["cited_sentences"] == 1.0 and scores["all_cited"] == 1.0 and scores["uncited_answers"] == 0
    paragraphs = json.loads((out / "predictions.json").read_text())
    assert "[" in paragraphs[AMBIGNQ[2]["id"]] and "1037" in paragraphs[AMBIGNQ[2]["id"]]
    assert paragraphs[UNSUPPORTED["id"]] == ""  # nothing to cite, so nothing is stated
    assert scores["str_em"] == pytest.approx(3 / 4)  # every answer of the three corpus-supported questions
    assert scores["grounded"] == pytest.approx(6 / 8)
    assert "| pipeline | 4 | 75.0 | 75.0 | 100.0 | 100.0 | 0 |" in (out / "metrics.md").read_text()


def test_nq_open_keeps_line_ids(tmp_path, fast):
    data = tmp_path / "nq.jsonl"
    data.write_text("\n".join(NQ_LINES) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    heuristic = fast.with_options(reader="heuristic")  # the harness is under test here, not the reader
    report = evaluate("nq-open", data, out, heuristic.config, lambda: heuristic, limit=2, progress=False)

    predictions = json.loads((out / "predictions.json").read_text())
    assert list(predictions) == ["0", "2"]  # ids are line numbers; the blank line 1 is skipped
    assert all(isinstance(v, str) for v in predictions.values())
    scores = report["systems"]["pipeline"]["scores"]
    assert scores["n"] == 2 and scores["em"] > 0  # Hanyu and Tchaikovsky are in the corpus
    assert run_score("nq-open", out / "gold.jsonl", out / "predictions.json") == scores


def counting(pipeline) -> tuple[list, Callable]:
    """A pipeline factory that records each call (each prediction not found in the cache)."""
    calls = []

    def factory():
        calls.append(1)
        return pipeline

    return calls, factory


def test_resume_skips_cached_ids_and_drops_a_torn_line(tmp_path, fast):
    data = write_json(tmp_path / "dev.json", AMBIGNQ)
    out = tmp_path / "out"
    calls, counted = counting(fast)

    first = evaluate("ambigqa", data, out, fast.config, counted, limit=2, progress=False)
    cache = out / "cache.jsonl"
    cached = cache.read_text().splitlines()
    assert len(calls) == len(cached) == 2
    with cache.open("a") as f:
        f.write(json.dumps({"id": AMBIGNQ[2]["id"], "question": AMBIGNQ[2]["question"]})[:30])  # killed mid-write

    calls.clear()
    second = evaluate("ambigqa", data, out, fast.config, counted, progress=False)
    lines = cache.read_text().splitlines()
    assert len(calls) == 2  # only the two questions not cached yet
    assert lines[:2] == cached and len(lines) == 4
    assert [json.loads(line)["id"] for line in lines] == [r["id"] for r in AMBIGNQ]
    assert list(json.loads((out / "predictions.json").read_text())) == [r["id"] for r in AMBIGNQ]
    assert second["n"] == 4 and first["n"] == 2

    calls.clear()
    evaluate("ambigqa", data, out, fast.config, counted, progress=False)
    assert calls == [] and cache.read_text().splitlines() == lines


def test_predictions_cached_by_other_code_are_made_again(tmp_path, fast, monkeypatch):
    """A cache records the commit of each prediction: a rerun after a code change predicts afresh,
    so metrics.json never labels old predictions with the new commit."""
    import ambigdemo.evaluation.runs as evaluate_module

    data = write_json(tmp_path / "dev.json", AMBIGNQ)
    out = tmp_path / "out"
    calls, counted = counting(fast)

    monkeypatch.setattr(evaluate_module, "_commit", lambda: "old")
    evaluate("ambigqa", data, out, fast.config, counted, limit=2, progress=False)
    assert len(calls) == 2
    assert {json.loads(line)["commit"] for line in (out / "cache.jsonl").read_text().splitlines()} == {"old"}

    calls.clear()
    monkeypatch.setattr(evaluate_module, "_commit", lambda: "new")
    report = evaluate("ambigqa", data, out, fast.config, counted, limit=2, progress=False)
    assert len(calls) == 2 and report["commit"] == "new"
    calls.clear()
    evaluate("ambigqa", data, out, fast.config, counted, limit=2, progress=False)
    assert calls == []


def test_malformed_input_names_file_record_and_problem(tmp_path, capsys):
    bad = write_json(tmp_path / "bad.json", [AMBIGNQ[0], {"id": "42", "question": "Who?"}])
    assert main(["evaluate", "--data", str(bad), "--task", "ambigqa", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {bad}: record 1 (id 42): 'annotations' missing"

    nq = tmp_path / "nq.jsonl"
    nq.write_text(NQ_LINES[0] + "\n{\"question\": \"who?\"}\n", encoding="utf-8")
    assert main(["evaluate", "--data", str(nq), "--task", "nq-open", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {nq}: line 1: 'answer' missing"

    single = write_json(tmp_path / "single.json", [AMBIGNQ[1]])
    assert main(["evaluate", "--data", str(single), "--task", "qd-gold", "--out", str(tmp_path / "out")]) == 2
    assert "no question has a multipleQAs annotation" in capsys.readouterr().err

    assert main(["evaluate", "--data", str(single), "--task", "ambigqa", "--system", "copy", "--out", str(tmp_path / "out")]) == 2
    assert "--system copy needs --task qd-gold" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(single), "--task", "ambigqa", "--system", "threshold", "--out", str(tmp_path / "out")]) == 2
    assert "--system threshold needs --task multi-answer" in capsys.readouterr().err

    missing = tmp_path / "no-such-ids.txt"
    assert main(["evaluate", "--data", str(single), "--task", "ambigqa", "--subset", str(missing), "--out", str(tmp_path / "out")]) == 2
    assert f"error: {missing}: cannot read the subset's ids" in capsys.readouterr().err


def test_bad_cache_is_named(tmp_path, capsys):
    data = write_json(tmp_path / "dev.json", AMBIGNQ)
    out = tmp_path / "out"
    out.mkdir()
    cache = out / "cache.copy.jsonl"
    args = ["evaluate", "--data", str(data), "--task", "qd-gold", "--system", "copy", "--out", str(out)]
    other = {"id": AMBIGNQ[0]["id"], "question": "Something else?", "prediction": [], "sources": [], "seconds": 0.0}
    cache.write_text(json.dumps(other) + "\n")
    assert main(args) == 2
    assert f"error: {cache}: line 1: id {other['id']} was asked 'Something else?'" in capsys.readouterr().err

    cache.write_text("not json\n" + json.dumps(other) + "\n")
    assert main(args) == 2
    assert f"error: {cache}: line 1: not a cached prediction" in capsys.readouterr().err
