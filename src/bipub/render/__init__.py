"""Stage 4 — render: turn the paired site into bytes for each output (HTML, JSON, feeds, llms.txt)."""
