"""The fast Markdown parser and the joined-rule highlighter are used only on the upstream versions
they were verified with (render/upstream.py); elsewhere stock markdown-it-py and Pygments run.
Forcing the fallback must give the same HTML as the fast paths on a varied corpus."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from bipub.render import markdown as bm
from bipub.render import upstream
from bipub.render.diagrams import Diagrams
from bipub.render.markdown import render_markdown
from tests.conftest import PROJECTS, REPO, diagrams_in_the_tests_cache

EXTRA = """\
# Title with `code` and *emphasis*

Text with a footnote[^1], a [link](https://example.com "t"), an ![image](a.png), <b>raw</b>,
~~struck~~, an autolink <https://example.com/x>, and a [refused](javascript:alert(1)) one.

| a | b |
|---|:-:|
| 1 | `x|y` |

> quote
> - item
> 1. numbered

[^1]: The note.

```go
package main
import "fmt"
func main() { fmt.Println(`raw`, 0x1F, 1.5e3) }
```

```css
.a > b::after { content: "<&>"; color: #fff !important; } /* c */
```

```rust
fn main() { let x: Vec<u8> = vec![1, 2]; println!("{:?}", x); }
```

```sql
SELECT a, COUNT(*) FROM t WHERE b = 'x' GROUP BY a; -- comment
```

```js
const f = (a) => `t ${a}`; // c
```

```no-such-language
kept as it is
```

    indented code

***
"""


def _corpus() -> list[tuple[str, str]]:
    files = sorted((REPO / "content").rglob("*.md")) + sorted(PROJECTS.rglob("*.md"))
    texts = [(str(p.relative_to(REPO)), p.read_text(encoding="utf-8")) for p in files]
    return [*texts, ("(mixed sample)", EXTRA)]


CORPUS = _corpus()
# the ```mermaid diagrams of the corpus (drawn by mermaid-cli: ~2 s a run), drawn once for the
# module at most (taken from the tests' cache if a build drew them: `_diagrams_of_the_run`):
# the fast paths are the parser's and the highlighter's, not the diagrams'
DIAGRAMS = Diagrams(None)


@pytest.fixture(scope="module", autouse=True)
def _diagrams_of_the_run(_user_cache_env: None) -> Iterator[None]:
    with diagrams_in_the_tests_cache(DIAGRAMS):
        yield


def test_the_corpus_is_varied() -> None:
    text = "\n".join(t for _, t in CORPUS)
    assert len(CORPUS) > 10
    for marker in ("```python", "```bash", "```yaml", "[^1]", "| a |", "> "):
        assert marker in text, marker


@pytest.mark.parametrize("raw_html", [False, True])
@pytest.mark.parametrize(("name", "source"), CORPUS, ids=[n for n, _ in CORPUS])
def test_the_fallback_renders_what_the_fast_paths_render(
    name: str, source: str, raw_html: bool
) -> None:
    fast = render_markdown(source, raw_html=raw_html, fast=True, diagrams=DIAGRAMS)
    stock = render_markdown(source, raw_html=raw_html, fast=False, diagrams=DIAGRAMS)
    assert stock == fast, name


def test_the_fallback_is_really_stock() -> None:
    """fast=False gives a parser without markdown_fast's rules and a lexer without joined rules."""
    from bipub.render.highlight import lexer_for

    stock, fast = bm._parser(False, False), bm._parser(False, True)
    assert stock is not fast
    assert [r.__name__ for r in stock.block.ruler.getRules("")] != [
        r.__name__ for r in fast.block.ruler.getRules("")
    ]
    python = lexer_for("python", False)
    assert python is not None and "get_tokens_unprocessed" not in vars(python)
    joined = lexer_for("python", True)
    assert joined is not None and "get_tokens_unprocessed" in vars(joined)


def test_the_fast_paths_are_on_with_the_locked_versions() -> None:
    """CI and bootstrap install requirements.lock: there the fast paths must be the ones tested."""
    locked = _locked()
    for name, verified in {**upstream.MARKDOWN_VERIFIED, **upstream.HIGHLIGHT_VERIFIED}.items():
        if name != "Python":
            assert locked[name.lower()] in verified, f"requirements.lock pins an unverified {name}"
    assert upstream.fast_markdown() and bm.FAST_MARKDOWN
    if upstream.installed()["Python"] in upstream.HIGHLIGHT_VERIFIED["Python"]:
        assert upstream.fast_highlight() and bm.FAST_HIGHLIGHT
        assert upstream.notes() == []


def test_an_unverified_version_turns_a_fast_path_off_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    versions = {**upstream.installed(), "markdown-it-py": "9.0.0", "Python": "3.99"}
    monkeypatch.setattr(upstream, "installed", lambda: versions)
    assert not upstream.fast_markdown()
    assert not upstream.fast_highlight()
    notes = upstream.notes()
    assert len(notes) == 2
    assert "markdown-it-py 9.0.0" in notes[0] and "stock markdown-it-py" in notes[0]
    assert "Python 3.99" in notes[1] and "stock Pygments" in notes[1]


def _locked() -> dict[str, str]:
    out = {}
    for line in (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if m:
            out[m[1].lower().replace("_", "-")] = m[2]
    return out


def test_dependencies_are_ranges_that_the_lock_satisfies() -> None:
    """`pip install bipub` next to other packages must not conflict on exact pins; the exact
    versions CI and bootstrap install live in requirements.lock."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    locked = _locked()
    deps = list(project["dependencies"]) + list(project["optional-dependencies"]["dev"])
    for text in deps:
        req = Requirement(text)
        specs = list(req.specifier)
        assert specs, f"{text}: no version range"
        assert all(s.operator != "==" for s in specs), f"{text}: an exact pin (use a range)"
        assert any(s.operator == "<" for s in specs), f"{text}: no upper bound"
        name = req.name.lower().replace("_", "-")
        assert name in locked, f"{text}: not in requirements.lock"
        assert req.specifier.contains(locked[name]), f"requirements.lock {name} {locked[name]}"


def test_bootstrap_installs_the_lock() -> None:
    script = (REPO / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    # (the project's install: by uv or pip, `"${installer[@]}"`, always with the lock)
    installs = [ln for ln in script.splitlines() if '-e ".[dev]"' in ln]
    assert installs and all("-c requirements.lock" in ln for ln in installs)
    installers = [ln for ln in script.splitlines() if ln.strip().startswith("installer=(")]
    assert len(installers) == 2 and all("pip install" in ln for ln in installers)


def test_files_under_test_exist() -> None:
    assert Path(upstream.__file__).is_file()
