"""Stage 3 — pair: match each source with its translations, unit by unit, and resolve what each
language shows (its own translation, a machine draft, or the source with a notice)."""
