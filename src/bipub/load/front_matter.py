"""Split a Markdown file into its YAML front matter and body."""

from __future__ import annotations

from dataclasses import dataclass

from bipub.diagnostics import Diagnostic


class FrontMatterError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format())


@dataclass(frozen=True)
class Split:
    yaml_text: str
    yaml_line: int  # file line of the first YAML line (fence line + 1)
    body: str
    body_line: int  # file line where the body starts


def split_front_matter(text: str, rel: str) -> Split:
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FrontMatterError(
            Diagnostic(
                rel,
                1,
                "front-matter",
                "missing front matter: the file must start with a '---' line",
            )
        )
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            body = "\n".join(lines[i + 1 :])
            return Split("\n".join(lines[1:i]) + "\n", 2, body, i + 2)
    raise FrontMatterError(
        Diagnostic(
            rel, 1, "front-matter", "unclosed front matter: no closing '---' line after line 1"
        )
    )
