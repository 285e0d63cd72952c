"""Tiny GGUF files of three architectures (qwen2, llama, gemma3), written with the ``gguf`` writer: random
weights, a small vocabulary of the architecture's own tokenizer kind and a chat template of the model family's
own form, so the lean export and the chat-template readers can be checked against transformers in seconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np

QWEN_TEMPLATE = (  # Qwen2.5's template, tools left out
    "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages %}{%- if message.role == 'user' or (message.role == 'system' and not loop.first) or message.role == 'assistant' %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
LLAMA3_TEMPLATE = (  # Llama 3's template
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}"
    "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
)
GEMMA3_TEMPLATE = (  # Gemma 3's template (text only): the system prompt goes into the first user turn
    "{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}"
    "{%- set loop_messages = messages[1:] -%}{%- else -%}{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif -%}"
    "{%- if (message['role'] == 'assistant') -%}{%- set role = 'model' -%}{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') }}{{ message['content'] | trim }}"
    "{{ '<end_of_turn>\\n' }}{%- endfor -%}{%- if add_generation_prompt -%}{{'<start_of_turn>model\\n'}}{%- endif -%}"
)
GEMMA2_TEMPLATE = (  # Gemma 2's: no system role
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}"
)
PHI3_TEMPLATE = (  # Phi-3.5-mini's: an EOS ends a conversation that opens no reply
    "{% for message in messages %}{% if message['role'] == 'system' and message['content'] %}"
    "{{'<|system|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'user' %}"
    "{{'<|user|>\n' + message['content'] + '<|end|>\n'}}{% elif message['role'] == 'assistant' %}"
    "{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"
)
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HIDDEN, LAYERS, FFN, HEADS, KV_HEADS, HEAD_DIM = 64, 2, 128, 4, 2, 16
SLIDING = 8  # gemma2/3: shorter than the prompts the tests read, so their local layers' window is exercised
QWEN3_HEAD_DIM = 128  # Qwen3's configuration fixes it (the GGUF names none)


def _byte_chars() -> list[str]:
    """GPT-2's printable stand-ins for the 256 bytes (byte-level BPE)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars, extra = dict(zip(keep, keep)), 0
    for b in range(256):
        if b not in chars:
            chars[b] = 256 + extra
            extra += 1
    return [chr(chars[b]) for b in range(256)]


def _bpe_vocab(specials: list[str]) -> tuple[list[str], list[int], list[str]]:
    """Byte-level BPE: the 256 bytes, a few merges, then the special tokens (control)."""
    tokens = _byte_chars()
    merges = ["Ġ t", "h e", "Ġt he", "i n", "o n"]
    tokens += ["Ġt", "he", "Ġthe", "in", "on"]
    kinds = [1] * len(tokens) + [3] * len(specials)
    return tokens + specials, kinds, merges


def _spm_vocab(specials: list[str]) -> tuple[list[str], list[int], list[float]]:
    """SentencePiece's kind (Gemma's, Phi-3's): control tokens, byte fallback pieces, letters and a few words."""
    pieces = ["▁", *LETTERS, *("▁" + c for c in LETTERS), "▁the", "▁of", "▁is", ".", ",", "?", "\n", ":"]
    tokens = specials + [f"<0x{b:02X}>" for b in range(256)] + pieces
    kinds = [2 if t == "<unk>" else 3 for t in specials] + [6] * 256 + [1] * len(pieces)
    scores = [0.0] * (len(specials) + 256) + [-float(i) for i in range(len(pieces))]
    return tokens, kinds, scores


