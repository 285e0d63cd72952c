"""Would the passages read for "also" only make better readings if their answers could become readings?

A passage read for the "also" tier only (``ReaderRun.read_for_also``) never moves a reading: John Ford for who
directed The Grapes of Wrath stays under "also" at p 0.80 while John Steinbeck (0.79) is the reading. This lab replays
every recorded question (``record_reading``) under the shipped score twice, as the app decides it and with those
passages counted among the readings' candidates (the record's ``also_only`` emptied before ``ReaderRun.replay``), and
prints each set's readings summary as ``bench --readings`` does. No model call: the passages, replies and features are
the recorded ones.

    PYTHONPATH=. python docs/experiments/best-first/promote.py docs/results/verifier-1.5b/sets docs/results/verifier-1.5b/checks
"""

import argparse
import sys
from pathlib import Path

from ambigdemo.building.train_verifier import records
from ambigdemo.config import VERIFIERS
from ambigdemo.stages.reader.verifier import Verifier

sys.path.insert(0, str(Path(__file__).parent))
from in_domain import line, replay_rows  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="folders of recorded sets, one NAME.jsonl each")
    ap.add_argument("--reader-model", default="1.5b", choices=sorted(VERIFIERS))
    args = ap.parse_args()
    score = Verifier.load(VERIFIERS[args.reader_model])
    for folder in args.dirs:
        for path in sorted(folder.glob("*.jsonl")):
            found = records(path)
            promoted = [{**r, "also_only": []} for r in found]
            print(line(f"{path.stem} as shipped", replay_rows(score, found)))
            print(line(f"{path.stem} promoted", replay_rows(score, promoted)))


if __name__ == "__main__":
    main()
