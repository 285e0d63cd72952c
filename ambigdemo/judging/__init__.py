"""Pairwise human evaluation, kept apart from its UI: the judgment store, the systems compared,
study assignment, ratings (Bradley-Terry) and agreement between annotators."""
