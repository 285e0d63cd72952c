"""Lab: a training mix for fold FOLD: entity pairs (positives whose sentence holds a fifth of the question's words,
negatives of a positive's entity type first) and the reader candidates of fold FOLD three times.
Usage: python mix.py OUT FOLD"""
import json, random, sys, collections
from ambigdemo.stages.question import Question, content_words
from ambigdemo.stages.answers import bare_title
folder = sys.argv[1]; fold = int(sys.argv[2]); out = f'{folder}/mix{fold}.jsonl'
rng = random.Random(0)
byq = collections.defaultdict(list)
for l in open(f'{folder}/all.jsonl'):
    r = json.loads(l); byq[r['question']].append(r)
rows = []
for q, rs in byq.items():
    asked = Question.of(q).words
    pos = []
    for r in rs:
        if r['right']:
            a = asked - content_words(r['text'])
            have = content_words(bare_title(r['title'])) | content_words(r['sentence'])
            if not a or len(a & have) / len(a) >= 0.2:
                pos.append(r)
    if not pos:
        continue
    labels = {r['label'] for r in pos}
    hard = [r for r in rs if not r['right'] and r['label'] in labels]
    easy = [r for r in rs if not r['right'] and r['label'] not in labels]
    rng.shuffle(hard); rng.shuffle(easy)
    rows += pos[:3] + hard[:4] + easy[:1]
reader = [json.loads(l) for l in open(f'{folder}/reader-train.jsonl')]
rows += [r for r in reader if r['fold'] == fold] * 3
print(len(rows), sum(r['right'] for r in rows))
with open(out, 'w') as f:
    for r in rows: f.write(json.dumps(r) + '\n')
