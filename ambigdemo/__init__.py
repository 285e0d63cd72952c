"""ambigdemo: answers ambiguous open-domain questions the way AmbigQA and ASQA define the task.

The package is built in layers; a module imports only its own layer and those below it, and no
import circle runs through the package (``tests/test_house.py`` checks both). Top to bottom:

1. entry points: ``ui`` (the Gradio app), ``cli`` (``python -m ambigdemo``), ``bench``;
2. what runs the answer path or makes what it loads: ``evaluation``, ``judging`` (human studies),
   ``building`` (exports and training), ``space`` (a Hugging Face Space's switch of presets);
3. the answer path assembled: ``pipeline``, and ``loading``, which resolves and loads its parts;
4. its stages: ``stages`` (retrieve, read, rewrite, summarize, follow-ups);
5. what the stages stand on: ``presets`` (what loading reads: the catalog, the embedded preset's
   artifacts, hub downloads) and ``runtimes`` (ONNX sessions, spaCy, the passage index, manifests);
6. shared ground: ``config``, ``types``, ``text``, ``corpus``, ``files``, ``localhost``.
"""

__version__ = "0.1.0"

LAYERS = (
    ("ui", "cli", "bench", "__main__"),
    ("evaluation", "judging", "building", "space"),
    ("pipeline", "loading"),
    ("stages",),
    ("presets", "runtimes"),
    ("config", "types", "text", "corpus", "files", "localhost"),
)
