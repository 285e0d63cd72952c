"""Quiet long work: a step says one line when it starts and one when it ends; everything a library says
(logging, warnings, native output, a child process) goes to the build log; a failing step names itself
and the log. And a built app's start prints a few lines before Gradio's "Running on local URL"."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import warnings

import pytest
from tqdm import tqdm

from ambigdemo.presets.steps import StepFailed, Steps
from ambigdemo.localhost import free_port

from conftest import ROOT


def noisy_library() -> None:
    """What onnxruntime's quantizer, torch and optimum do during a build."""
    logging.basicConfig(format="%(asctime)s %(name)s [%(levelname)s] - %(message)s", level=logging.INFO)
    logging.getLogger("onnxruntime.quantization").info("skip to quantize /model/norm/Div ...")
    warnings.warn("Converting a tensor to a Python boolean might cause the trace to be incorrect", RuntimeWarning)
    os.write(2, b"native: MatMulNBits kernel selected\n")
    print("optimum: exporting the model")
    subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('child: Exporting model\\n')"], check=True)


def test_a_step_shows_two_lines_and_its_bar_and_logs_the_rest(tmp_path, capfd):
    log, terminal = tmp_path / "build.log", io.StringIO()
    steps = Steps(log, terminal)
    with steps.step("reader: quantize (int4)"):
        noisy_library()
        for _ in tqdm(range(3), desc="index"):
            pass
    lines = terminal.getvalue().splitlines()
    assert lines[0] == "reader: quantize (int4) ..." and lines[1].startswith("reader: quantize (int4): done in ")
    assert len(lines) == 2
    shown = capfd.readouterr()
    assert "index" in shown.err and "3/3" in shown.err  # the bar is on the terminal
    for noise in ("skip to quantize", "Python boolean", "MatMulNBits", "optimum: exporting", "child: Exporting"):
        assert noise not in shown.out + shown.err, noise
        assert noise in log.read_text(encoding="utf-8"), noise
    logging.getLogger("after").warning("outside a step")  # the terminal is the terminal again
    print("after the step")
    assert "after the step" in capfd.readouterr().out


def test_a_failing_step_names_itself_and_its_log(tmp_path):
    log, terminal = tmp_path / "models" / "build.log", io.StringIO()
    with pytest.raises(StepFailed) as failed:
        with Steps(log, terminal).step("reader: export to ONNX"):
            os.write(2, b"Traceback (most recent call last): out of memory\n")
            raise MemoryError("the export needs 6 GB")
    assert str(failed.value) == f"reader: export to ONNX failed: the export needs 6 GB (the libraries' output is in {log})"
    assert terminal.getvalue().splitlines()[-1].startswith("reader: export to ONNX: failed after ")
    assert "out of memory" in log.read_text(encoding="utf-8")


def test_a_built_app_starts_in_a_few_lines(preset):
    """The first command on a built preset: the build's checks, then Gradio's URL, nothing else."""
    port = free_port()
    env = {**os.environ, "AMBIGDEMO_DATA_DIR": str(ROOT / "test-artifacts" / "start-data")}
    proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if "Running on local URL" in line or len(lines) > 200:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert any("Running on local URL" in line for line in lines), "\n".join(lines[-30:])
    before = lines[: next(i for i, line in enumerate(lines) if "Running on local URL" in line)]
    assert len(before) <= 10, "\n".join(before)
