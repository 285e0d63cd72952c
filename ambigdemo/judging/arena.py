"""The arena: the systems compared, the questions, a bounded answer cache, and who judges what next.

Without a study, :meth:`Arena.next_pair` draws uniformly among the pairs the annotator has not
judged (``systems.next_pair``). With a :class:`~ambigdemo.judging.study.Study` it follows the study's
assignment: least-judged pairs up to the overlap target, balanced sides, and attention checks built
from stored answers (pipeline systems answer live, so only stored ones are checked in advance).
"""

from __future__ import annotations

import os
import random
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ambigdemo.judging import study as studies
from ambigdemo.judging.judgment import pair_id
from ambigdemo.judging.systems import (
    Pair,
    Pool,
    SpecError,
    StoredSystem,
    System,
    SystemAnswer,
    candidate_pairs,
    load_systems,
    next_pair,
    question_key,
)

if TYPE_CHECKING:
    from ambigdemo.judging.store import JudgmentStore
    from ambigdemo.judging.study import Study
    from ambigdemo.pipeline import Pipeline


class Arena:
    """Systems, the question pool, an optional study and a bounded cache of answers."""

    def __init__(self, systems: Mapping[str, System], pool: Pool, cache_size: int = 512,
                 study: "Study | None" = None):
        self.systems = dict(systems)
        self.pool = pool
        self.study = study
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], SystemAnswer] = OrderedDict()
        self._lock = threading.Lock()
        self.identical: set[str] = set()  # pairs whose two answers read the same: there is nothing to judge
        usable = candidate_pairs(pool.questions, self.systems)
        if not usable:
            raise SpecError(f"no question of {pool.source or 'the pool'} is covered by two of {list(self.systems)}")
        self.checks = self._eligible_checks() if study and study.attention_share > 0 else []

    @classmethod
    def from_specs(cls, pipeline: "Pipeline | None", specs: str | Sequence[str] | None = None,
                   pool: str | os.PathLike | Pool | None = None,
                   data_dir: str | os.PathLike | None = None) -> "Arena":
        """Systems from ``specs`` (``Config.compare_systems``; else the defaults), questions from ``pool``
        (``Config.compare_pool``; else the default file)."""
        systems = load_systems(pipeline, specs, data_dir)
        return cls(systems, pool if isinstance(pool, Pool) else Pool.load(pool))

    @classmethod
    def from_study(cls, pipeline: "Pipeline | None", study: "Study", data_dir: str | os.PathLike) -> "Arena":
        systems = load_systems(pipeline, study.systems, data_dir)
        pool = Pool.from_questions([q.question for q in study.questions], f"study {study.name}")
        return cls(systems, pool, study=study)

    def _eligible_checks(self) -> list[str]:
        out = []
        for q in self.pool.questions:
            base = studies.check_base(q, self.systems)
            if base and isinstance(self.systems[base], StoredSystem) and studies.eligible_for_check(self.answer(base, q)):
                out.append(q)
        return out

    def next_pair(self, annotator: str, store: "JudgmentStore", rng: random.Random,
                  exclude: Iterable[str] = ()) -> Pair | None:
        excluded = set(exclude) | self.identical
        if self.study is None:
            return next_pair(annotator, store, rng, questions=self.pool.questions, systems=self.systems,
                             exclude=excluded)
        return studies.assign(annotator, store, rng, questions=self.pool.questions, systems=self.systems,
                              per_pair=self.study.per_pair, attention_share=self.study.attention_share,
                              eligible_checks=self.checks, exclude=excluded)

    def complete(self, store: "JudgmentStore") -> bool:
        """Whether a study has every judgment it asks for: each pair judged ``per_pair`` times."""
        if self.study is None:
            return False
        counts = store.pair_counts()
        return all(counts.get(pair_id(q, x, y), 0) >= self.study.per_pair
                   for q, x, y in candidate_pairs(self.pool.questions, self.systems, self.identical))

    @property
    def min_read_s(self) -> float:
        return self.study.min_read_s if self.study else 0.0

    def shown_name(self, system: str, question: str) -> str:
        """The name a reveal gives ``system``: both sides of an attention check are its base system's answer."""
        return studies.check_base(question, self.systems) if system in (studies.FULL, studies.SHORT) else system

    def mark_identical(self, pair: Pair) -> None:
        """Never draw this pair again, for anyone: its systems answer it word for word alike."""
        with self._lock:
            self.identical.add(pair.pair_id)

    def answer(self, system: str, question: str) -> SystemAnswer:
        if system in (studies.FULL, studies.SHORT):
            base = self.answer(studies.check_base(question, self.systems), question)
            return replace(base, system=studies.FULL) if system == studies.FULL else studies.shortened(base)
        key = (system, question_key(question))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        answer = self.systems[system].answer(question)
        with self._lock:
            self._cache[key] = answer
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return answer
