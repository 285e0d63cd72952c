"""The Hugging Face Space settings: README front matter in step with requirements.txt, and the queue
limits the app is built with (2 vCPU / 16 GB: two requests at a time, 64 waiting)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import yaml

from ambigdemo.config import Config
from ambigdemo.ui.app import build_app

ROOT = Path(__file__).resolve().parent.parent


def test_readme_front_matter_configures_a_gradio_space():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n"), "the Space's YAML must be the README's very first lines"
    meta = yaml.safe_load(text.split("---\n", 2)[1])
    pinned = re.search(r"^gradio==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M).group(1)
    assert meta["sdk"] == "gradio" and str(meta["sdk_version"]) == pinned
    assert (ROOT / meta["app_file"]).is_file()
    assert meta["python_version"] == "3.11" and meta["suggested_hardware"] == "cpu-basic"
    assert {"title", "emoji", "colorFrom", "colorTo", "license"} <= set(meta)
    assert text.split("---\n", 2)[2].lstrip().startswith("# ambigdemo")


def test_app_queue_fits_a_cpu_basic_space(pipeline, tmp_path):
    config = replace(Config.from_env(), data_dir=tmp_path)
    demo = build_app(pipeline, config)
    assert Config.concurrency == 2, "the default fits 2 vCPU"
    assert demo._queue.default_concurrency_limit == config.concurrency
    assert demo._queue.max_size == 64
