"""Evaluation: gold and prediction files (``datasets``), the task metrics (``metrics``), the
corpus-supported subset (``support``), rewrite fluency (``fluency``) and reader tuning (``tuning``)."""
