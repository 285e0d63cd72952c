"""The rewriter's fine-tuning: examples from AmbigNQ, loss on the rewrite only, a resumed run equal to an
uninterrupted one, and the int4 ONNX export loaded by the pipeline's rewriter.

A tiny random Llama with the embedded generator's tokenizer stands in for the embedded generator (seconds, not hours).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from transformers import TrainerCallback

from ambigdemo.config import AMBIGNQ_TRAIN, Config
from conftest import make_tiny_llama
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.manifest import ArtifactError
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.runtimes.chat import CHATML
from ambigdemo.runtimes.onnx import OnnxChatGenerator
from ambigdemo.stages.rewrite import Rewriter, rewrite_messages
from ambigdemo.building.train_rewriter import IGNORE, TrainConfig, encode, rewrite_pairs

TRAIN = AMBIGNQ_TRAIN
RECORDS = [
    {"id": "1", "question": "Who played gaston in the movie beauty and the beast?", "annotations": [{"type": "multipleQAs", "qaPairs": [
        {"question": "Who played gaston in the 2017 movie beauty and the beast?", "answer": ["Luke Evans"]},
        {"question": "Who played gaston in the 1991 movie beauty and the beast?|Who voiced gaston in 1991?", "answer": ["Richard White"]},
    ]}]},
    {"id": "2", "question": "Who won the world cup?", "annotations": [{"type": "singleAnswer", "answer": ["Spain"]}]},
    {"id": "3", "question": "When does chinese new year start this year?", "annotations": [{"type": "multipleQAs", "qaPairs": [
        {"question": "When does chinese new year start in 2017?", "answer": ["28 Jan 2017"]},
        {"question": "When does chinese new year start in 2016?", "answer": ["8 Feb 2016"]},
        {"question": "When does chinese new year start in 2015?", "answer": ["19 Feb 2015"]},
    ]}]},
]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("qd") / "train.json"
    path.write_text(json.dumps(RECORDS))
    return path


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory, preset) -> Path:
    return make_tiny_llama(tmp_path_factory.mktemp("tiny-llama"), preset.generator / "tokenizer.json", tied=True)


def test_every_rewrite_of_ambignq_train_is_an_example():
    pairs = rewrite_pairs(load_ambignq(TRAIN))
    assert len(pairs) == 14_082  # the multi-answer rewrites of train_light
    assert all(rewrite and "|" not in rewrite and answer and answer not in others for _, answer, others, rewrite in pairs)


def test_examples_give_the_other_answers_and_the_first_wording(data):
    pairs = rewrite_pairs(load_ambignq(data))
    assert len(pairs) == 5  # the singleAnswer question gives none
    assert pairs[1] == (
        "Who played gaston in the movie beauty and the beast?", "Richard White", ["Luke Evans"],
        "Who played gaston in the 1991 movie beauty and the beast?",
    )


def test_only_the_rewrite_carries_loss(preset):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(preset.generator / "tokenizer.json"))
    row = encode(tokenizer, "Who won?", "Spain", ["Italy"], "Who won in 2010?", max_length=160)
    prompt = tokenizer.encode(CHATML.render(rewrite_messages("Who won?", "Spain", ["Italy"])), add_special_tokens=False).ids
    assert row["input_ids"][: len(prompt)] == prompt, "the prompt is rendered as the app's generator renders it"
    assert row["labels"][: len(prompt)] == [IGNORE] * len(prompt)
    assert tokenizer.decode(row["labels"][len(prompt) :], skip_special_tokens=False) == "Who won in 2010?<|im_end|>"


def test_a_resumed_run_equals_an_uninterrupted_one_and_exports(data, tiny_llama, preset, tmp_path, monkeypatch):
    from safetensors.numpy import load_file

    from ambigdemo.building.train_rewriter import export, train

    tokenizer = preset.generator / "tokenizer.json"
    config = TrainConfig(data=str(data), max_steps=3, batch_size=2, learning_rate=1e-3, save_steps=2, seed=0)
    whole = train(config, tmp_path / "whole", tiny_llama, tokenizer)
    train(config, tmp_path / "resumed", tiny_llama, tokenizer, callbacks=(StopAfter(2),))  # as if killed after step 2
    assert (tmp_path / "resumed" / "checkpoint-2").is_dir() and not (tmp_path / "resumed" / "checkpoint-3").exists()
    resumed = train(config, tmp_path / "resumed", tiny_llama, tokenizer)
    state = json.loads((tmp_path / "resumed" / "checkpoint-3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3
    a, b = load_file(str(whole / "model.safetensors")), load_file(str(resumed / "model.safetensors"))
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-5, atol=1e-6, err_msg=name)
    base = load_file(str(tiny_llama / "model.safetensors"))
    assert any(not np.allclose(base[n], a[n]) for n in base), "training changed the weights"

    folder = export(whole, tmp_path / "rewriter")
    generator = OnnxChatGenerator(folder)
    text = generator.generate(rewrite_messages("Who won the world cup?", "Spain", ["Italy"]), max_new_tokens=6)
    assert isinstance(text, str)
    rewriter = Rewriter(nlp=None, generator=generator)
    assert rewriter._generate("Who won the world cup?", _answer("Spain"), [_answer("Italy")]) == text.strip().strip('"')

    monkeypatch.setenv("AMBIGDEMO_REWRITER", str(folder))
    config = Config.from_env(use_generator=False)
    assert Pipeline.load(config).rewriter.generator.folder == folder, "AMBIGDEMO_REWRITER's model is the rewriter's"
    with open(folder / "model.onnx", "r+b") as fh:
        fh.truncate(1000)
    with pytest.raises(ArtifactError, match=r"model\.onnx.*train-rewriter"):
        Pipeline.load(config)


class StopAfter(TrainerCallback):
    """Ends training after ``steps`` optimizer steps: a kill, without the process dying."""

    def __init__(self, steps: int):
        self.steps = steps

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.steps:
            control.should_training_stop = True
        return control


def _answer(text: str):
    from ambigdemo.types import Answer

    return Answer(text=text, score=1.0, passages=[])
