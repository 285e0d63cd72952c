"""Disambiguate: the model's rewrite of the question for one answer, continuing the cache of the passage
it read the answer from; :class:`~ambigdemo.stages.rewrite.Rewriter` checks it and falls back to
rule-built edits."""

from __future__ import annotations

from ambigdemo.runtimes.onnx import Context
from ambigdemo.stages.reader.prompts import REWRITE_TASK


def ask_rewrite(context: Context, answer: str, max_tokens: int) -> str:
    """The rewrite for ``answer``, asked after a context that ends with the model's reply ``answer``
    (the context itself is left as it was)."""
    text = ""
    for text in context.fork().extend(context.generator.chat.closer).ask(REWRITE_TASK.format(answer=answer), max_tokens, stop=("\n",)):
        pass
    return text.strip().strip("\"'\u201c\u201d")
