"""Stage 2 — validate: the typed content model (pydantic) and the mapping of its errors to file:line."""
