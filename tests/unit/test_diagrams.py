"""Issue 19: ```mermaid diagrams (render/diagrams.py) with a fake renderer: batching, the cache,
errors at file:line, the missing tool; and the QA rule for translated diagrams (check/qa.py).
The real mermaid-cli in Chromium: tests/browser/test_diagrams_in_chromium.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bipub.check.qa import check_code
from bipub.diagnostics import Collector
from bipub.render import diagrams as dg
from bipub.render.markdown import MarkdownCache, diagram_sources, render_markdown

GOOD = "flowchart LR\n  A[요청] --> B[응답]\n"
OTHER = "flowchart TD\n  X --> Y\n"
BAD = "flowchart LR\n  A[[[ -->\n"


class FakeRenderer:
    """Models render.mjs: one call for a batch; a diagram with '[[[' is a parse error; it can
    also stop half-way (the browser crashed), returning nothing for the rest."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.calls: list[list[str]] = []
        self.stop_after = stop_after

    def __call__(self, job: dict[str, Any], tool: Path) -> dict[str, dg.Drawn]:
        self.calls.append([d["source"] for d in job["diagrams"]])
        assert json.dumps(job)  # what goes to node is JSON
        out: dict[str, dg.Drawn] = {}
        for n, d in enumerate(job["diagrams"]):
            if self.stop_after is not None and n >= self.stop_after:
                break
            if "[[[" in d["source"]:
                out[d["key"]] = dg.Drawn(None, "Parse error on line 2: Expecting 'TAGEND'")
            else:
                out[d["key"]] = dg.Drawn(f'<?xml version="1.0"?><svg id="{d["id"]}"><text/></svg>')
        return out


@pytest.fixture
def tool(tmp_path: Path) -> Path:
    """A tool folder that looks installed (versions read from node_modules)."""
    root = tmp_path / "tool"
    for package, version in (("@mermaid-js/mermaid-cli", "11.17.0"), ("mermaid", "11.14.0")):
        (root / "node_modules" / package).mkdir(parents=True)
        (root / "node_modules" / package / "package.json").write_text(
            json.dumps({"version": version})
        )
    (root / "render.mjs").write_text("// fake\n")
    (root / "package.json").write_text('{"type": "module"}')
    return root


def _diagrams(cache: Path | None, tool: Path, fake: FakeRenderer) -> dg.Diagrams:
    return dg.Diagrams(cache, tool=tool, runner=fake)


