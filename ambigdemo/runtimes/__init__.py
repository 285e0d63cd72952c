"""Lowest layer, under the stages: ONNX model sessions (:mod:`.onnx`) and the small JSON files beside a
model (:mod:`.specs`), spaCy (:mod:`.nlp`), the passage index (:mod:`.index`) and the manifest that marks a
model or index folder complete (:mod:`.manifest`). Imports nothing from above."""
