"""What a post's or page's page is made of (render/html.py `_made_of`: its entry, its series'
members, the posts before and after it) decides whether a build keeps its fingerprint
(buildstate.carry). It must name exactly the posts `neighbours` shows as previous and next (a
faster `_made_of` must not drift from what the page shows), and after a post is re-dated,
deleted or added, no page whose neighbours are not the last plan's may keep its fingerprint
(a plan or carry that keeps pages by what did not change must re-plan those)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from bipub.cache import BuildCache
from bipub.diagnostics import Collector
from bipub.pipeline import Kept, build, load, pair, plan
from bipub.project import Project
from bipub.render.html import HtmlRenderer, PageSpec
from bipub.render.page_plan import LATER
from tests.conftest import DATED_POST as POST
from tests.conftest import dated_project


def _expected(renderer: HtmlRenderer, entry: object, lang: str) -> tuple[tuple[str, str], ...]:
    """`_made_of` as written from the entries themselves (what the page shows)."""
    site = renderer.site
    made = [(entry.kind, entry.key)]  # type: ignore[attr-defined]
    series = site.series_by_entry.get((lang, entry.key))  # type: ignore[attr-defined]
    if series is not None:
        made += [(m.kind, m.key) for m in series.entries]
    made += [(n.kind, n.key) for n in renderer.neighbours(entry, lang) if n is not None]  # type: ignore[arg-type]
    return tuple(made)


def _entry_pages(plan: object) -> dict[str, PageSpec]:
    return {p: s for p, s in plan.paths.items() if s.made_of}  # type: ignore[attr-defined]


def test_made_of_names_the_series_and_the_posts_beside_and_moved_pages_are_not_kept(
    tmp_path: Path,
) -> None:
    project, posts = dated_project(tmp_path, 12)
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    five = posts / "more-05.md"
    edits = [
        lambda: five.write_text(
            five.read_text(encoding="utf-8").replace("2025-06-06", "2025-01-01"), "utf-8"
        ),
        lambda: (posts / "more-08.md").unlink(),
        lambda: (posts / "new.md").write_text(POST.format(n=99, month=3, day=20, tag="shared")),
    ]
    for edit in edits:
        assert kept.state is not None and kept.state.plan is not None
        before = {p: s.made_of for p, s in _entry_pages(kept.state.plan).items()}
        edit()
        build(project, only={"html"}, kept=kept)
        renderer = kept.pages.renderer
        assert isinstance(renderer, HtmlRenderer)
        site = renderer.site
        checked = 0
        for lang in site.config.codes:
            for entry in [*site.posts(lang), *site.pages(lang)]:
                assert renderer._made_of(entry, lang) == _expected(renderer, entry, lang)
                checked += 1
        assert checked > 12
        assert kept.state is not None and kept.state.plan is not None
        now = _entry_pages(kept.state.plan)
        moved = [p for p, s in now.items() if p in before and before[p] != s.made_of]
        assert moved, "the edit moved no post's neighbours"
        assert not set(moved) & renderer.known.keys(), "a page whose neighbours moved was kept"


def test_planning_leaves_what_only_rendering_reads_of_the_entries_pages_to_be_made(
    make_project: Callable[[str], Path],
) -> None:
    """A post's or page's page and a side-by-side page are planned without their `LATER`
    fields (title, description, the callables: a build after an edit plans every page and
    renders few), which their maker gives all at once and as a page made with them has them."""
    project = Project(make_project("demo"))
    collector = Collector()
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector)
    specs = list(plan(project, site, config.codes, collector, None).plan.paths.values())
    later = [s for s in specs if s.template in ("post.html", "page.html", "both.html")]
    assert {s.template for s in later} == {"post.html", "page.html", "both.html"}
    for spec in later:
        assert not LATER & spec.__dict__.keys(), spec.path
        assert spec.__dict__["_later"](*spec.__dict__["_args"]).keys() == LATER
        entry = next(e for e in site.entries if e.key == spec.route[1])
        doc = entry.versions[spec.lang].doc
        assert (spec.title, spec.description) == (doc.meta.title, doc.meta.description or "")
        assert not {"_later", "_args"} & spec.__dict__.keys() and spec == dataclasses.replace(spec)
