"""The prototype that decided the lexical passage: the readings sets answered by the code before the change
(b99a525) with the passage BM25 ranks first added to the retrieved passages (last, with its dense score, when the
dense top 8 lack it) and read after the gated ones, as the shipped retriever and reader (``lexical``) now do; the
score is the one before its refit (weights within 0.002 of the refit's). Writes ``bench --readings``'s metrics.json.

    # a worktree of b99a525 with the models linked, as lexical_read.py's docstring makes it
    cd /tmp/before14 && AMBIGDEMO_READER_MODEL=1.5b AMBIGDEMO_GENERATOR=0 PYTHONPATH=. \
        python /path/to/lexical_dev.py OUT assets/readings-heldout-13.json assets/readings-heldout-12.json
"""

import json
import sys
from dataclasses import replace
from pathlib import Path

import bm25s

import ambigdemo.stages.reader as reader_module
from ambigdemo.config import Config
from ambigdemo.evaluation import readings
from ambigdemo.pipeline import Pipeline
from ambigdemo.stages.retrieve import Retriever


def main(out: Path, paths: list[Path]) -> None:
    pipeline = Pipeline.load(Config.from_env())
    index = pipeline.retriever.index
    passages = list(index.passages)
    bm25 = bm25s.BM25()
    bm25.index(bm25s.tokenize([f"{p.title} {p.text}" for p in passages], stopwords="en", show_progress=False), show_progress=False)
    lexical: set[str] = set()
    dense_search, dense_read = Retriever.batch_search, reader_module.ReaderRun.to_read

    def batch_search(self, questions, k=8):
        found = []
        for question, dense in zip(questions, dense_search(self, questions, k)):
            rows, _ = bm25.retrieve(bm25s.tokenize([question], stopwords="en", show_progress=False), k=1, show_progress=False)
            best = passages[int(rows[0][0])]
            if best.id not in {p.id for p in dense}:
                score = float(index.vectors_of([best.id])[0] @ self.embedder.encode_query([question])[0])
                dense = dense + [replace(best, score=score)]
            lexical.add(best.id)
            found.append(dense)
        return found

    def to_read(self):
        read = dense_read(self)
        ids = {p.id for p, _ in read}
        return read + [(p, 0.0) for p in self.passages if p.id in lexical and p.id not in ids][:1]

    Retriever.batch_search, reader_module.ReaderRun.to_read = batch_search, to_read
    report = readings.run(pipeline, {p.stem.removeprefix("readings-"): p for p in paths}, systems=("llm",))
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(readings.markdown(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(a) for a in sys.argv[2:]])
