"""The contrastive query encoder: AmbigNQ's other wordings as paraphrases, a resumed run equal to an
uninterrupted one, and the int8 ONNX export loaded by the pipeline as its query encoder."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from ambigdemo.presets.artifacts import TOKENIZER_FILE, TOKENIZER_PACKAGE
from ambigdemo.config import AMBIGNQ_DEV, Config
from ambigdemo.corpus import package_file
from ambigdemo.evaluation import contrast
from ambigdemo.evaluation.datasets import load_ambignq
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.manifest import ArtifactError
from ambigdemo.building.train_retriever import TrainConfig, export, paraphrases, train


@pytest.fixture(scope="module")
def dev_pairs(pipeline):
    return contrast.build(load_ambignq(AMBIGNQ_DEV), pipeline.retriever.index.passages)[:8]


def test_paraphrases_are_the_annotators_other_wordings():
    examples = load_ambignq(AMBIGNQ_DEV)
    para = paraphrases(examples)
    assert para, "dev_light has questions written two ways"
    first, second = next(iter(para.items()))
    assert first != second and "|" not in first + second


def test_a_resumed_run_equals_an_uninterrupted_one_and_the_export_serves_queries(pipeline, dev_pairs, tmp_path):
    source = package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE).parent
    index = pipeline.retriever.index
    config = TrainConfig(data="dev_light", epochs=1, batch_size=4, save_steps=1, max_steps=2)
    whole = train(dev_pairs, index, source, tmp_path / "whole", config, {})
    train(dev_pairs, index, source, tmp_path / "resumed", dataclasses.replace(config, max_steps=1), {})
    resumed = train(dev_pairs, index, source, tmp_path / "resumed", config, {})
    a = torch.load(tmp_path / "whole" / "checkpoint.pt", weights_only=False)
    b = torch.load(tmp_path / "resumed" / "checkpoint.pt", weights_only=False)
    assert a["step"] == b["step"] == 2
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"]), "resuming changes nothing"
    assert (whole / "config.json").is_file() and (resumed / "config.json").is_file()

    folder = export(whole, tmp_path / "encoder")
    tuned = Pipeline.load(Config.from_env(use_generator=False, reader="heuristic", query_encoder_dir=folder))
    hits = tuned.retriever.search("What is the capital of South Africa?", 5)
    assert len(hits) in (5, 6) and any(p.title in ("Pretoria", "Cape Town", "South Africa") for p in hits)  # and BM25's best
    assert tuned.retriever.index is not None and tuned.retriever.embedder is not pipeline.retriever.embedder


def test_a_missing_query_encoder_names_the_command_that_makes_it(preset, tmp_path):
    with pytest.raises(ArtifactError, match="train-retriever"):
        Pipeline.load(Config.from_env(use_generator=False, reader="heuristic", query_encoder_dir=tmp_path / "absent"))
