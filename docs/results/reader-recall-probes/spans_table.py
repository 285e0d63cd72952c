"""New needed readings (+) against distinct wrong answers (-) if every candidate of ``spans.py`` that the
reader's checks keep and the app does not already show were shown, per passages scored (1, 2, 4, 8),
score (``abs``: log p of the span; ``rel``: less the greedy reply's; ``none``: less "none"'s) and threshold.

    python docs/results/reader-recall-probes/spans_table.py docs/results/reader-recall-probes/spans-0.5b.jsonl
"""
import json, sys
rows=[json.loads(l) for l in open(sys.argv[1])]
def cands(rows, maxrank, mode):
    res=[]
    for r in rows:
        for o in r['out']:
            if o['rank']>=maxrank or o['rej'] or o['dup']: continue
            s = o['lp'] if mode=='abs' else (o['lp']-o['lg'] if mode=='rel' else o['lp']-o['lnone'])
            new = o['reading'] is not None and o['reading'] not in r['have']
            res.append((s, new, o['reading'] is None, r['q'], o['c'], o['reading']))
    return res
for maxrank in (1,2,4,8):
  for mode in ('abs','rel','none'):
    res=cands(rows,maxrank,mode)
    line=[]
    for th in ([-0.5,-1,-1.5,-2,-3,-4] if mode!='none' else [2,1,0,-1,-2,-3]):
        sel=[x for x in res if x[0]>=th]
        # new distinct readings
        newk={(x[3],x[5]) for x in sel if x[1]}
        badk={(x[3], x[4].lower()) for x in sel if x[2]}
        line.append(f"{th}:+{len(newk)}/-{len(badk)}")
    print(maxrank, mode, ' '.join(line))
