"""The quantizers the exports use, each the recipe that :data:`ambigdemo.runtimes.specs.RECIPES` names:
one module both the float export (:mod:`.export`) and the lean GGUF export (:mod:`.gguf_export`) import."""

from __future__ import annotations

from pathlib import Path


def quantize_int8(model: Path) -> None:
    """Dynamic int8 weight quantization in place, one scale per output channel (onnxruntime's CPU recipe).

    Per-channel scales keep an all-MiniLM-L6-v2 export at cosine >= 0.99 to its fp32 vectors, where
    one scale per tensor drops it to 0.95-0.98.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = model.with_suffix(".int8.onnx")
    quantize_dynamic(str(model), str(tmp), weight_type=QuantType.QInt8, per_channel=True)
    _replace_model(model, tmp)


def quantize_int4(model: Path, block_size: int = 32) -> None:
    """4-bit block-wise weights in place, the output head and the token embeddings included.

    Projections become onnxruntime's MatMulNBits (int8 compute), the embedding table GatherBlockQuantized.

    For SmolLM2-135M on 2 CPU cores this decodes faster than :func:`quantize_int8` (whose
    MatMulInteger ops are slower than fp32 here); ``python -m ambigdemo bench`` measures speed and
    token NLL against PyTorch. A head tied to the embeddings reaches MatMul through a Transpose,
    which the quantizer skips, so it is first stored as its own transposed weight.
    """
    import onnx

    quantizer = int4_quantizer(_untie_head(onnx.load(str(model))), block_size)
    quantizer.process()
    tmp = model.with_suffix(".int4.onnx")
    onnx.save_model(quantizer.model.model, str(tmp))
    _replace_model(model, tmp)


def int4_quantizer(proto, block_size: int = 32):
    """onnxruntime's MatMulNBitsQuantizer with the int4 recipe (``RECIPES["int4"]``), for the whole model or one weight."""
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    return MatMulNBitsQuantizer(
        proto, bits=4, block_size=block_size, is_symmetric=True, accuracy_level=4,
        op_types_to_quantize=("MatMul", "Gather"), quant_axes=(("MatMul", 0), ("Gather", 1)),
    )


def _replace_model(model: Path, quantized: Path) -> None:
    """The quantized file takes the model's place; the fp32 external weights it no longer needs go."""
    quantized.replace(model)
    for extra in model.parent.glob("model.onnx_data"):
        extra.unlink()


def _untie_head(proto):
    """MatMul(x, Transpose(W)) with W an initializer -> MatMul(x, W.T) with W.T an initializer of its own."""
    from onnx import numpy_helper

    graph = proto.graph
    inits = {i.name: i for i in graph.initializer}
    producers = {o: n for n in graph.node for o in n.output}
    for node in [n for n in graph.node if n.op_type == "MatMul"]:
        source = producers.get(node.input[1])
        if source is None or source.op_type != "Transpose" or source.input[0] not in inits:
            continue
        name = f"{source.input[0]}.transposed"
        graph.initializer.append(numpy_helper.from_array(numpy_helper.to_array(inits[source.input[0]]).T.copy(), name))
        node.input[1] = name
        if not any(source.output[0] in n.input for n in graph.node):
            graph.node.remove(source)
    return proto


QUANTIZERS = {"int8": quantize_int8, "int4": quantize_int4}
