"""Fine-tune the generator to write disambiguated questions from AmbigNQ train (reproducible, resumable).

Each multipleQAs annotation of a train question gives one example per rewrite: the chat prompt of
:func:`ambigdemo.stages.rewrite.rewrite_messages` (the prompt question, this rewrite's answer, the
other answers), rendered exactly as :class:`~ambigdemo.runtimes.onnx.OnnxChatGenerator` renders it
and tokenized with the same ``tokenizer.json``, and the rewrite (its first alternative) as the
completion. Only the completion's tokens carry loss. transformers' Trainer gives the progress bar,
the seeds and a checkpoint every ``save_steps``; a rerun with the same ``out`` resumes from the last
one. The weights end in ``OUT/final``; :func:`export` turns them into the int4 ONNX folder the app loads.

Only the ``train-rewriter`` command imports this module (it needs torch); the answer path never does.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from pathlib import Path

from ambigdemo.evaluation.datasets import AmbigExample, load_ambignq
from ambigdemo.evaluation.metrics import gold_alternatives
from ambigdemo.runtimes.chat import CHATML
from ambigdemo.stages.rewrite import rewrite_messages

END = "<|im_end|>"
IGNORE = -100


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides a run; saved as ``OUT/train_config.json``."""

    data: str
    epochs: float = 1.0
    max_steps: int = -1
    batch_size: int = 8
    learning_rate: float = 5e-5
    warmup_ratio: float = 0.03
    max_length: int = 160
    save_steps: int = 100
    seed: int = 0
    limit: int | None = None


def rewrite_pairs(examples: list[AmbigExample]) -> list[tuple[str, str, list[str], str]]:
    """(prompt question, answer, other answers, rewrite) for every rewrite of every multipleQAs annotation."""
    pairs = []
    for ex in examples:
        for ann in ex.annotations:
            if ann.type != "multipleQAs" or len(ann.qa_pairs) < 2:
                continue
            answers = [qa.answers[0] for qa in ann.qa_pairs]
            for n, qa in enumerate(ann.qa_pairs):
                rewrite = gold_alternatives(qa.question)[0].strip()
                if rewrite and answers[n]:
                    others = list(dict.fromkeys(a for a in answers if a != answers[n]))
                    pairs.append((ex.question, answers[n], others, rewrite))
    return pairs


def encode(tokenizer, question: str, answer: str, others: list[str], rewrite: str, max_length: int) -> dict:
    """Token ids of prompt + completion, with labels only on the completion (and its end token)."""
    prompt = tokenizer.encode(CHATML.render(rewrite_messages(question, answer, others)), add_special_tokens=False).ids
    target = tokenizer.encode(rewrite + END, add_special_tokens=False).ids
    prompt = prompt[-(max_length - len(target)) :] if len(prompt) + len(target) > max_length else prompt
    return {"input_ids": prompt + target, "labels": [IGNORE] * len(prompt) + target}


def load_examples(config: TrainConfig, tokenizer) -> list[dict]:
    pairs = rewrite_pairs(load_ambignq(config.data))
    if config.limit:
        pairs = random.Random(config.seed).sample(pairs, min(config.limit, len(pairs)))
    return [encode(tokenizer, *p, max_length=config.max_length) for p in pairs]


class Collator:
    """Right-pads a batch: ``pad_id`` for inputs, IGNORE for labels."""

    def __init__(self, pad_id: int):
        self.pad_id = pad_id

    def __call__(self, batch: list[dict]) -> dict:
        import torch

        width = max(len(b["input_ids"]) for b in batch)
        ids = [b["input_ids"] + [self.pad_id] * (width - len(b["input_ids"])) for b in batch]
        labels = [b["labels"] + [IGNORE] * (width - len(b["labels"])) for b in batch]
        mask = [[1] * len(b["input_ids"]) + [0] * (width - len(b["input_ids"])) for b in batch]
        return {"input_ids": torch.tensor(ids), "labels": torch.tensor(labels), "attention_mask": torch.tensor(mask)}


def load_base(base: Path, gguf_file: str | None):
    """The causal LM to tune: a transformers folder, or a GGUF file in it (dequantized to fp32)."""
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(base, gguf_file=gguf_file)


def train(
    config: TrainConfig, out: Path, base: Path, tokenizer_file: Path, gguf_file: str | None = None, callbacks: tuple = ()
) -> Path:
    """Train (or resume) into ``out``; returns ``out/final`` with the weights and the tokenizer.

    ``callbacks``: transformers ``TrainerCallback``s (the tests stop a run midway with one).
    """
    import json

    import torch
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast, Trainer, TrainingArguments, set_seed
    from transformers.trainer_utils import get_last_checkpoint

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "train_config.json").write_text(json.dumps(asdict(config), indent=2))
    set_seed(config.seed)
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    examples = load_examples(config, tokenizer)
    model = load_base(base, gguf_file)
    pad_id = model.config.eos_token_id if isinstance(model.config.eos_token_id, int) else 0
    args = TrainingArguments(
        output_dir=str(out),
        per_device_train_batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        num_train_epochs=config.epochs,
        max_steps=config.max_steps,
        lr_scheduler_type="cosine",
        warmup_ratio=config.warmup_ratio,
        logging_steps=10,
        save_steps=config.save_steps,
        save_total_limit=2,
        seed=config.seed,
        data_seed=config.seed,
        group_by_length=True,
        report_to=[],
        use_cpu=not torch.cuda.is_available(),
        bf16=torch.cuda.is_available(),
        remove_unused_columns=False,
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=examples, data_collator=Collator(pad_id), callbacks=list(callbacks))
    trainer.train(resume_from_checkpoint=get_last_checkpoint(str(out)))
    final = out / "final"
    trainer.save_model(str(final))
    PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_file), eos_token=END).save_pretrained(final)
    return final


def export(final: Path, dest: Path) -> Path:
    """The tuned weights as the app's int4 ONNX generator folder (``model.onnx``, tokenizer, manifest)."""
    from ambigdemo.building.export import export_generator

    return export_generator(Path(final), Path(dest), quant="int4")
