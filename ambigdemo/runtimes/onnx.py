"""ONNX Runtime sessions for the two model roles: a sentence embedder and a causal generator.

Both read a folder with ``model.onnx`` and ``tokenizer.json`` and need neither torch nor
transformers, so the answer path starts fast and stays small.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from ambigdemo.runtimes.chat import Chat
from ambigdemo.runtimes.manifest import ArtifactError
from ambigdemo.runtimes.specs import EmbedderSpec, GeneratorSpec

KEEP_LOGITS = "num_logits_to_keep"  # the input ``export.keep_last_logits`` adds

def make_session(path: Path, threads: int = 0) -> ort.InferenceSession:
    """A CPU session; ``threads`` 0 lets onnxruntime use every core."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(os.fspath(path), options, providers=["CPUExecutionProvider"])
    give_back_freed_heap()
    return session

def give_back_freed_heap() -> None:
    """Hand the heap pages freed so far back to the system (glibc's ``malloc_trim``; nothing elsewhere). A
    session frees its model file's bytes once its tensors are built, and glibc would keep them: 0.7 GB for
    the 1.5B reader (docs/benchmarks.md#the-readers-memory)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc: macOS, musl, Windows
        return
    trim(0)

class Embedder(Protocol):
    """Turns texts into vectors; queries and passages get their model's instruction prefixes."""

    dim: int

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray: ...

    def encode_query(self, texts: list[str], batch_size: int = 32) -> np.ndarray: ...

    def encode_passages(self, texts: list[str], batch_size: int = 32) -> np.ndarray: ...

