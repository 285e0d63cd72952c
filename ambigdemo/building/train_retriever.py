"""Fine-tune the embedded MiniLM query encoder to tell minimally edited questions apart (MEQ's
query-side contrastive loss; Zhang et al. 2023), on AmbigNQ train, on the CPU.

Data: the contrast pairs of AmbigNQ train (:func:`ambigdemo.evaluation.contrast.build`): two
disambiguated questions of one prompt with different answers, each with its positive passage and 49
BM25 hard negatives from the corpus. Per question ``q`` of a pair (``q'`` the other one):

- retrieval loss: InfoNCE of ``q`` over its 50 candidates' vectors, read from the shipped index and
  kept fixed, so only the query side moves and the index needs no rebuild;
- query-side contrastive loss: InfoNCE of ``q`` over ``[q+, q']``, where ``q+`` is the annotators'
  other wording of ``q`` ("a | b" in AmbigNQ) when there is one, else ``q`` itself under a second
  dropout mask (SimCSE): ``q`` must sit nearer its paraphrase than its minimal edit.

The loss is ``retrieval + weight * contrastive``. A plain torch loop with a tqdm bar saves
``OUT/checkpoint.pt`` every ``save_steps`` (a rerun resumes from it); the weights end in
``OUT/final`` and :func:`export` makes the int8 ONNX query encoder the app loads with
``AMBIGDEMO_QUERY_ENCODER``. Only ``train-retriever`` imports this module (it needs torch).
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

from tqdm import tqdm

from ambigdemo.evaluation.contrast import ContrastPair, Side


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides a run; saved as ``OUT/train_config.json``."""

    data: str
    epochs: int = 3
    max_steps: int = -1  # stop after this many steps (default: the epochs)
    batch_size: int = 16
    learning_rate: float = 2e-5
    temperature: float = 0.05
    contrast_weight: float = 1.0
    max_length: int = 64
    save_steps: int = 20
    seed: int = 0


def paraphrases(examples) -> dict[str, str]:
    """Each disambiguated question's other wording, where annotators gave one ("a | b")."""
    out = {}
    for example in examples:
        for ann in example.annotations:
            for qa in ann.qa_pairs or ():
                forms = [f.strip() for f in qa.question.split("|") if f.strip()]
                if len(forms) > 1:
                    out[forms[0]] = forms[1]
    return out


def train(pairs: list[ContrastPair], index, source: Path, out: Path, config: TrainConfig, para: dict[str, str]) -> Path:
    """Train from the sentence-transformers folder ``source``; returns ``out/final``."""
    import torch
    import torch.nn.functional as F
    from transformers import AutoModel, AutoTokenizer

    out.mkdir(parents=True, exist_ok=True)
    (out / "train_config.json").write_text(json.dumps(asdict(config), indent=2) + "\n", encoding="utf-8")
    torch.manual_seed(config.seed)
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModel.from_pretrained(source)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    candidates = {side.question: torch.from_numpy(index.vectors_of(side.candidates)) for pair in pairs for side in (pair.a, pair.b)}
    steps_per_epoch = (len(pairs) + config.batch_size - 1) // config.batch_size
    total, step = steps_per_epoch * config.epochs, 0
    if config.max_steps > 0:
        total = min(total, config.max_steps)
    checkpoint = out / "checkpoint.pt"
    if checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
        torch.set_rng_state(state["rng"])

    def encode(texts: list[str]):
        batch = tokenizer(texts, padding=True, truncation=True, max_length=config.max_length, return_tensors="pt")
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return F.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=-1)

    model.train()
    bar = tqdm(total=total, initial=step, desc="train-retriever")
    while step < total:
        epoch, at = divmod(step, steps_per_epoch)
        order = list(range(len(pairs)))
        random.Random(config.seed + epoch).shuffle(order)  # the epoch's order, whichever step this run starts at
        batch_pairs = [pairs[i] for i in order[at * config.batch_size : (at + 1) * config.batch_size]]
        sides: list[tuple[Side, Side]] = [(p.a, p.b) for p in batch_pairs] + [(p.b, p.a) for p in batch_pairs]
        queries = [s.question for s, _ in sides]
        q = encode(queries)
        q_plus = encode([para.get(s.question, s.question) for s, _ in sides])
        q_minus = encode([o.question for _, o in sides])
        cand = torch.stack([candidates[s.question] for s, _ in sides])  # (B, 50, d); the positive first
        retrieval_logits = torch.einsum("bd,bkd->bk", q, cand) / config.temperature
        contrast_logits = torch.stack([(q * q_plus).sum(-1), (q * q_minus).sum(-1)], dim=1) / config.temperature
        zeros = torch.zeros(len(sides), dtype=torch.long)
        loss = F.cross_entropy(retrieval_logits, zeros) + config.contrast_weight * F.cross_entropy(contrast_logits, zeros)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        bar.update(1)
        bar.set_postfix(loss=f"{loss.item():.3f}")
        if step % config.save_steps == 0 or step == total:
            partial = checkpoint.with_suffix(".partial")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "rng": torch.get_rng_state()}, partial)
            partial.replace(checkpoint)
    bar.close()
    final = out / "final"
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    return final


def export(final: Path, folder: Path) -> Path:
    """The trained weights as the app's int8 ONNX query encoder (same recipe as the shipped embedder)."""
    from ambigdemo.building.export import export_embedder

    return export_embedder(final, folder, quant="int8")
