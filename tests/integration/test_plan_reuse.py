"""`bipub serve` plans an update from the last plan (render/page_plan.py PageMemo): the pages of
an entry that is the very object it was, and whose neighbours and series' members did not move
(PageMemo.around), are taken as they were without working out what they are made of again.

After every step of the edit sequences of test_incremental.py's state machine (new, edited,
re-dated, re-tagged, renamed, deleted posts, drafts, series, status files, templates, the
configuration), the plan the resident build used must equal a plan made anew, without any
memo, of the same paired site: every page in the same order with the same fields, what it is
made of (`made_of`, `lists`) and the summary its fingerprint is made of (`deps()`, worked out by
the renderer that planned it). A page whose planned inputs moved and that was taken as it was
differs there. So must each entry's key, taken from the last build's when neither the entry
nor its neighbours, series or tags moved (EntryKeyMemo.take). The builds are the server's (`only={"html"}`, the state kept in memory)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant

from bipub import buildstate
from bipub.cache import BuildCache
from bipub.diagnostics import DiagnosticError
from bipub.pipeline import Kept, build
from bipub.render.html import HtmlRenderer, Plan
from tests.conftest import DATED_POST as POST
from tests.conftest import PROJECTS, dated_project
from tests.integration.test_incremental import _TMP, IncrementalEqualsClean

REUSED = [0, 0]  # (steps that took pages from the last plan, steps compared)
CARRIED = [0]  # (updates whose fingerprints were carried by the plan's index)


def _checked_carried(
    previous: buildstate.BuildState,
    index: buildstate.PlanIndex,
    plan: Plan,
    changed: set[Any],
    posts: set[str],
) -> dict[str, str]:
    """buildstate._carried, which visits only the pages of what changed, and the pass over
    every page it stands for: the same fingerprints carried."""
    fast = _CARRIED(previous, index, plan, changed, posts)
    every: dict[str, str] = {}
    buildstate._carry_all(previous, plan, "", every, changed, posts)
    assert fast == every
    CARRIED[0] += 1
    return fast


_CARRIED = buildstate._carried


def summary(plan: Plan) -> object:
    """Every value of a plan but its callables (their results: `deps()`)."""
    pages = {
        lang: [
            (
                s.route,
                s.path,
                s.template,
                s.title,
                s.description,
                s.og_type,
                s.content_lang,
                s.canonical_path,
                s.noindex,
                s.lists,
                s.made_of,
                s.image,
                s.shape,
                (s.doc.rel, s.doc.digest) if s.doc is not None else None,
                s.deps() if s.deps is not None else None,
            )
            for s in specs
        ]
        for lang, specs in plan.pages.items()
    }
    routes = [(route, list(by_lang.items())) for route, by_lang in plan.routes.items()]
    return pages, [(r, [(c, s.path) for c, s in langs]) for r, langs in routes], list(plan.paths)


class PlanReuse(IncrementalEqualsClean):
    setup = None  # (test_incremental's initialization: replaced by `start`)
    incremental_equals_clean = None  # (and its invariant: by `plan_equals_a_fresh_one`)
    damage_output = None  # (the output is not compared here)

    @initialize(posts_per_page=st.sampled_from([1, 2]))
    def start(self, posts_per_page: int) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bipub-plan-", dir=_TMP))
        self.project = self.tmp / "p"
        shutil.copytree(PROJECTS / "minimal", self.project)
        config = self.project / "bipub.yaml"  # (one post a page: every move re-paginates)
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("posts_per_page: 2", f"posts_per_page: {posts_per_page}"))
        self.names = ["alpha", "beta"]
        self.counter = 0
        self.kept = Kept(BuildCache())
        self.killed = None
        self._build()

    def _build(self) -> Any:
        carried = buildstate._carried
        buildstate._carried = _checked_carried
        try:
            return build(self.project, only={"html"}, kept=self.kept)
        except DiagnosticError:
            return None  # (a URL clash: no plan; the next build plans every page again)
        finally:
            buildstate._carried = carried

    @invariant()
    def plan_equals_a_fresh_one(self) -> None:
        if not hasattr(self, "kept"):
            return
        if self._build() is None:
            return
        kept = self.kept
        assert kept.state is not None and kept.state.plan is not None
        last = kept.pages.renderer
        assert isinstance(last, HtmlRenderer)
        fresh = HtmlRenderer(last.site, last.rendered, last.url)
        assert summary(kept.state.plan) == summary(fresh.plan())
        # each entry's key as worked out anew (EntryKeyMemo.take: not its `around` again)
        assert kept.state.entries == fresh.entry_keys()
        REUSED[0] += kept.pages.reused > 0 and kept.pages.keys.reused > 0
        REUSED[1] += 1


class TestPlanReuse(PlanReuse.TestCase):  # type: ignore[misc,name-defined]
    settings = settings(
        max_examples=30,
        stateful_step_count=15,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )

    def tearDown(self) -> None:
        # the pages were taken from the last plan in most steps (a test that never reuses
        # anything cannot fail)
        assert REUSED[0] * 4 > REUSED[1], REUSED
        assert CARRIED[0] * 4 > REUSED[1], (CARRIED, REUSED)  # (and by the plan's index)


def test_a_run_of_posts_is_taken_whole_but_for_the_entries_that_changed(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """PageMemo.carried: of a language's posts, an update plans again only those that are not
    the last plan's objects or moved, and takes the others without looking at each (no
    `PageMemo.take` per entry) — after an edit, a new post, a deleted one and a new date (a
    run of another length, or reordered) alike; the plan is the one made anew."""
    from bipub.render.page_plan import PageMemo

    project, posts = dated_project(tmp_path, 16)
    kept = Kept(BuildCache())
    build(project, only={"html"}, kept=kept)
    taken: list[object] = []
    take = PageMemo.take

    def counted(self: PageMemo, key: tuple[str, ...], entry: object) -> object:
        taken.append(key)
        return take(self, key, entry)

    monkeypatch.setattr(PageMemo, "take", counted)
    five = posts / "more-05.md"
    edits = [
        lambda: five.write_text(five.read_text(encoding="utf-8") + "\n더.\n", encoding="utf-8"),
        lambda: (posts / "new.md").write_text(POST.format(n=99, month=6, day=20, tag="shared")),
        lambda: (posts / "more-09.md").unlink(),
        lambda: five.write_text(
            five.read_text(encoding="utf-8").replace("2025-06-06", "2025-05-01"), "utf-8"
        ),
    ]
    for edit in edits:
        edit()
        taken.clear()
        build(project, only={"html"}, kept=kept)
        assert kept.state is not None and kept.state.plan is not None
        last = kept.pages.renderer
        assert isinstance(last, HtmlRenderer)
        fresh = HtmlRenderer(last.site, last.rendered, last.url)
        assert summary(kept.state.plan) == summary(fresh.plan())
        assert len(taken) < 4, (edits.index(edit), taken)  # (taken whole, not entry by entry)


class _Drawn:
    """The values a rule's `data.draw` gives, in order (a replayed example)."""

    def __init__(self, *values: object) -> None:
        self.values = list(values)

    def draw(self, strategy: object, label: object = None) -> object:
        return self.values.pop(0)


