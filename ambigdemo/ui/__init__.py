"""The Gradio app: Ask, Contrast, Compare and Leaderboard tabs. Top layer: it calls the pipeline, nothing calls it."""

ANSWERING = "answering"  # one concurrency limit shared by every route that runs the pipeline (Ask, /ask, Contrast, Compare)
