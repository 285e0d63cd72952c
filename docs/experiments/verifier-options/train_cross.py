"""Lab: fine-tune the shipped MiniLM as a cross-encoder of (question, "candidate ; title: evidence sentence").
Usage: python train_cross.py MIX.jsonl MODEL_DIR EPOCHS"""
import json, random, sys, time
from pathlib import Path
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup
from ambigdemo.presets.artifacts import TOKENIZER_PACKAGE, TOKENIZER_FILE
from ambigdemo.corpus import package_file

data, out = Path(sys.argv[1]), Path(sys.argv[2])
epochs = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
torch.manual_seed(0); torch.set_num_threads(2)
src = package_file(TOKENIZER_PACKAGE, TOKENIZER_FILE).parent
tok = AutoTokenizer.from_pretrained(src)
model = AutoModelForSequenceClassification.from_pretrained(src, num_labels=1)
rows = [json.loads(l) for l in data.open()]
random.Random(0).shuffle(rows)

def pair(r):
    return r["question"], f"{r['text']} ; {r['title']}: {r['sentence']}"

bs = 32
steps = int(len(rows) * epochs / bs)
opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
sched = get_linear_schedule_with_warmup(opt, int(0.1 * steps), steps)
lossf = torch.nn.BCEWithLogitsLoss()
model.train(); t0 = time.time()
for step in range(steps):
    batch = [rows[(step * bs + i) % len(rows)] for i in range(bs)]
    a, b = zip(*map(pair, batch))
    enc = tok(list(a), list(b), truncation="only_second", max_length=128, padding=True, return_tensors="pt")
    y = torch.tensor([float(r["right"]) for r in batch])
    loss = lossf(model(**enc).logits.squeeze(-1), y)
    opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    if step % 20 == 0:
        print(step, steps, round(loss.item(), 3), round(time.time() - t0), flush=True)
model.save_pretrained(out); tok.save_pretrained(out)
print("saved", out, round(time.time() - t0))
