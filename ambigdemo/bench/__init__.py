"""Benchmarks (not tests), one module per thing measured, run by ``python -m ambigdemo bench``:
:mod:`.answers` (latency per stage, cold start, peak memory, ONNX vs PyTorch), :mod:`.everyday`,
:mod:`.threads`, :mod:`.server` (concurrent users), :mod:`.index` (index kinds at scale) and
:mod:`.judgments` (the judgment store and leaderboard)."""
