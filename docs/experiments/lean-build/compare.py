"""Lab script: do two reader exports compute the same thing? Runs one ChatML prompt through both ONNX
models (no cache) and prints the largest difference of their logits and of their first KV outputs.

    python docs/experiments/lean-build/compare.py FLOAT_PATH/model.onnx LEAN_PATH/model.onnx

Used on 2026-11-26 for the lean build (ambigdemo/building/gguf_export.py) against the float path of
b8be77b, for the 0.5B and the 1.5B: every difference printed 0.0 (docs/benchmarks.md).
"""

import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

PROMPT = "<|im_start|>user\nWho wrote War and Peace? Answer briefly.<|im_end|>\n<|im_start|>assistant\n"


def run(path: str, ids: list[int]) -> list[np.ndarray]:
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    n = len(ids)
    feeds = {}
    for given in session.get_inputs():
        if given.name == "input_ids":
            feeds[given.name] = np.array([ids], np.int64)
        elif given.name == "attention_mask":
            feeds[given.name] = np.ones((1, n), np.int64)
        elif given.name == "position_ids":
            feeds[given.name] = np.arange(n, dtype=np.int64)[None]
        elif given.name == "num_logits_to_keep":
            feeds[given.name] = np.array([n], np.int64)
        else:  # an empty past: past_key_values.N.key / .value
            feeds[given.name] = np.zeros((1, given.shape[1], 0, given.shape[3]), np.float32)
    return session.run(None, feeds)


def main(first: str, second: str) -> None:
    ids = Tokenizer.from_file("models/embedded/generator/tokenizer.json").encode(PROMPT).ids
    a, b = run(first, ids), run(second, ids)
    assert len(a) == len(b), (len(a), len(b))
    for name, x, y in zip(("logits", "present.0.key", "present.0.value"), a, b):
        print(f"{name}: shape {x.shape}, largest difference {np.abs(x - y).max()} (largest value {np.abs(x).max()})")
    print("same next token at every position:", bool((a[0].argmax(-1) == b[0].argmax(-1)).all()))


if __name__ == "__main__":
    main(*sys.argv[1:3])
