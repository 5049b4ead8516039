"""bipub: a Korean-English bilingual publishing pipeline."""

__version__ = "0.1.0"
