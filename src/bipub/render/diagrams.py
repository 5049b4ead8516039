"""Mermaid diagrams (```` ```mermaid ```` fences), drawn to SVG at build time (issue 19).

mermaid-cli (npm `@mermaid-js/mermaid-cli`, pinned in tools/mermaid/package.json, installed by
scripts/bootstrap.sh with `npm ci`) draws them in Debian's Chromium, driven by
tools/mermaid/render.mjs: every diagram a build still needs goes to ONE node process and ONE
browser (a browser start costs 1–2 s; per diagram it would cost minutes on a big site).

* Cached by content: an SVG is stored in the user's cache folder (`$XDG_CACHE_HOME/bipub/
  diagrams/<key>.svg`) under a key made of the diagram's source, the mermaid-cli and mermaid
  versions, the renderer's settings (theme, font) and RENDERER_VERSION; an unchanged diagram
  costs a file read, and a build whose diagrams are all cached starts no browser.
* Labels are SVG text, not HTML (`htmlLabels: false`): WeasyPrint draws SVG text but not HTML
  inside `<foreignObject>`, so the same SVG serves pages and PDFs. Their font is the PDF text
  fonts (`pdf.fonts`, default Noto Sans CJK KR): Korean labels are measured and drawn with it.
* Each SVG's id (the scope of its styles) is made from its key, so two diagrams on a page never
  share an id.
* A diagram that cannot be drawn (a syntax error, or mermaid-cli, node or Chromium missing) is an
  error at the fence's file:line (`diagram`): the source is never shown in its place silently.
  Failures are not cached (a missing tool, once installed, draws them).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from bipub import mermaid_cli
from bipub.cache import write_cache_file

RENDERER_VERSION: Final = "1"
THEME: Final = "neutral"
ID_PREFIX: Final = "mermaid-"
INSTALL_HINT: Final = (
    "install it with `bash scripts/bootstrap.sh` (or `cd tools/mermaid && "
    "PUPPETEER_SKIP_DOWNLOAD=1 npm ci`); set BIPUB_MERMAID_DIR to a folder holding "
    "render.mjs and its node_modules if bipub runs outside its source tree"
)
_CHROMIUM_ENV: Final = "PUPPETEER_EXECUTABLE_PATH"
# the first lines of mermaid's message; its stack trace (file URLs of the bundle) is dropped
_STACK = re.compile(r"^\s*(?:at\s|[\w.$]+ \(https?://|[\w.$]+@)")
_CARET = re.compile(r"^-*\^$")
_XML_DECL = re.compile(r"^<\?xml[^>]*>\s*")
# a ```mermaid (or ~~~mermaid) fence's opening anywhere in a line, in a quote or a list item too:
# found without parsing, a superset of the fences render/markdown.py draws
_FENCE_OPEN = re.compile(r"(?:`{3,}|~{3,})[ \t]*mermaid")


@dataclass(frozen=True)
class Drawn:
    """One diagram's SVG, or why it could not be drawn."""

    svg: str | None
    error: str | None = None


# Runs the renderer: (job as JSON-able dict, tool folder) → {key: Drawn}. Replaced in tests.
Runner = Callable[[dict[str, Any], Path], dict[str, Drawn]]


def default_tool_dir() -> Path:
    """tools/mermaid of bipub's source tree, or $BIPUB_MERMAID_DIR."""
    return mermaid_cli.tool_dir()


def chromium_path() -> str | None:
    configured = os.environ.get(_CHROMIUM_ENV)
    if configured:
        return configured if Path(configured).exists() else None
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def font_family(fonts: Sequence[str]) -> str:
    names = [f'"{name}"' for name in fonts if name and '"' not in name]
    return ", ".join([*names, "sans-serif"])


def mermaid_config(fonts: Sequence[str]) -> dict[str, Any]:
    return {
        "theme": THEME,
        "htmlLabels": False,
        "flowchart": {"htmlLabels": False},
        "themeVariables": {"fontFamily": font_family(fonts)},
        "securityLevel": "strict",
    }


def run_node(job: dict[str, Any], tool: Path) -> dict[str, Drawn]:
    """tools/mermaid/render.mjs in one node process (one Chromium) for every diagram of `job`."""
    node = shutil.which("node")
    if node is None:
        return _all_failed(job, f"node (Node.js) is not installed; {INSTALL_HINT}")
    count = len(job["diagrams"])
    try:
        proc = subprocess.run(
            [node, str(tool / "render.mjs")],
            input=json.dumps(job).encode("utf-8"),
            capture_output=True,
            cwd=tool,
            timeout=60 + 10 * count,
            check=False,
            env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"},
        )
    except subprocess.TimeoutExpired:
        return _all_failed(job, f"mermaid-cli did not finish within {60 + 10 * count} s")
    except OSError as exc:
        return _all_failed(job, f"mermaid-cli could not be started: {exc}")
    out: dict[str, Drawn] = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
            key = str(item["key"])
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(item.get("svg"), str):
            out[key] = Drawn(item["svg"])
        else:
            out[key] = Drawn(None, _first_lines(str(item.get("error") or "no SVG returned")))
    if len(out) < count:
        stderr = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        why = f"mermaid-cli stopped (exit status {proc.returncode})"
        if stderr:
            why += f": {' '.join(line.strip() for line in stderr[-3:])}"
        for d in job["diagrams"]:
            out.setdefault(d["key"], Drawn(None, why))
    return out


def _all_failed(job: dict[str, Any], why: str) -> dict[str, Drawn]:
    return {d["key"]: Drawn(None, why) for d in job["diagrams"]}


