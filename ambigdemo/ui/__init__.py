"""The Gradio app: Ask, Compare and Leaderboard tabs. Top layer: it calls the pipeline, nothing calls it."""
