"""Lab: each int4 recipe on three of the 1.5B's weights (de-quantized from its Q4_K_M GGUF): the relative error of
x @ W against the GGUF's own weights, and the time of one 130-token read (M = 130, onnxruntime's MatMulNBits with
int8 compute, 2 threads, the median of ten runs).

    PYTHONPATH=. python docs/experiments/int4-blocks/kernels.py models/cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
"""

import statistics
import sys
import time

import numpy as np
import onnxruntime as ort
from gguf import GGUFReader, dequantize
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

WEIGHTS = ("blk.10.attn_q.weight", "blk.10.ffn_up.weight", "blk.20.ffn_down.weight")
RECIPES = ((32, True), (32, False), (64, False), (128, True), (128, False))


def session(weight: np.ndarray, block: int, symmetric: bool) -> ort.InferenceSession:
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, weight.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, weight.shape[1]])],
        [numpy_helper.from_array(weight, "w")])
    quantizer = MatMulNBitsQuantizer(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), bits=4,
                                     block_size=block, is_symmetric=symmetric, accuracy_level=4, op_types_to_quantize=("MatMul",))
    quantizer.process()
    model = quantizer.model.model
    model.ir_version = min(model.ir_version, 10)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def main(gguf: str) -> None:
    tensors = {t.name: t for t in GGUFReader(gguf).tensors}
    print("| weight | recipe | relative error | 130-token read, ms |\n|---|---|---|---|")
    for name in WEIGHTS:
        weight = dequantize(tensors[name].data, tensors[name].tensor_type).astype(np.float32).T.copy()
        x = np.random.RandomState(0).randn(130, weight.shape[0]).astype(np.float32)
        exact = x @ weight
        for block, symmetric in RECIPES:
            s = session(weight, block, symmetric)
            error = np.linalg.norm(s.run(None, {"x": x})[0] - exact) / np.linalg.norm(exact)
            times = []
            for _ in range(12):
                start = time.perf_counter()
                s.run(None, {"x": x})
                times.append(time.perf_counter() - start)
            recipe = f"blocks of {block}, {'symmetric' if symmetric else 'zero points'}"
            print(f"| {name} {tuple(weight.shape)} | {recipe} | {error:.3f} | {1000 * statistics.median(times[2:]):.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