def _first_lines(message: str) -> str:
    """mermaid's message on one line: without its stack trace, and without the echo of the
    source line and the caret under it that follow "Parse error on line N:"."""
    kept: list[str] = []
    lines = message.splitlines()
    skip_echo = False
    for line in lines:
        if _STACK.match(line):
            break
        text = line.strip()
        if skip_echo:
            skip_echo = False
            continue
        if not text or _CARET.match(text):
            continue
        kept.append(text)
        skip_echo = text.startswith("Parse error on line")
    return " ".join(kept[:4]) or message.strip()[:300]


@dataclass
class Diagrams:
    """The build's diagrams: drawn once (`prepare`: every missing one in one browser run),
    then looked up by source (`get`) while bodies are rendered, in this process or in a forked
    worker (which inherits what `prepare` drew)."""

    cache_dir: Path | None  # the user's cache folder (None: --no-cache, nothing kept)
    fonts: Sequence[str] = ("Noto Sans CJK KR", "NanumGothic")
    tool: Path = field(default_factory=default_tool_dir)
    runner: Runner | None = None  # None: run_node (looked up when run)
    runs: int = 0  # how many times the renderer was started (tests, `-v`)
    drawn: int = 0  # diagrams drawn (not from the cache)
    _done: dict[str, Drawn] = field(default_factory=dict)
    _version: str | None = None
    _version_read: bool = False
    _broken: str | None = None  # why the installed tool cannot be used (a damaged file)
    _body_key: str | None = None

    def _tool_version(self) -> str | None:
        """mermaid-cli's and mermaid's installed versions (None: not installed, or damaged:
        `_broken` says how)."""
        if not self._version_read:
            try:
                self._version = mermaid_cli.installed(self.tool)
            except mermaid_cli.ToolBroken as exc:
                self._broken = str(exc)
            self._version_read = True
        return self._version

    def stamp(self) -> str:
        """What every diagram of this build is drawn by and with (the renderer, mermaid-cli's
        and mermaid's versions, the configuration and its fonts): a body's cached rendering
        depends on it too (render/markdown.py MarkdownCache.key)."""
        return "\0".join(
            (
                RENDERER_VERSION,
                self._tool_version() or ("broken" if self._broken else "missing"),
                json.dumps(mermaid_config(self.fonts), sort_keys=True),
            )
        )

    def body_key(self, body: str) -> str:
        """What a page showing the Markdown `body` depends on through its diagrams: "" for a
        body without a ```mermaid fence, else a digest of `stamp` (mermaid-cli's and mermaid's
        installed versions among it). The fingerprints of the pages and PDFs that show the body
        include it (render/html.py, render/page_views.py), so upgrading mermaid-cli draws their
        diagrams again and writes those pages again; other pages are kept."""
        if "mermaid" not in body or _FENCE_OPEN.search(body) is None:
            return ""
        if self._body_key is None:
            self._body_key = hashlib.sha256(self.stamp().encode("utf-8")).hexdigest()[:16]
        return self._body_key

    def key(self, source: str) -> str:
        h = hashlib.sha256()
        for part in (self.stamp(), source):
            h.update(part.encode("utf-8"))
            h.update(b"\0")
        return h.hexdigest()[:32]

    def get(self, source: str) -> Drawn:
        """The diagram as drawn by `prepare`, from the cache, or (not prepared) drawn now."""
        done = self._done.get(source)
        if done is None:
            self.prepare([source])
            done = self._done[source]
        return done

    def prepare(self, sources: Iterable[str]) -> None:
        """Draw every diagram of `sources` that is neither drawn yet nor in the cache, all in
        one renderer run."""
        todo: dict[str, str] = {}  # key → source
        for source in sources:
            if source in self._done or source in todo.values():
                continue
            key = self.key(source)
            cached = self._read(key)
            if cached is not None:
                self._done[source] = Drawn(cached)
            else:
                todo[key] = source
        if not todo:
            return
        if self._tool_version() is None:
            why = f"mermaid-cli is not installed in {self.tool}; {INSTALL_HINT}"
            if self._broken is not None:
                why = f"mermaid-cli in {self.tool} is damaged: {self._broken}; re{INSTALL_HINT}"
            for source in todo.values():
                self._done[source] = Drawn(None, why)
            return
        chromium = chromium_path()
        if chromium is None:
            why = "Chromium is not installed (mermaid-cli draws in it); install the Debian "
            why += f"package chromium or set {_CHROMIUM_ENV}; {INSTALL_HINT}"
            for source in todo.values():
                self._done[source] = Drawn(None, why)
            return
        job = {
            "chromium": chromium,
            "config": mermaid_config(self.fonts),
            "diagrams": [
                {"key": key, "id": ID_PREFIX + key[:16], "source": source}
                for key, source in todo.items()
            ],
        }
        self.runs += 1
        results = (self.runner or run_node)(job, self.tool)
        for key, source in todo.items():
            drawn = results.get(key) or Drawn(None, "mermaid-cli returned nothing for it")
            if drawn.svg is not None:
                svg = _XML_DECL.sub("", drawn.svg).strip()
                if not svg.startswith("<svg"):
                    drawn = Drawn(None, "mermaid-cli returned something that is not an SVG")
                else:
                    drawn = Drawn(svg)
                    self.drawn += 1
                    self._write(key, svg)
            self._done[source] = drawn

    def _path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / "diagrams" / f"{key}.svg"

    def _read(self, key: str) -> str | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            return path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _write(self, key: str, svg: str) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            write_cache_file(path, svg.encode("utf-8"))
        except OSError:
            return  # only an optimization: this build has the SVG, the next one draws it again
