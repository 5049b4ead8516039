"""Stage 1 — load: read files from the project into plain data that remembers its line numbers."""
