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


def main(folder: Path) -> None:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_profiling = True
    options.profile_file_prefix = "/tmp/ambigdemo-ort-profile"
    session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
    inputs = {i.name: i for i in session.get_inputs()}

    def run(n: int, past: int) -> None:
        feed = {"input_ids": np.ones((1, n), np.int64), "attention_mask": np.ones((1, past + n), np.int64),
                "position_ids": np.arange(past, past + n)[None], "num_logits_to_keep": np.array([1], np.int64)}
        for name, i in inputs.items():
            if name.startswith("past"):
                feed[name] = np.zeros((1, i.shape[1], past, i.shape[3]), np.float32)
        session.run(None, {k: v for k, v in feed.items() if k in inputs})

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
