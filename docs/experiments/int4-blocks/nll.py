"""Lab: what each int4 recipe costs the 1.5B: mean token NLL of 20 corpus passages (after a short user turn) under
the GGUF's own weights in float32 (PyTorch, transformers' GGUF loader) and under each ONNX export given, side by side,
and each export's time to read one passage (its prompt's prefill, the median of three).

    PYTHONPATH=. python docs/experiments/int4-blocks/nll.py GGUF ONNX_DIR [ONNX_DIR ...]

GGUF: the 1.5B's file, which build joins in models/cache/ (and removes once exported: join it again with
ambigdemo.building.embedded.generator_gguf).
"""

import json
import statistics
import sys
import time
from pathlib import Path

from ambigdemo.bench.answers import generator_nll
from ambigdemo.corpus import PassageSource
from ambigdemo.runtimes.onnx import OnnxChatGenerator


def prefill_s(generator: OnnxChatGenerator, text: str) -> float:
    ids = generator.encode(text)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        generator.context().extend_ids(ids)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(gguf: Path, folders: list[Path]) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(2)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, torch_dtype=torch.float32).eval()
    passage = PassageSource().read()[0].text
    report = {}
    for folder in folders:
        generator = OnnxChatGenerator(folder)
        nll = generator_nll(model, generator)
        report[str(folder)] = {"nll_torch": nll["torch"], "nll_onnx": nll["onnx"], "gap": nll["onnx"] - nll["torch"],
                               "prefill_s": prefill_s(generator, passage), "tokens": len(generator.encode(passage))}
        del generator
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
