"""The local translation cache: `.bipub-cache/deepl/`, so nothing is paid for twice.

Each entry maps a key — the SHA-256 of one segment's text as sent (the XML of `markdown_xml`),
the language pair, the request options, the glossary entries used and the encoder version — to
the text DeepL answered and whether that answer passed its checks (`ok`). An answer that did
not (a lost placeholder, XML that is not well-formed) is kept for the record but never served:
the next run asks again. DeepL's `context` (the neighbouring text) is not part of the key, so
editing one paragraph does not make its neighbours' answers stale.

Each completed request is saved as one file (`<hash>.json`, written atomically) before anything
is written from it, so a run that stops (quota, network, Ctrl-C) keeps every answer it paid for
and the next run sends only what is left. The cache holds no credentials. Deleting the folder
only costs characters. Files of the earlier format (whole sections) are ignored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bipub.user_files import write_atomic

CACHE_DIR = Path(".bipub-cache") / "deepl"
FORMAT = 2


def cache_key(spec: Mapping[str, Any], text: str) -> str:
    """Key of one text under one request spec (languages, options, glossary, encoder)."""
    blob = json.dumps([FORMAT, dict(spec), text], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class DraftCache:
    """The answers DeepL gave, by cache key. `fresh` (`bipub translate --fresh`): none is served
    (every segment is asked again), and the new answers replace them."""

    def __init__(self, root: Path, *, fresh: bool = False) -> None:
        self.folder = root / CACHE_DIR
        self.fresh = fresh
        self.entries: dict[str, str] = {}
        self.failed: dict[str, str] = {}  # answers that did not pass their checks
        if self.folder.is_dir():
            for path in sorted(self.folder.glob("*.json")):
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue  # a damaged file only costs characters
                if isinstance(data, dict) and data.get("format") == FORMAT:
                    entries = data.get("entries")
                    if isinstance(entries, dict):
                        for k, v in entries.items():
                            self._load(k, v)

    def _load(self, key: object, value: object) -> None:
        if not isinstance(key, str) or not isinstance(value, dict):
            return
        text, ok = value.get("text"), value.get("ok")
        if not isinstance(text, str) or not isinstance(ok, bool):
            return
        if ok:
            self.entries[key] = text
            self.failed.pop(key, None)
        elif key not in self.entries:
            self.failed[key] = text

    def get(self, key: str) -> str | None:
        """A stored answer that passed its checks (a failed one is never served; none with
        `fresh`)."""
        return None if self.fresh else self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return not self.fresh and key in self.entries

    def put_batch(self, entries: Mapping[str, tuple[str, bool]], billed: int) -> Path:
        """Save one request's answers (text, passed its checks) as one file, atomically."""
        digest = hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest()[:24]
        path = self.folder / f"{digest}.json"
        body = {
            "format": FORMAT,
            "billed_characters": billed,
            "entries": {k: {"text": t, "ok": ok} for k, (t, ok) in entries.items()},
        }
        write_atomic(path, json.dumps(body, ensure_ascii=False, indent=0, sort_keys=True) + "\n")
        for key, (text, ok) in entries.items():
            self._load(key, {"text": text, "ok": ok})
        return path
