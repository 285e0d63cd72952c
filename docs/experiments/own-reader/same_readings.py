"""Compare two ``bench --funnel`` reports question by question: the readings, the "also" answers and each gold
answer's stage. Prints how many questions differ and the first few that do.

    python docs/experiments/own-reader/same_readings.py BEFORE/metrics.json AFTER/metrics.json
"""

import json
import sys


def rows(path: str) -> dict:
    report = json.load(open(path, encoding="utf-8"))
    return {(name, row["question"]): (row["shown"], row["also"], row["stages"])
            for name, table in report["rows"].items() for row in table}


before, after = rows(sys.argv[1]), rows(sys.argv[2])
common = sorted(set(before) & set(after))
differ = [key for key in common if before[key] != after[key]]
print(f"{len(common)} questions in both, {len(differ)} with other readings, also answers or stages")
for key in differ[:5]:
    print(key, before[key], after[key])