def write_tiny_gguf(path: Path, arch: str, seed: int = 0, template: str | None = "default", pad_bytes: int = 0,
                    leave_out: str = "") -> Path:
    """A tiny ``arch`` model (qwen2, qwen3, llama, gemma2, gemma3 or phi3) at ``path``; ``template`` None writes no chat template;
    ``pad_bytes``: a tensor no model reads, to make the file that big (a download that can be cut mid-file);
    ``leave_out``: a tensor's GGUF name to omit (a broken file)."""
    from gguf import GGUFWriter

    rng = np.random.default_rng(seed)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    writer = GGUFWriter(str(path), arch)
    add = writer.add_tensor
    writer.add_tensor = lambda name, *a, **k: None if name == leave_out else add(name, *a, **k)
    writer.add_name(f"tiny {arch}")
    writer.add_context_length(4096)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(10000.0)
    head_dim = QWEN3_HEAD_DIM if arch == "qwen3" else HEAD_DIM
    if arch in ("gemma2", "gemma3"):
        tokens, kinds, scores = _spm_vocab(["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"])
        writer.add_key_length(HEAD_DIM)
        writer.add_value_length(HEAD_DIM)
        writer.add_sliding_window(SLIDING)
        writer.add_tokenizer_model("llama")
        writer.add_token_scores(scores)
        bos, eos, chat = 2, 1, GEMMA3_TEMPLATE if arch == "gemma3" else GEMMA2_TEMPLATE
        writer.add_unk_token_id(3)
        writer.add_pad_token_id(0)
        writer.add_add_bos_token(True)
    elif arch == "phi3":
        tokens, kinds, scores = _spm_vocab(["<unk>", "<s>", "</s>", "<|endoftext|>", "<|assistant|>", "<|end|>", "<|user|>", "<|system|>"])
        writer.add_rope_dimension_count(HEAD_DIM)
        writer.add_tokenizer_model("llama")
        writer.add_token_scores(scores)
        bos, eos, chat = 1, tokens.index("<|endoftext|>"), PHI3_TEMPLATE
        writer.add_unk_token_id(0)
        writer.add_pad_token_id(eos)
    else:
        specials = (["<|endoftext|>", "<|im_start|>", "<|im_end|>"] if arch.startswith("qwen") else
                    ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"])
        tokens, kinds, merges = _bpe_vocab(specials)
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre("qwen2" if arch.startswith("qwen") else "llama-bpe")
        writer.add_token_merges(merges)
        if arch == "llama":
            writer.add_rope_dimension_count(HEAD_DIM)
            bos, eos, chat = tokens.index("<|begin_of_text|>"), tokens.index("<|eot_id|>"), LLAMA3_TEMPLATE
        else:
            bos, eos, chat = tokens.index("<|endoftext|>"), tokens.index("<|im_end|>"), QWEN_TEMPLATE
    writer.add_token_list(tokens)
    writer.add_token_types(kinds)
    writer.add_bos_token_id(bos)
    writer.add_eos_token_id(eos)
    writer.add_vocab_size(len(tokens))
    if template is not None:
        writer.add_chat_template(chat if template == "default" else template)

    def weight(*shape: int, scale: float = 2**-4) -> np.ndarray:
        """Whole multiples of ``scale`` in -8..7 with a -8 in every block of 32 along the last axis: the lean
        export's symmetric int4 blocks hold them exactly, so its logits and transformers' differ by rounding only."""
        steps = rng.integers(-8, 8, size=shape)
        blocks = steps.reshape(-1, 32)
        blocks[np.arange(len(blocks)), rng.integers(0, 32, size=len(blocks))] = -8
        return (steps * scale).astype(np.float32)

    def norm() -> np.ndarray:
        return (1.0 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32)

    vocab = len(tokens)
    writer.add_tensor("token_embd.weight", weight(vocab, HIDDEN, scale=2**-3))
    writer.add_tensor("output_norm.weight", norm())
    if not arch.startswith("gemma"):
        writer.add_tensor("output.weight", weight(vocab, HIDDEN, scale=2**-4))
    for n in range(LAYERS):
        blk = f"blk.{n}."
        writer.add_tensor(blk + "attn_norm.weight", norm())
        if arch == "phi3":  # one fused q/k/v projection and one fused gate/up
            writer.add_tensor(blk + "attn_qkv.weight", weight((HEADS + 2 * KV_HEADS) * head_dim, HIDDEN))
            writer.add_tensor(blk + "ffn_up.weight", weight(2 * FFN, HIDDEN))
        else:
            writer.add_tensor(blk + "attn_q.weight", weight(HEADS * head_dim, HIDDEN))
            writer.add_tensor(blk + "attn_k.weight", weight(KV_HEADS * head_dim, HIDDEN))
            writer.add_tensor(blk + "attn_v.weight", weight(KV_HEADS * head_dim, HIDDEN))
            writer.add_tensor(blk + "ffn_gate.weight", weight(FFN, HIDDEN))
            writer.add_tensor(blk + "ffn_up.weight", weight(FFN, HIDDEN))
        writer.add_tensor(blk + "attn_output.weight", weight(HIDDEN, HEADS * head_dim))
        writer.add_tensor(blk + "ffn_norm.weight", norm())
        writer.add_tensor(blk + "ffn_down.weight", weight(HIDDEN, FFN))
        if arch == "qwen2":
            for part, width in (("q", HEADS), ("k", KV_HEADS), ("v", KV_HEADS)):
                writer.add_tensor(blk + f"attn_{part}.bias", (0.05 * rng.standard_normal(width * head_dim)).astype(np.float32))
        if arch in ("gemma3", "qwen3"):
            writer.add_tensor(blk + "attn_q_norm.weight", (1.0 + 0.1 * rng.standard_normal(head_dim)).astype(np.float32))
            writer.add_tensor(blk + "attn_k_norm.weight", (1.0 + 0.1 * rng.standard_normal(head_dim)).astype(np.float32))
        if arch.startswith("gemma"):
            writer.add_tensor(blk + "post_attention_norm.weight", norm())
            writer.add_tensor(blk + "post_ffw_norm.weight", norm())
    if pad_bytes:
        writer.add_tensor("padding.weight", np.zeros(pad_bytes // 4, np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
