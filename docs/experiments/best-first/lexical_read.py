"""How many needed answers the passages the 1.5B reads hold, with and without the passage BM25 ranks first.

For each question of the readings sets given: the passages the shipped gate reads (within 90% of the best dense
score, over 0.45, at most 4), then those plus BM25's best passage (``bm25s``, title and text) when the gate does not
read it, with or without the reader's least dense score, or its best two; and the dense top 8. A needed answer counts
when a passage of the list states one of its aliases (the funnel's ``occurs_in``). Prints the counts and the passages
read per question. Run on the code before the change (b99a525), whose retriever has no BM25:

    git worktree add /tmp/before14 b99a525
    for m in cache embedded embedded-1.5b; do ln -s "$PWD/models/$m" /tmp/before14/models/$m; done
    cd /tmp/before14 && PYTHONPATH=. python /path/to/lexical_read.py assets/readings-heldout-1{0,1,2,3}.json
"""

import json
import sys

import bm25s

from ambigdemo.config import Config
from ambigdemo.pipeline import Pipeline
from ambigdemo.runtimes.index import _scored
from ambigdemo.stages.reader.recall import relevant
from ambigdemo.stages.reader.verify import occurs_in


def main(paths: list[str]) -> None:
    pipeline = Pipeline.load(Config.from_env(use_generator=False))
    retriever, index = pipeline.retriever, pipeline.retriever.index
    passages = list(index.passages)
    bm25 = bm25s.BM25()
    bm25.index(bm25s.tokenize([f"{p.title} {p.text}" for p in passages], stopwords="en", show_progress=False), show_progress=False)
    held, read = {}, {}
    questions = 0
    for path in paths:
        for item in json.load(open(path, encoding="utf-8")):
            question = item["question"]
            dense = retriever.search(question, 8)
            rows, _ = bm25.retrieve(bm25s.tokenize([question], stopwords="en", show_progress=False), k=2, show_progress=False)
            vector = retriever.embedder.encode_query([question])[0]
            lexical = [_scored(passages[int(r)], float(index.vectors_of([passages[int(r)].id])[0] @ vector)) for r in rows[0]]
            gated = relevant(dense, 0.9, 0.45, 4)
            ids = {p.id for p in gated}
            unread = [p for p in lexical if p.id not in ids]
            lists = {
                "gate": gated,
                "gate + BM25's best": gated + [p for p in lexical[:1] if p.id not in ids],
                "gate + BM25's best over 0.45": gated + [p for p in lexical[:1] if p.id not in ids and p.score >= 0.45],
                "gate + BM25's best two over 0.45": gated + [p for p in unread if p.score >= 0.45][:2],
                "dense top 8": dense,
            }
            for name, chosen in lists.items():
                held[name] = held.get(name, 0) + sum(any(occurs_in(a, p) for p in chosen for a in g) for g in item["answers"])
                read[name] = read.get(name, 0) + len(chosen)
            held["needed"] = held.get("needed", 0) + len(item["answers"])
            questions += 1
    for name in read:
        print(f"{name:34} holds {held[name]} / {held['needed']} needed, {read[name] / questions:.2f} passages a question")


if __name__ == "__main__":
    main(sys.argv[1:])
