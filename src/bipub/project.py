"""Where things live in a bipub project (a contract: users and other tools rely on it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    root: Path

    @property
    def config_file(self) -> Path:
        return self.root / "bipub.yaml"

    @property
    def content(self) -> Path:
        return self.root / "content"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def locales(self) -> Path:
        return self.root / "locales"

    @property
    def static(self) -> Path:
        return self.root / "static"

    @property
    def status(self) -> Path:
        return self.root / "status"

    @property
    def default_out(self) -> Path:
        return self.root / "site"

    @property
    def cache(self) -> Path:
        return self.root / ".bipub-cache"
