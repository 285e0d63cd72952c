"""What builds and trains the app's models and indexes, above the answer path (which never imports it):
the embedded preset from PyPI (:mod:`.embedded`), the ONNX exports (:mod:`.export`, the lean GGUF path
:mod:`.gguf_export`, their quantizers :mod:`.quantize`), the Ray index build (:mod:`.distributed`), and
the models fitted for the app (:mod:`.train_retriever`, :mod:`.train_rewriter`, :mod:`.train_verifier`)."""
