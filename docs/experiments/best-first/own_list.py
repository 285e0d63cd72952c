"""Lab: does a list need one of its own names as a reading before its other names need only the listed bar?

Today (``verifier.tiers``) a list is "shown" once one of its names is a reading *or names one* ("same": another
passage's reading). This replays trees.py's leave-one-set-out run with that second way taken out: ``tiers`` rebuilt
from its source without the two lines that mark a list shown by a "same" name. Arguments as trees.py's.

    PYTHONPATH=.:docs/experiments/best-first python docs/experiments/best-first/own_list.py /tmp/train.features.json \\
        docs/results/verifier-1.5b/sets --bars 0.69:0.9:0.6 --shares 0.3 --checks docs/results/verifier-1.5b/checks
"""

import inspect
import textwrap

import ambigdemo.stages.reader as reader
import ambigdemo.stages.reader.verifier as verifier

import trees

SAME_SHOWS_LIST = """            if lists[i] is not None:
                shown_lists.add(lists[i])
"""


def own_list_tiers():
    """``verifier.tiers`` without a "same" name marking its list shown."""
    source = textwrap.dedent(inspect.getsource(verifier.tiers))
    head, sep, tail = source.partition('out[i] = "same"\n')
    assert sep and tail.startswith(SAME_SHOWS_LIST), "tiers changed: the lab no longer applies"
    space = dict(vars(verifier))
    exec(head + sep + tail[len(SAME_SHOWS_LIST):], space)
    return space["tiers"]


if __name__ == "__main__":
    reader.tiers = own_list_tiers()
    trees.main()
