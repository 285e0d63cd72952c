"""The expected build peak, serving memory and first-reading time of GGUF readers not run here, from their file
sizes and embedding tables (public model cards, Q4_K_M files; rounded) and this project's measures:

* the build's peak: ``GgufInfo.expected_peak_bytes``'s formula (fitted on the 0.5B's and 1.5B's builds);
* serving RSS and first reading p50 on 2 cores: the line through the two readers measured side by side
  (docs/benchmarks.md, "The two readers": 0.5B 1.13 GB and 0.77 s with a 0.41 GB int4 model, 1.5B 2.66 GB and
  1.82 s with 1.12 GB), the int4 ONNX model taken as about the GGUF file's size (0.41 GB from the 0.5B's 0.49 GB
  file): decoding on a CPU is bound by reading the weights.

    python docs/experiments/own-reader/expected.py
"""

from ambigdemo.presets.gguf_reader import PEAK_FIXED, PEAK_PER_LARGEST

GB = 1e9
MEASURED = ((0.41, 1.13, 0.77), (1.12, 2.66, 1.82))  # int4 model GB, peak RSS GB, first reading p50 s: 0.5B, 1.5B


def line(column: int) -> tuple[float, float]:
    """Intercept and slope of a measure against the model's size, through the two readers' points."""
    (x0, *a), (x1, *b) = MEASURED
    slope = (b[column] - a[column]) / (x1 - x0)
    return a[column] - slope * x0, slope


(RSS_0, RSS_PER_GB), (READ_0, READ_PER_GB) = line(0), line(1)
MODELS = (  # name, Q4_K_M file (GB), vocabulary x hidden size (the largest tensor of each)
    ("Qwen2.5-3B-Instruct", 1.93, 151_936 * 2_048),
    ("Llama-3.2-3B-Instruct", 2.02, 128_256 * 3_072),
    ("Phi-3.5-mini-instruct", 2.39, 32_064 * 3_072),
    ("gemma-3-4b-it", 2.49, 262_208 * 2_560),
    ("Mistral-7B-Instruct-v0.2", 4.37, 32_000 * 4_096),
    ("Qwen2.5-7B-Instruct", 4.68, 152_064 * 3_584),
    ("Llama-3.1-8B-Instruct", 4.92, 128_256 * 4_096),
)

print("| model (Q4_K_M) | file | build peak | serving RSS | first reading p50, 2 cores |")
print("|---|---|---|---|---|")
for name, file_gb, largest in MODELS:
    peak = (PEAK_FIXED + file_gb * GB + PEAK_PER_LARGEST * 4 * largest) / GB
    print(f"| {name} | {file_gb:.2f} GB | {peak:.1f} GB | {RSS_0 + RSS_PER_GB * file_gb:.1f} GB | "
          f"{READ_0 + READ_PER_GB * file_gb:.1f} s |")
