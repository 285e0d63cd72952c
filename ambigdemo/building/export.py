"""Turn Hugging Face model folders into the ONNX folders the app loads (needs torch and optimum).

Only the ``export`` and ``build`` commands import this module; the answer path never does. The
quantizers are :mod:`.quantize`; the lean path from a GGUF file, :mod:`.gguf_export`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from contextlib import nullcontext, redirect_stderr
from pathlib import Path

from ambigdemo.building.quantize import QUANTIZERS
from ambigdemo.presets.gguf_reader import GgufInfo
from ambigdemo.presets.steps import Step
from ambigdemo.runtimes.manifest import write_manifest
from ambigdemo.runtimes.onnx import KEEP_LOGITS
from ambigdemo.runtimes.specs import RECIPES, EmbedderSpec, GeneratorSpec

CHATML_START = "<|im_start|>"
CHATML_END = "<|im_end|>"
OWN_CONTEXT = 8192  # a brought reader's KV cache stops here (the readers' turns need under 2,048)


def keep_last_logits(model: Path) -> None:
    """Add an input ``num_logits_to_keep`` ([1], int64): the head runs on the last N positions only.

    A prompt of n tokens otherwise computes n x vocabulary logits it never reads (Qwen2.5's head is
    a quarter of the 0.5B model's weights, and 1,000 prompt tokens make 600 MB of logits). The
    runtime feeds 1 while generating and n to score a completion.
    """
    import onnx
    from onnx import TensorProto, helper

    proto = onnx.load(str(model), load_external_data=False)
    graph = proto.graph
    if any(i.name == KEEP_LOGITS for i in graph.input):
        return
    head = next(n for n in graph.node if "logits" in n.output)
    graph.input.append(helper.make_tensor_value_info(KEEP_LOGITS, TensorProto.INT64, [1]))
    graph.initializer.extend([
        helper.make_tensor("keep_logits_end", TensorProto.INT64, [1], [2**62]),
        helper.make_tensor("keep_logits_axis", TensorProto.INT64, [1], [1]),
    ])
    sliced = f"{head.input[0]}/last"
    nodes = [
        helper.make_node("Neg", [KEEP_LOGITS], ["keep_logits_start"], name="keep_logits/Neg"),
        helper.make_node("Slice", [head.input[0], "keep_logits_start", "keep_logits_end", "keep_logits_axis"], [sliced], name="keep_logits/Slice"),
    ]
    head.input[0] = sliced
    position = list(graph.node).index(head)
    for offset, node in enumerate(nodes):
        graph.node.insert(position + offset, node)
    onnx.save_model(proto, str(model))


def _quantize(model: Path, quant: str | None) -> None:
    if quant:
        QUANTIZERS[quant](model)


def export_embedder(src: Path, out: Path, quant: str | None = None, spec: EmbedderSpec = EmbedderSpec()) -> Path:
    """A sentence-transformers/BERT folder -> ``model.onnx`` (last_hidden_state), ``tokenizer.json``, ``embedder.json``."""
    from optimum.exporters.onnx import main_export

    src, out = Path(src), Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        main_export(str(src), output=tmp, task="feature-extraction", device="cpu", do_validation=False)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(tmp) / "model.onnx", out / "model.onnx")
        shutil.copy(Path(tmp) / "tokenizer.json", out / "tokenizer.json")
    _quantize(out / "model.onnx", quant)
    files = ["model.onnx", "tokenizer.json", spec.write(out)]
    write_manifest(out, files, role="embed", source=str(src), quant=quant, recipe=RECIPES.get(quant))
    return out


def export_generator(
    src: Path, out: Path, quant: str | None = "int4", gguf_file: str | None = None, step: Step = nullcontext,
    own: GgufInfo | None = None, **meta
) -> Path:
    """A causal LM folder (or a GGUF file in it) -> ``model.onnx`` with KV cache + ``tokenizer.json`` + ``generator.json``.

    A GGUF file bound for int4 takes the lean path (:mod:`~ambigdemo.building.gguf_export`: the float model
    is never held, the model is the same); anything else goes through the float model. ``own``: the GGUF's
    header (a reader brought by its user): its turns are its own chat template's, its control tokens stay whole
    and its end ids are the header's and its template's. ``step(name)`` wraps each part
    (:meth:`~ambigdemo.presets.steps.Steps.step`)."""
    src, out = Path(src), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if gguf_file and quant == "int4":
        eos = _export_gguf(src / gguf_file, out, step)
    else:
        eos = _export_float(src, out, quant, gguf_file, step)
    spec = GeneratorSpec(eos_token_ids=tuple(eos)) if own is None else _own_spec(own, out, eos)
    spec = spec.write(out)
    files = [f for f in ("model.onnx", "model.onnx_data", "tokenizer.json", spec) if (out / f).exists()]
    source = str(src / (gguf_file or ""))
    write_manifest(out, files, role="generate", source=source, quant=quant, recipe=RECIPES.get(quant), logits=KEEP_LOGITS, **meta)
    return out


def _export_gguf(gguf: Path, out: Path, step: Step) -> list[int]:
    """The lean path: trace the graph without weights, then fill it one quantized tensor at a time."""
    from transformers import AutoTokenizer

    from ambigdemo.building.gguf_export import GgufHeader, fill_weights, trace_graph

    with tempfile.TemporaryDirectory() as tmp:
        graph = Path(tmp) / "graph.onnx"
        with step("reader: trace the ONNX graph (weights left out)"):
            header = GgufHeader.read(gguf)
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, config=header.config)
            tokenizer.save_pretrained(Path(tmp) / "tokenizer")
            shutil.copy(Path(tmp) / "tokenizer" / "tokenizer.json", out / "tokenizer.json")
            trace_graph(gguf, graph, header)
        with step("reader: quantize the weights to int4, one tensor at a time"):
            (out / "model.onnx_data").unlink(missing_ok=True)
            fill_weights(graph, gguf, out / "model.onnx", header=header)
            keep_last_logits(out / "model.onnx")
    return _end_token_ids(tokenizer, header.config)


def _export_float(src: Path, out: Path, quant: str | None, gguf_file: str | None, step: Step) -> list[int]:
    """optimum's export of the float model (a GGUF file de-quantized whole), then the quantizer."""
    from optimum.exporters.onnx import main_export
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # the step's own line stands for the library's bars (checkpoint shards)
    with step("reader: export to ONNX"), tempfile.TemporaryDirectory() as tmp:
        hf_dir = Path(tmp) / "hf"
        in_log = redirect_stderr(sys.stdout) if step is not nullcontext else nullcontext()  # in a step, stdout is its log
        with in_log:  # the GGUF tensors' bar is a plain tqdm, out of disable_progress_bar's reach
            tokenizer = AutoTokenizer.from_pretrained(src, gguf_file=gguf_file)
            model = AutoModelForCausalLM.from_pretrained(src, gguf_file=gguf_file)
        model.save_pretrained(hf_dir)
        tokenizer.save_pretrained(hf_dir)
        eos = _end_token_ids(tokenizer, model.config)
        del model
        onnx_dir = Path(tmp) / "onnx"
        main_export(str(hf_dir), output=str(onnx_dir), task="text-generation-with-past", device="cpu", do_validation=False)
        for name in ("model.onnx", "model.onnx_data", "tokenizer.json"):
            if (onnx_dir / name).exists():
                shutil.copy(onnx_dir / name, out / name)
    with step(f"reader: quantize ({quant or 'none'})"):
        _quantize(out / "model.onnx", quant)
        keep_last_logits(out / "model.onnx")
    return eos


def _own_spec(own: GgufInfo, out: Path, eos: list[int]) -> GeneratorSpec:
    """The chat template's spec: the header's control tokens made whole in ``tokenizer.json`` (a converted
    tokenizer may spell ``<start_of_turn>`` in pieces), and the first token that closes a reply among the end ids."""
    from tokenizers import AddedToken, Tokenizer

    tokenizer = Tokenizer.from_file(str(out / "tokenizer.json"))
    tokenizer.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in own.control_tokens])
    tokenizer.save(str(out / "tokenizer.json"))
    chat = own.chat()
    closing = tokenizer.encode(chat.closer, add_special_tokens=False).ids[:1]
    return GeneratorSpec(
        eos_token_ids=tuple(sorted({*eos, *own.end_ids, *closing})), chat_format="template", max_context=min(own.context_length, OWN_CONTEXT),
        chat_template=own.chat_template, bos_token=own.bos_token, eos_token=own.eos_token, add_bos=own.add_bos,
    )


def _end_token_ids(tokenizer, config) -> list[int]:
    """End-of-turn ids: ChatML's ``<|im_end|>`` when the vocabulary has it, plus the config's eos."""
    ids = set()
    vocab = tokenizer.get_vocab()
    if CHATML_END in vocab:
        ids.add(vocab[CHATML_END])
    eos = config.eos_token_id
    ids.update(eos if isinstance(eos, list) else [eos] if eos is not None else [])
    return sorted(ids)
