"""The local translation cache: `.bipub-cache/deepl/`, so nothing is paid for twice.

Each entry maps a key — the SHA-256 of the text sent (the XML of `markdown_xml`), the language
pair, the request options, the glossary entries used and the encoder version — to the text
DeepL answered. Each completed request is saved as one file (`<hash>.json`, written atomically)
before anything is written from it, so a run that stops (quota, network, Ctrl-C) keeps every
answer it paid for and the next run sends only what is left. The cache holds no credentials.
Deleting the folder only costs characters.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bipub.translate.files import write_atomic

CACHE_DIR = Path(".bipub-cache") / "deepl"
FORMAT = 1


def cache_key(spec: Mapping[str, Any], text: str) -> str:
    """Key of one text under one request spec (languages, options, glossary, encoder)."""
    blob = json.dumps([FORMAT, dict(spec), text], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class DraftCache:
    def __init__(self, root: Path) -> None:
        self.folder = root / CACHE_DIR
        self.entries: dict[str, str] = {}
        if self.folder.is_dir():
            for path in sorted(self.folder.glob("*.json")):
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue  # a damaged file only costs characters
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    entries = data.get("entries")
                    if isinstance(entries, dict):
                        self.entries.update(
                            (k, v)
                            for k, v in entries.items()
                            if isinstance(k, str) and isinstance(v, str)
                        )

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def put_batch(self, entries: Mapping[str, str], billed: int) -> Path:
        """Save one request's answers as one file (atomically) and remember them."""
        digest = hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest()[:24]
        path = self.folder / f"{digest}.json"
        body = {"format": FORMAT, "billed_characters": billed, "entries": dict(entries)}
        write_atomic(path, json.dumps(body, ensure_ascii=False, indent=0, sort_keys=True) + "\n")
        self.entries.update(entries)
        return path
