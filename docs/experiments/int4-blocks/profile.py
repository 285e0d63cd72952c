"""Lab: where onnxruntime spends a reader's time: each op kind's share of the kernel time of two passage reads (130
tokens after a 338-token cached prefix, as a passage turn after the worked examples) and five one-token steps.

    PYTHONPATH=. python docs/experiments/int4-blocks/profile.py models/embedded-1.5b/generator
"""

import collections
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

from ambigdemo.runtimes.onnx import OnnxChatGenerator


def main(folder: Path) -> None:
    generator = OnnxChatGenerator(folder)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_profiling = True
    options.profile_file_prefix = "/tmp/ambigdemo-ort-profile"
    generator.session = session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])

    def run(n: int, past: int) -> None:
        """``n`` tokens read after a cache of ``past`` positions, fed as the runtime feeds them."""
        cache = {name: np.zeros((1, generator.kv_heads, past, generator.head_dim), np.float32) for name in generator.past_names}
        generator._forward([1] * n, cache, past)

    for _ in range(2):
        run(130, 338)
    for _ in range(5):
        run(1, 480)
    events = json.loads(Path(session.end_profiling()).read_text())
    spent = collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            spent[e["args"]["op_name"]] += e["dur"]
    total = sum(spent.values())
    print("| op | share of kernel time |\n|---|---|")
    for op, us in spent.most_common(5):
        print(f"| {op} | {us / total:.0%} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
