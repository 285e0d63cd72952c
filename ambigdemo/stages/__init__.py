"""Pipeline stages: retrieve -> answers -> rewrite -> summarize. Stages use runtimes, never the pipeline."""
