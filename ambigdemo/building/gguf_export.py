"""A GGUF reader to an int4 ONNX model without ever holding the float model: the build's lean export.

Two steps, each a fraction of the float model's memory:

1. :func:`trace_graph`: optimum traces the graph (its ONNX config, model patcher and dummy inputs) from a
   model whose every weight is one broadcast number, with the weights left out as named graph inputs;
2. :func:`fill_weights`: each GGUF tensor is de-quantized as transformers does, then quantized by
   onnxruntime's ``MatMulNBitsQuantizer`` with :func:`~ambigdemo.building.export.int4_quantizer`'s recipe
   and put in its input's place, one tensor at a time.

The model is the one the float path (GGUF -> transformers -> optimum -> quantizer) makes from the same
file: the same graph and the same 4-bit weights, so the same answers. The file's header is parsed once
(:class:`GgufHeader`): transformers' parse reads the whole vocabulary, about ten seconds for Qwen2.5's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import numpy as np

from ambigdemo.building.quantize import int4_quantizer

TASK = "text-generation-with-past"
EXTERNAL_DATA = "model.onnx_data"
PROTOBUF_LIMIT = 2**31 - 2**26  # a model bigger than this keeps its weights in EXTERNAL_DATA


@dataclass(frozen=True)
class GgufHeader:
    """A GGUF file's metadata as transformers' loader parses it (``parsed``, tensors left out) and the
    model configuration ``AutoConfig.from_pretrained(..., gguf_file=...)`` makes of it."""

    parsed: dict
    config: object

    @classmethod
    def read(cls, gguf: Path) -> GgufHeader:
        from transformers import CONFIG_MAPPING
        from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

        parsed = load_gguf_checkpoint(str(gguf), return_tensors=False)
        config = dict(parsed["config"])
        return cls(parsed, CONFIG_MAPPING[config["model_type"]].from_dict(config))


def _empty_model(header: GgufHeader):
    """The GGUF's architecture with no memory behind its weights (accelerate's meta device)."""
    import copy

    from accelerate import init_empty_weights
    from transformers import AutoModelForCausalLM

    config = copy.deepcopy(header.config)
    config.use_cache = True
    with init_empty_weights(include_buffers=False):
        return AutoModelForCausalLM.from_config(config)


def trace_graph(gguf: Path, graph: Path, header: GgufHeader | None = None) -> None:
    """The reader's ONNX graph, traced by optimum as ``main_export`` does, its weights graph inputs named
    as the model's parameters (each weight a distinct broadcast number, so the exporter's de-duplication
    keeps them apart; no constant folding, so no weight is ever materialised)."""
    import optimum.exporters.onnx.model_configs  # noqa: F401  (registers the ONNX configs)
    import torch
    from optimum.exporters.onnx.convert import export_pytorch
    from optimum.exporters.tasks import TasksManager
    from optimum.exporters.utils import get_decoder_models_for_export

    model = _empty_model(header or GgufHeader.read(gguf))
    for number, (name, weight) in enumerate(list(model.named_parameters()), start=1):
        owner, _, attr = name.rpartition(".")
        stand_in = torch.full((), float(number)).expand(weight.shape)
        setattr(model.get_submodule(owner), attr, torch.nn.Parameter(stand_in, requires_grad=False))
    model.tie_weights()
    constructor = TasksManager.get_exporter_config_constructor(exporter="onnx", model=model, task=TASK, library_name="transformers")
    model, config = get_decoder_models_for_export(model, constructor(model.config))["model"]
    export = torch.onnx.export

    def weights_as_inputs(*args, **kwargs):
        return export(*args, **{**kwargs, "export_params": False})

    graph.parent.mkdir(parents=True, exist_ok=True)
    with mock.patch("torch.onnx.export", weights_as_inputs):
        export_pytorch(model, config, config.DEFAULT_ONNX_OPSET, graph, do_constant_folding=False)


def gguf_weights(gguf: Path, header: GgufHeader | None = None, model=None) -> Iterator[tuple[str, np.ndarray]]:
    """(parameter name, float32 array) for each tensor of the file, de-quantized one at a time with the
    mapping and tensor processor transformers' own GGUF loader uses (``header`` and ``model``: the file's
    :class:`GgufHeader` and :func:`_empty_model`, when the caller has them)."""
    from gguf import GGUFReader, dequantize
    from transformers.modeling_gguf_pytorch_utils import (
        TENSOR_PROCESSORS,
        TensorProcessor,
        get_gguf_hf_weights_map,
    )

    header = header or GgufHeader.read(gguf)
    model = model if model is not None else _empty_model(header)
    mapping = get_gguf_hf_weights_map(model)
    parsed = header.parsed
    reader = GGUFReader(str(gguf))
    architecture = reader.fields["general.architecture"].contents()  # the processors' key ("gemma3" for gemma3_text)
    processor = TENSOR_PROCESSORS.get(architecture, TensorProcessor)(config=parsed["config"])
    for tensor in reader.tensors:
        weights = dequantize(tensor.data, tensor.tensor_type)
        result = processor.process(weights=weights, name=tensor.name, tensor_key_mapping=mapping, parsed_parameters=parsed)
        if result.name in mapping:
            yield mapping[result.name], np.ascontiguousarray(result.weights, dtype=np.float32)


def _copy(message):
    fresh = type(message)()
    fresh.CopyFrom(message)  # a part of a message keeps the whole message (and its float weight) alive
    return fresh


def _quantized(op: str, weight: np.ndarray, name: str, block_size: int) -> tuple:
    """The node, initializers and opsets ``int4_quantizer`` makes of one MatMul (``B = weight``) or one
    Gather (``data = weight``), run on a graph of that node alone."""
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node("MatMul", ["A", name], ["Y"]) if op == "MatMul" else helper.make_node("Gather", [name, "I"], ["Y"])
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, None), helper.make_tensor_value_info("I", TensorProto.INT64, None)]
    graph = helper.make_graph([node], op, inputs, [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(weight, name)])
    quantizer = int4_quantizer(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), block_size)
    quantizer.process()
    done = quantizer.model.model
    (quantized,) = done.graph.node
    return _copy(quantized), [_copy(i) for i in done.graph.initializer], {o.domain: o.version for o in done.opset_import}


def fill_weights(graph_path: Path, gguf: Path, out: Path, block_size: int = 32, header: GgufHeader | None = None) -> None:
    """Put each GGUF tensor in its graph input's place: a weight read through ``Transpose -> MatMul`` as a
    4-bit MatMulNBits of its transpose, the embedding table read by ``Gather`` as a GatherBlockQuantized,
    any other (norms, biases) as a float initializer. ValueError names a weight the file lacks."""
    import onnx

    proto = onnx.load(str(graph_path))
    graph = proto.graph
    header = header or GgufHeader.read(gguf)
    model = _empty_model(header)
    weights = {i.name for i in graph.initializer} | {n for n, _ in model.named_parameters()}
    waiting = {i.name for i in graph.input if i.name in weights}
    readers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    replaced, dropped, opsets = {}, set(), {}
    for name, weight in gguf_weights(gguf, header, model):
        if name not in waiting:
            continue
        waiting.discard(name)
        plain = False
        for node in readers.get(name, []):
            heads = readers.get(node.output[0], [])
            if node.op_type == "Transpose" and heads and all(h.op_type == "MatMul" and h.input[1] == node.output[0] for h in heads):
                for head in heads:
                    replaced[id(head)], found = _place(head, "MatMul", weight.T.copy(), f"{name}.transposed", block_size, graph, head.input[0])
                    opsets.update(found)
                dropped.add(id(node))
            elif node.op_type == "Gather" and node.input[0] == name:
                replaced[id(node)], found = _place(node, "Gather", weight, name, block_size, graph, node.input[1])
                opsets.update(found)
            elif not plain:
                graph.initializer.append(onnx.numpy_helper.from_array(weight, name))
                plain = True
    if waiting:
        raise ValueError(f"{gguf.name} has no tensor for {len(waiting)} of the model's weights: {sorted(waiting)[:5]}")
    nodes = [replaced.get(id(n), n) for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(nodes)
    inputs = [i for i in graph.input if i.name not in weights]
    del graph.input[:]
    graph.input.extend(inputs)
    for domain, version in opsets.items():
        present = next((o for o in proto.opset_import if o.domain == domain), None)
        if present is None:
            proto.opset_import.append(onnx.helper.make_opsetid(domain, version))
        else:
            present.version = max(present.version, version)
    out.parent.mkdir(parents=True, exist_ok=True)
    external = proto.ByteSize() > PROTOBUF_LIMIT
    onnx.save_model(proto, str(out), save_as_external_data=external, all_tensors_to_one_file=True, location=EXTERNAL_DATA)


def _place(node, op: str, weight: np.ndarray, name: str, block_size: int, graph, data: str):
    """The quantized twin of ``node`` reading ``data`` (its activations or indices), its weights added to ``graph``."""
    quantized, initializers, opsets = _quantized(op, weight, name, block_size)
    quantized.input[0 if op == "MatMul" else 1] = data
    quantized.output[0] = node.output[0]
    quantized.name = f"{node.name}_Q4"
    graph.initializer.extend(initializers)
    return quantized, opsets