def test_a_listing_whose_counterpart_moved_is_kept_by_the_index_as_by_every_page() -> None:
    """A shrunk example the machine found with some seeds (`--hypothesis-seed=3`): with one
    post a page, a third post added, alpha's English version made a draft and its Korean
    version's aliases set, a retitle of beta kept /ko/blog/page/3/ and its tag's page 3 by the
    pass over every page (`_carry_all`: the same listings, as before), but the carry by the
    plan's index (`_carried`) dropped them because a counterpart of theirs moved: they were
    rendered again for nothing. Both decide such a listing by one rule now."""
    m = PlanReuse()
    m.start(posts_per_page=1)
    try:
        m.kill_update(at=1, data=_Drawn("alpha", "ko"))
        for _ in range(4):
            m.change_card_template(word=None)
            m.plan_equals_a_fresh_one()
        m.add_post(body="캐시", title="캐시")
        m.plan_equals_a_fresh_one()
        m.toggle_draft(data=_Drawn("alpha", "en"))
        m.plan_equals_a_fresh_one()
        m.set_aliases(data=_Drawn("alpha", "ko"), which=set())
        m.plan_equals_a_fresh_one()
        carried = CARRIED[0]
        m.retitle(data=_Drawn("beta", "ko"), field="title", value="캐시")
        m.plan_equals_a_fresh_one()  # (`_checked_carried`: the index's carry equals the pass)
        assert CARRIED[0] == carried + 1
    finally:
        m.teardown()
