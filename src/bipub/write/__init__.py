"""Stage 5 — write: the one module that owns the output tree."""
