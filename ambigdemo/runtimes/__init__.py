"""Lowest layer: model sessions, the passage index and the judgment store."""