class OnnxEmbedder:
    """A BERT-style encoder pooled as its ``embedder.json`` says (default: mean pooling, L2 norm, no prefixes)."""

    def __init__(self, folder: Path, threads: int = 0):
        self.folder = Path(folder)
        self.spec = EmbedderSpec.load(self.folder)
        self.session = make_session(self.folder / "model.onnx", threads)
        self.tokenizer = Tokenizer.from_file(os.fspath(self.folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.spec.max_length)
        self.tokenizer.enable_padding()
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.dim = int(self.session.get_outputs()[0].shape[-1])

    def encode_query(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self.encode([self.spec.query_prefix + t for t in texts], batch_size)

    def encode_passages(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self.encode([self.spec.passage_prefix + t for t in texts], batch_size)

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Vectors of ``texts`` as given (no prefix), in input order."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([len(t) for t in texts])
        for start in range(0, len(texts), batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._encode_batch([texts[i] for i in idx])
        return out

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]
        if self.spec.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            pooled = (hidden * mask[..., None]).sum(axis=1) / np.clip(mask.sum(axis=1, keepdims=True), 1, None)
        if not self.spec.normalize:
            return pooled
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

@dataclass(frozen=True)
class Message:
    role: str
    content: str

class Generator(Protocol):
    """Streams text for a chat conversation, or continues a :class:`Context` (a prefix read once); ``chat``
    writes its turns."""

    chat: Chat

    def stream(self, messages: list[Message], max_new_tokens: int = 128, stop: tuple[str, ...] = ()) -> Iterator[str]: ...

    def context(self, prefix: str = "") -> "Context": ...

    def decode(self, context: "Context", max_new_tokens: int = 128, stop: tuple[str, ...] = (),
               first: int | None = None, logps: list[float] | None = None) -> Iterator[str]: ...

    def score(self, messages: list[Message], completion: str) -> float: ...

class OnnxChatGenerator:
    """Greedy decoding of a decoder-only ONNX export (optimum ``text-generation-with-past``) with its KV cache.

    ``no_repeat_ngram`` > 0 never lets the completion repeat an n-gram of its own tokens (greedy
    decoding of a small model otherwise loops: "the Untold Story of the Untold Story of ...").

    ``generator.json`` in the folder names the chat format (``chat``: its turns' text) and the end token ids,
    configured rather than read from the tokenizer (a converted tokenizer may name the wrong end token).
    """

    def __init__(self, folder: Path, threads: int = 0, no_repeat_ngram: int = 0):
        self.folder = Path(folder)
        self.no_repeat_ngram = no_repeat_ngram
        self.session = make_session(self.folder / "model.onnx", threads)
        self.tokenizer = Tokenizer.from_file(os.fspath(self.folder / "tokenizer.json"))
        spec = GeneratorSpec.load(self.folder)
        self.eos_ids = set(spec.eos_token_ids)
        self.system_prompt = spec.system_prompt
        try:
            self.chat: Chat = spec.chat()
        except ValueError as exc:
            raise ArtifactError(f"{self.folder / spec.FILE}: the reader cannot be used: {exc}") from exc
        self.max_context = spec.max_context
        inputs = self.session.get_inputs()
        self.slices_logits = any(i.name == KEEP_LOGITS for i in inputs)
        self.takes_positions = any(i.name == "position_ids" for i in inputs)  # an export may derive them from the mask
        self.past_names = [i.name for i in inputs if i.name.startswith("past_key_values")]
        first = next(i for i in inputs if i.name == self.past_names[0])
        self.kv_heads, self.head_dim = int(first.shape[1]), int(first.shape[3])

    def render(self, messages: list[Message]) -> str:
        return self.chat.render(messages, self.system_prompt)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def _empty_cache(self) -> dict[str, np.ndarray]:
        shape = (1, self.kv_heads, 0, self.head_dim)
        return {name: np.zeros(shape, dtype=np.float32) for name in self.past_names}

    def _forward(self, ids: list[int], past: dict[str, np.ndarray], offset: int, keep: int = 1) -> tuple[np.ndarray, dict]:
        """Logits of (at least) the last ``keep`` positions and the grown cache."""
        n = len(ids)
        feed = {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.ones((1, offset + n), dtype=np.int64),
            **past,
        }
        if self.takes_positions:
            feed["position_ids"] = np.arange(offset, offset + n, dtype=np.int64)[None, :]
        if self.slices_logits:
            feed[KEEP_LOGITS] = np.array([keep], dtype=np.int64)
        outputs = self.session.run(None, feed)
        return outputs[0][0], dict(zip(self.past_names, outputs[1:]))

    def context(self, prefix: str = "") -> "Context":
        """A fresh context, after ``prefix`` (raw text, e.g. a rendered system turn) if given."""
        return Context(self).extend(prefix) if prefix else Context(self)

    def decode(self, context: "Context", max_new_tokens: int = 128, stop: tuple[str, ...] = (),
               first: int | None = None, logps: list[float] | None = None) -> Iterator[str]:
        """Greedy completion after ``context``, yielded as growing text; ``context`` grows with every token.
        ``first``: the token to start with instead of the likeliest; ``logps`` gets each token's log
        probability (the stop's excluded)."""
        out: list[int] = []
        for _ in range(max_new_tokens):
            if first is not None and not out:
                token = first
            else:
                scores = context.logits.copy()
                scores[banned_tokens(out, self.no_repeat_ngram)] = -np.inf
                token = int(np.argmax(scores))
            if token in self.eos_ids:
                return
            out.append(token)
            text = self.tokenizer.decode(out)
            cut = _first_stop(text, stop)
            if cut is not None:
                yield text[:cut]
                return
            if logps is not None:
                logps.append(float(_log_softmax(context.logits)[token]))
            yield text
            context.extend_ids([token])

    def stream(self, messages: list[Message], max_new_tokens: int = 128, stop: tuple[str, ...] = ()) -> Iterator[str]:
        """Yields the growing completion text after each new token."""
        prompt = self.encode(self.render(messages))[-(self.max_context - max_new_tokens) :]
        yield from self.decode(Context(self).extend_ids(prompt), max_new_tokens, stop)

    def generate(self, messages: list[Message], max_new_tokens: int = 128, stop: tuple[str, ...] = ()) -> str:
        text = ""
        for text in self.stream(messages, max_new_tokens, stop):
            pass
        return text

    def score(self, messages: list[Message], completion: str) -> float:
        """Mean negative log-likelihood per token of ``completion`` after the prompt (for perplexity)."""
        prompt = self.encode(self.render(messages))
        target = self.encode(completion)
        if not target:
            return 0.0
        logits, _ = self._forward(prompt + target, self._empty_cache(), 0, keep=len(prompt) + len(target))
        logits = logits[len(prompt) - 1 : -1]
        logits = logits - logits.max(axis=-1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
        return float(-logp[np.arange(len(target)), target].mean())


class Context:
    """A token sequence and its KV cache: a chat that grows turn by turn without re-reading its history.

    ``fork`` shares the cache (onnxruntime returns new arrays, so no run changes an earlier one):
    several turns continue one prefix, so passages are read once for answers, rewrites and paragraph.
    """

    def __init__(self, generator: OnnxChatGenerator):
        self.generator = generator
        self.ids: list[int] = []
        self.past = generator._empty_cache()
        self.logits = np.zeros(0, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.ids)

    def extend_ids(self, ids: list[int]) -> "Context":
        self._grow(ids)
        return self

    def _grow(self, ids: list[int], keep: int = 1) -> np.ndarray:
        """Add ``ids`` to the context; the logits of its last ``keep`` positions."""
        if len(self.ids) + len(ids) > self.generator.max_context:
            raise ValueError(f"{len(self.ids) + len(ids)} tokens exceed the model's context of {self.generator.max_context}")
        logits, self.past = self.generator._forward(ids, self.past, len(self.ids), keep=keep)
        self.logits, self.ids = logits[-1], self.ids + ids
        return logits

    def extend(self, text: str) -> "Context":
        return self.extend_ids(self.generator.encode(text))

    def fork(self) -> "Context":
        twin = Context.__new__(Context)
        twin.generator, twin.ids, twin.past, twin.logits = self.generator, list(self.ids), dict(self.past), self.logits
        return twin

    def complete(self, max_new_tokens: int = 128, stop: tuple[str, ...] = (), logps: list[float] | None = None) -> str:
        """The whole greedy continuation (the context grows with it and stays open); ``logps`` gets each
        token's log probability."""
        text = ""
        for text in self.generator.decode(self, max_new_tokens, stop, logps=logps):
            pass
        return text

    def logp(self, text: str) -> float:
        """The log probability that ``text`` continues this context (the sum over its tokens); ``self`` is unchanged."""
        return self.fork().follow(text)

    def follow(self, text: str) -> float:
        """Extend the context with ``text`` (as if the model had written it) and return its log probability."""
        ids = self.generator.encode(text)
        if not ids:
            return 0.0
        before = self.logits
        logits = self._grow(ids, keep=len(ids))
        rows = np.vstack([before[None, :], logits[-len(ids):-1]]) if len(ids) > 1 else before[None, :]
        return float(sum(_log_softmax(row)[token] for row, token in zip(rows, ids)))

    def alternatives(self, n: int, max_new_tokens: int = 16, stop: tuple[str, ...] = (),
                     least: float = 0.0) -> list[tuple[str, float, "Context"]]:
        """The greedy continuations that start with the 2nd to ``n``-th likeliest next token, each with its
        probability (its tokens', the stop excluded) and the context that ends with it; ``self`` is unchanged.
        A first token under ``least`` is not continued: no continuation of it can reach ``least``."""
        out = []
        first_p = np.exp(_log_softmax(self.logits))
        for first in np.argsort(-self.logits)[1:n]:
            if first_p[first] < least:
                break
            branch, logps, text = self.fork(), [], ""
            for text in self.generator.decode(branch, max_new_tokens, stop, first=int(first), logps=logps):
                pass
            out.append((text, float(np.exp(sum(logps))), branch))
        return out

    def reply(self, max_new_tokens: int = 128, stop: tuple[str, ...] = ()) -> Iterator[str]:
        """The assistant's reply, streamed; afterwards the context holds it, closed for the next turn."""
        for text in self.generator.decode(self, max_new_tokens, stop):
            yield text
        self.extend(self.generator.chat.closer)

    def ask(self, content: str, max_new_tokens: int = 128, stop: tuple[str, ...] = ()) -> Iterator[str]:
        """A user turn (after an earlier one) and the assistant's streamed reply."""
        self.extend(self.generator.chat.ask(content))
        yield from self.reply(max_new_tokens, stop)


def banned_tokens(tokens: list[int], n: int) -> list[int]:
    """The tokens that would complete an n-gram already in ``tokens`` (none when ``n`` is 0)."""
    if n <= 0 or len(tokens) < n:
        return []
    prefix = tuple(tokens[len(tokens) - n + 1 :])
    return [tokens[i + n - 1] for i in range(len(tokens) - n + 1) if tuple(tokens[i : i + n - 1]) == prefix]


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max()
    return shifted - np.log(np.exp(shifted).sum())


def _first_stop(text: str, stop: tuple[str, ...]) -> int | None:
    hits = [text.find(s) for s in stop if s and s in text]
    return min(hits) if hits else None
