#!/bin/sh
# The verifier options of issue 35, end to end, from the repository root (about 35 minutes on 2 cores):
#   sh docs/experiments/verifier-options/run.sh runs/verifier-options
set -e
OUT=${1:-runs/verifier-options}
HERE=docs/experiments/verifier-options
mkdir -p "$OUT"
export PYTHONPATH=.
python $HERE/pairs.py "$OUT"                      # entity pairs of 9,616 train questions (about 5 min)
python $HERE/reader_pairs.py "$OUT"               # the collected reader candidates, with evidence
python $HERE/mix.py "$OUT" 0 && python $HERE/mix.py "$OUT" 1
python $HERE/train_cross.py "$OUT/mix1.jsonl" "$OUT/cross-A" 1.5   # about 5.5 min each
python $HERE/train_cross.py "$OUT/mix0.jsonl" "$OUT/cross-B" 1.5
python $HERE/listwise.py "$OUT" | tail -1 > docs/results/verifier-options/listwise.txt   # the 0.5B reader's listwise turn (about 8 min)
python $HERE/compare.py "$OUT" "$OUT/cross-A" "$OUT/cross-B" > docs/results/verifier-options/compare.md