def test_every_missing_diagram_is_drawn_in_one_run_then_read_from_the_cache(
    tmp_path: Path, tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    fake = FakeRenderer()
    first = _diagrams(tmp_path / "cache", tool, fake)
    first.prepare([GOOD, OTHER, GOOD])
    assert fake.calls == [[GOOD, OTHER]]  # one run, each source once
    svg = first.get(GOOD).svg
    assert svg is not None and svg.startswith('<svg id="mermaid-')  # no XML declaration
    assert first.get(GOOD).svg != first.get(OTHER).svg  # ids differ: unique on a page
    assert fake.calls == [[GOOD, OTHER]]

    again = _diagrams(tmp_path / "cache", tool, fake)  # the next build: a new process
    again.prepare([GOOD, OTHER])
    assert again.get(GOOD).svg == svg
    assert again.runs == 0 and fake.calls == [[GOOD, OTHER]]  # nothing started

    (tool / "node_modules" / "mermaid" / "package.json").write_text('{"version": "11.15.0"}')
    upgraded = _diagrams(tmp_path / "cache", tool, fake)  # another mermaid: drawn again
    upgraded.prepare([GOOD])
    assert fake.calls[-1] == [GOOD]


def test_a_failed_diagram_is_not_cached_and_a_crash_fails_the_rest(
    tmp_path: Path, tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    fake = FakeRenderer(stop_after=1)
    diagrams = _diagrams(tmp_path / "cache", tool, fake)
    diagrams.prepare([BAD, GOOD])
    assert diagrams.get(BAD).error == "Parse error on line 2: Expecting 'TAGEND'"
    assert diagrams.get(GOOD).svg is None  # the renderer stopped before it
    assert list((tmp_path / "cache" / "diagrams").glob("*")) == []


def test_an_unprepared_diagram_is_drawn_when_asked(
    tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    fake = FakeRenderer()
    diagrams = _diagrams(None, tool, fake)  # --no-cache: nothing kept
    out = render_markdown(f"text\n\n```mermaid\n{GOOD}```\n", diagrams=diagrams)
    assert '<figure class="diagram"><svg id="mermaid-' in out.html
    assert "```" not in out.html and "요청" not in out.html  # the fake's SVG, not the source
    assert fake.calls == [[GOOD]] and out.diagram_errors == ()


def test_a_bad_diagram_is_an_error_at_the_fence_line(
    tmp_path: Path, tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    collector = Collector()
    cache = MarkdownCache(False, collector, diagrams=_diagrams(None, tool, FakeRenderer()))
    body = f"para\n\n```mermaid\n{GOOD}```\n\n- item\n\n  ```mermaid\n  {BAD}  ```\n"
    doc = _doc(body, body_line=5)
    cache.prepare_diagrams([doc])
    assert cache.diagrams.runs == 1
    out = cache(doc)
    assert [(d.file, d.line, d.code) for d in collector.errors] == [
        ("content/ko/posts/x.md", 5 + 10 - 1, "diagram")  # the fence: body line 10
    ]
    assert "Parse error on line 2" in collector.errors[0].message
    assert '<pre class="diagram-error">' in out.html  # (the build fails: never published)


def test_a_missing_tool_is_an_error_that_says_how_to_install(tmp_path: Path) -> None:
    diagrams = dg.Diagrams(tmp_path, tool=tmp_path / "nowhere", runner=FakeRenderer())
    drawn = diagrams.get(GOOD)
    assert drawn.svg is None and drawn.error is not None
    assert "mermaid-cli is not installed" in drawn.error and "bootstrap.sh" in drawn.error
    assert diagrams.runs == 0


@pytest.mark.parametrize(
    ("damaged", "text", "why"),
    [
        ("package.json", '{"type": "module",\n}', "is not valid JSON: Expecting property name"),
        ("node_modules/mermaid/package.json", "", "is not valid JSON: Expecting value"),
        ("node_modules/@mermaid-js/mermaid-cli/package.json", "[]", "not an object"),
        ("node_modules/@mermaid-js/mermaid-cli/package.json", "{}", "has no version"),
        ("node_modules/mermaid/package.json", b"\xff\xfe", "cannot be read"),
    ],
)
def test_a_damaged_tool_is_reported_as_damaged_not_as_missing(
    tool: Path, damaged: str, text: str | bytes, why: str
) -> None:
    """A version file that is there but damaged names the file and the error (never "not
    installed", which would send the user to install what is installed)."""
    path = tool / damaged
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    fake = FakeRenderer()
    diagrams = dg.Diagrams(None, tool=tool, runner=fake)
    drawn = diagrams.get(GOOD)
    assert drawn.svg is None and drawn.error is not None
    assert "not installed" not in drawn.error
    assert f"mermaid-cli in {tool} is damaged: {path} " in drawn.error
    assert why in drawn.error and "reinstall it with `bash scripts/bootstrap.sh`" in drawn.error
    assert fake.calls == []
    assert "broken" in diagrams.stamp()  # (a damaged tool's failures are never cached anyway)


def test_a_tool_with_a_file_missing_is_not_installed(
    tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    for name in ("package.json", "render.mjs", "node_modules/mermaid/package.json"):
        (tool / name).rename(tool / f"{name}.away")
        drawn = dg.Diagrams(None, tool=tool, runner=FakeRenderer()).get(GOOD)
        assert drawn.error is not None and "mermaid-cli is not installed" in drawn.error, name
        (tool / f"{name}.away").rename(tool / name)
    assert dg.Diagrams(None, tool=tool, runner=FakeRenderer()).get(GOOD).svg is not None


def test_the_installed_versions_are_in_the_diagram_key(tool: Path) -> None:
    before = dg.Diagrams(None, tool=tool).key(GOOD)
    cli = tool / "node_modules" / "@mermaid-js" / "mermaid-cli" / "package.json"
    cli.write_text(json.dumps({"version": "11.18.0"}))
    assert dg.Diagrams(None, tool=tool).key(GOOD) != before


def test_only_a_body_with_a_diagram_fence_has_a_body_key(tool: Path) -> None:
    diagrams = dg.Diagrams(None, tool=tool)
    assert diagrams.body_key("no diagram, though mermaid is named\n```python\nx\n```\n") == ""
    key = diagrams.body_key(f"```mermaid\n{GOOD}```\n")
    assert key and diagrams.body_key(f"> ~~~~ mermaid\n> {GOOD}> ~~~~\n") == key
    cli = tool / "node_modules" / "@mermaid-js" / "mermaid-cli" / "package.json"
    cli.write_text(json.dumps({"version": "11.18.0"}))
    assert dg.Diagrams(None, tool=tool).body_key(f"```mermaid\n{GOOD}```\n") != key


def test_no_chromium_is_an_error(tool: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: None)
    drawn = dg.Diagrams(None, tool=tool, runner=FakeRenderer()).get(GOOD)
    assert drawn.error is not None and "Chromium is not installed" in drawn.error


def test_node_output_is_read_line_by_line_and_a_short_output_fails_the_rest(
    tool: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """run_node against a fake render.mjs that answers for the first diagram and dies."""
    (tool / "render.mjs").write_text(
        "let s='';process.stdin.on('data',c=>s+=c).on('end',()=>{const j=JSON.parse(s);"
        "const d=j.diagrams[0];process.stdout.write(JSON.stringify({key:d.key,svg:'<svg/>'})"
        "+'\\n');process.stderr.write('browser crashed\\n');process.exit(1)});"
    )
    if dg.shutil.which("node") is None:
        pytest.skip("needs node")
    job = {"diagrams": [{"key": "a", "source": GOOD}, {"key": "b", "source": OTHER}]}
    out = dg.run_node(job, tool)
    assert out["a"] == dg.Drawn("<svg/>")
    assert out["b"].svg is None and "exit status 1" in str(out["b"].error)
    assert "browser crashed" in str(out["b"].error)


def test_diagram_sources_are_the_mermaid_fences_only() -> None:
    body = f"```python\nx = 1\n```\n\n```mermaid\n{GOOD}```\n\n~~~ mermaid\n{OTHER}~~~\n"
    assert diagram_sources(body) == [GOOD, OTHER]
    assert diagram_sources("no diagrams here") == []


def test_a_translated_diagram_may_change_its_labels_not_its_structure() -> None:
    ko = "```mermaid\nflowchart LR\n  Q[쿼리] --> S{점수}\n  S -->|배치| D((나누기))\n```\n"
    en = "```mermaid\nflowchart LR\n  Q[Query] --> S{Scores}\n  S -->|batch| D((Divide))\n```\n"
    assert check_code(ko, en) == []
    moved = en.replace("S -->|batch| D", "Q -->|batch| D")
    assert check_code(ko, moved) == [
        "diagram (code block 1) differs from the source in more than its labels (first at its line 3)"
    ]
    longer = en.replace("\n```\n", "\n  D --> E\n```\n")
    assert check_code(ko, longer)
    python = "```python\nx = 1\n```\n"
    assert check_code(python, python.replace("1", "2"))  # other code: byte for byte


def _doc(body: str, body_line: int) -> Any:
    """A stand-in with the fields MarkdownCache reads (digest "": not kept between builds)."""
    return SimpleNamespace(
        rel="content/ko/posts/x.md",
        lang="ko",
        digest="",
        body=body,
        body_line=body_line,
        sections=(),
        mentions_mermaid="mermaid" in body,  # (load/content.py Document's)
    )


def test_diagram_text_is_not_sent_for_translation() -> None:
    """A ```mermaid block stays out of the DeepL segments (docs: its labels are translated by
    hand), like any fenced block: a machine draft carries it unchanged."""
    from bipub.translate.segments import layout

    unit = f"## 흐름\n\n요청은 이렇게 흐른다.\n\n```mermaid\n{GOOD}```\n\n끝.\n"
    lay = layout(unit)
    sources = [seg.source for seg in lay.segments]
    assert any("요청은" in s for s in sources)
    assert not any("요청]" in s or "flowchart" in s for s in sources)
    skeleton = "".join(p for p in lay.pieces if isinstance(p, str))
    assert f"```mermaid\n{GOOD}```" in skeleton


def test_the_same_diagram_twice_in_a_body_gets_unique_ids(
    tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    diagrams = _diagrams(None, tool, FakeRenderer())
    block = f"```mermaid\n{GOOD}```\n"
    html = render_markdown(f"{block}\n{block}\n{block}", diagrams=diagrams).html
    ids = re.findall(r'<svg id="([^"]+)"', html)
    assert len(ids) == 3 and len(set(ids)) == 3, ids
    assert ids[1] == f"{ids[0]}-2"


def test_a_diagram_the_cache_cannot_keep_is_still_drawn_and_leaves_no_temporary_file(
    tmp_path: Path, tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")
    fake = FakeRenderer()
    diagrams = _diagrams(tmp_path / "cache", tool, fake)
    slot = tmp_path / "cache" / "diagrams" / f"{diagrams.key(GOOD)}.svg"
    (slot / "in-the-way").mkdir(parents=True)  # a folder where the file goes: the rename fails
    diagrams.prepare([GOOD])
    assert (diagrams.get(GOOD).svg or "").startswith("<svg")  # drawn all the same
    assert sorted(p.name for p in slot.parent.iterdir()) == [slot.name]  # no temporary file


def test_a_body_kept_from_an_earlier_build_is_not_reused_once_the_diagram_fonts_change(
    tool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a build keeps for the next by a body's key (MarkdownCache.key: its warnings, the
    feed entries made of it) is keyed by what renders the body too: after pdf.fonts changes, a diagram is drawn again
    with the new fonts, not taken from the old body."""
    monkeypatch.setattr(dg, "chromium_path", lambda: "/usr/bin/chromium")

    def fonts_in_svg(job: dict[str, Any], tool: Path) -> dict[str, dg.Drawn]:
        family = job["config"]["themeVariables"]["fontFamily"]
        return {d["key"]: dg.Drawn(f"<svg data-fonts='{family}'></svg>") for d in job["diagrams"]}

    doc: Any = SimpleNamespace(  # the fields MarkdownCache reads
        rel="content/ko/posts/x.md",
        lang="ko",
        digest="d1",
        body=f"```mermaid\n{GOOD}```\n",
        body_line=5,
        sections=(),
        mentions_mermaid=True,
    )
    first = MarkdownCache(
        False, Collector(), diagrams=dg.Diagrams(None, ("Old Font",), tool, fonts_in_svg)
    )
    assert "Old Font" in first(doc).html
    same = MarkdownCache(
        False, Collector(), diagrams=dg.Diagrams(None, ("Old Font",), tool, fonts_in_svg)
    )
    again = MarkdownCache(
        False, Collector(), diagrams=dg.Diagrams(None, ("New Font",), tool, fonts_in_svg)
    )
    assert same.key(doc) == first.key(doc)  # what the build keeps by this key is reused
    assert again.key(doc) != first.key(doc)  # ... and not once the fonts changed
    assert "New Font" in again(doc).html
