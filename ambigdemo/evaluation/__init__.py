"""Evaluation, above the answer path (it is handed a pipeline, or a factory of one): the task runs and
their reports (``runs``: AmbigQA, qd-gold, multi-answer, paragraph-gold, NQ-open), gold and prediction
files (``datasets``), the metrics (``metrics``), the settings with gold answers (``gold``), the
corpus-supported subset (``support``), the readings sets and where their answers are lost (``readings``,
``funnel``), the passage gate (``gate``), rewrite fluency (``fluency``), follow-ups (``followups``),
contrast sets (``contrast``) and the heuristic reader's tuning (``tuning``)."""
