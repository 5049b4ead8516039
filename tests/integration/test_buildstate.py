"""What a build leaves for the next one (src/bipub/buildstate.py), and what the next one does
with it: fingerprints carried for pages made only of unchanged entries, a note for `-v` that
says what was carried or why nothing was, a signed file that is ignored when it is not ours,
and warnings found again by the update (so --strict fails as a full build would).

Byte equality with clean builds after any sequence of edits is the state machine's job
(test_incremental.py); these pin the behaviour around it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from bipub import buildstate
from bipub.cache import BuildCache
from bipub.diagnostics import DiagnosticError
from bipub.pipeline import Kept, build
from bipub.project import Project
from tests.conftest import PAGES_AND_AGGREGATES, PROJECTS, built_copy, replace_in, tree_snapshot

KINDS = PAGES_AND_AGGREGATES


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return built_copy(tmp_path)


def _carried(note: str) -> tuple[int, int]:
    found = re.search(r"(\d+) of (\d+) pages keep their fingerprints", note)
    assert found, note
    return int(found[1]), int(found[2])


def _clean(root: Path, tmp_path: Path) -> dict[str, bytes]:
    build(root, tmp_path / "clean", use_cache=False, only=KINDS)
    return tree_snapshot(tmp_path / "clean")


def test_a_body_edit_carries_every_page_not_made_of_the_post(project: Path, tmp_path: Path) -> None:
    """A body edit of the about page carries the fingerprints of every post page (alpha and
    beta in both languages: beta's English page shows its Korean source) and, in a build that
    reads the state back (no plan of the last build in memory), of every listing page found
    made of the values the state keeps of it (blog, home and tag pages: buildstate `Listed`);
    the rest (tag cloud, series, search and about pages) is worked out."""
    path = project / "content/ko/pages/about.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n더 있습니다.\n", encoding="utf-8")
    result = build(project, only=KINDS)
    carried, total = _carried(result.cache_note)
    assert "1 entry changed (pages/about)" in result.cache_note
    # alpha and beta, each in ko and en, and alpha's side-by-side pages in ko and en (24: the
    # search pages too), and 10 listing pages: the blog, archive and home pages in ko and en,
    # the three Korean tag pages and the English one
    assert "(10 listing pages found made of the same values)" in result.cache_note
    assert carried == 16 and total == 24
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_listing_whose_values_changed_is_worked_out_again(tmp_path: Path) -> None:
    """A tag's second page goes (the last post of four leaves the tag): its first page lists
    the same two posts, neither of them changed, but its page count and the tag's number of
    posts did: the values the state keeps of that page are not this build's, so it is
    fingerprinted and rendered again (the site equals a clean build's: no link to a page 2)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for n, month, tags in ((1, 4, "[x]"), (2, 3, "[x]"), (3, 2, "[]"), (4, 1, "[x]")):
        (root / f"content/ko/posts/d{n}.md").write_text(
            f"---\ntitle: 글 {n}\ndescription: 설명\ndate: 2025-0{month}-01\ntags: {tags}\n---\n"
            f"\n본문 {n}.\n",
            encoding="utf-8",
        )
    build(root, only=KINDS)
    assert b"/ko/tags/x/page/2/" in (root / "site/ko/tags/x/index.html").read_bytes()
    replace_in(root, "content/ko/posts/d4.md", "tags: [x]", "tags: []")
    result = build(root, only=KINDS)
    assert "1 entry changed (posts/d4)" in result.cache_note
    assert "listing pages found made of the same values" in result.cache_note
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)
    assert b"/ko/tags/x/page/2/" not in (root / "site/ko/tags/x/index.html").read_bytes()


def test_a_series_member_edit_fingerprints_the_other_members_pages(project: Path) -> None:
    replace_in(project, "content/ko/posts/beta.md", "title: 베타 글", "title: 새 베타")
    result = build(project, only=KINDS)
    assert "1 entry changed (posts/beta)" in result.cache_note
    carried, _ = _carried(result.cache_note)
    # the about pages and alpha's side-by-side pages; alpha's pages show beta's title in the
    # series box (and in the link to the next post); the listing pages that do not show beta
    # (the vllm tag's pages in ko and en: made of the values the state keeps of them)
    assert carried == 6
    assert "(2 listing pages found made of the same values)" in result.cache_note
    assert "새 베타".encode() in (project / "site/ko/blog/alpha/index.html").read_bytes()


def test_a_template_edit_says_why_nothing_is_carried(project: Path, tmp_path: Path) -> None:
    (project / "templates").mkdir()
    (project / "templates/post.html").write_text(
        '{% extends "base.html" %}{% block content %}<p>NEW</p>{{ post.html }}{% endblock %}\n',
        encoding="utf-8",
    )
    result = build(project, only=KINDS)
    assert "templates, catalogs, configuration or the site-wide context changed" in (
        result.cache_note
    )
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_state_not_signed_by_this_user_is_ignored(project: Path, tmp_path: Path) -> None:
    (state_file,) = (project / ".bipub-cache").glob("state-*.pickle")
    state_file.write_bytes(b"\0" * 32 + b"planted")
    replace_in(project, "content/ko/posts/alpha.md", "본문입니다.", "본문이 바뀌었습니다.")
    result = build(project, only=KINDS)
    assert "no state of the last build: every page fingerprinted" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    assert buildstate.load(Project(project), project / "site") is not None  # saved again


def test_a_state_with_a_damaged_parts_file_is_refused_and_said(
    project: Path, tmp_path: Path
) -> None:
    """The state's parts are in files it names (buildstate.py): one of them truncated makes
    the whole state refused, said at -v, and the build runs as without a state."""
    (parts,) = (project / ".bipub-cache").glob("parts-*.pickle")
    parts.write_bytes(parts.read_bytes()[:-10])
    replace_in(project, "content/ko/posts/alpha.md", "본문입니다.", "본문이 바뀌었습니다.")
    result = build(project, only=KINDS)
    assert f"build state ignored ({parts.name}: damaged, or not signed" in result.cache_note
    assert "no state of the last build: every page fingerprinted" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    assert buildstate.load(Project(project), project / "site") is not None  # saved again
    assert not parts.exists()  # (the files the new state does not name are removed)


def test_a_partial_build_leaves_the_state_as_it_was(project: Path) -> None:
    before = (next((project / ".bipub-cache").glob("state-*.pickle"))).read_bytes()
    replace_in(project, "content/ko/posts/alpha.md", "본문입니다.", "본문이 바뀌었습니다.")
    build(project, langs=["ko"], only=KINDS)
    after = (next((project / ".bipub-cache").glob("state-*.pickle"))).read_bytes()
    assert after == before  # (a --lang build works out the fingerprints of some pages only)


def test_warnings_of_the_edit_are_found_and_strict_fails_before_writing(project: Path) -> None:
    before = tree_snapshot(project / "site")
    replace_in(project, "content/ko/posts/alpha.md", "```python", "```nosuchlang")
    with pytest.raises(DiagnosticError, match="nosuchlang"):
        build(project, only=KINDS, strict=True)
    assert tree_snapshot(project / "site") == before
    result = build(project, only=KINDS)
    assert any(d.code == "code-language" and "nosuchlang" in d.message for d in result.warnings)
    replace_in(project, "content/ko/posts/alpha.md", "```nosuchlang", "```python")
    assert not any(d.code == "code-language" for d in build(project, only=KINDS).warnings)


def test_a_resident_state_stays_in_memory(project: Path, tmp_path: Path) -> None:
    """`bipub serve`: the state is kept by the caller, not written to .bipub-cache/."""
    state_files = sorted((project / ".bipub-cache").glob("state-*.pickle"))
    stamp = [p.stat().st_mtime_ns for p in state_files]
    kept = Kept(BuildCache.load(project / ".bipub-cache"))
    replace_in(project, "content/ko/posts/alpha.md", "본문입니다.", "본문이 바뀌었습니다.")
    first = build(project, only=KINDS, kept=kept)
    assert kept.state is not None and first.state is kept.state
    assert "no state of the last build" in first.cache_note
    replace_in(project, "content/ko/posts/alpha.md", "본문이 바뀌었습니다.", "또 바뀌었습니다.")
    second = build(project, only=KINDS, kept=kept)
    assert "1 entry changed (posts/alpha)" in second.cache_note
    assert [p.stat().st_mtime_ns for p in state_files] == stamp
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_build_of_other_output_kinds_keeps_what_rendering_warned_about(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept page reports its body's warnings from the build cache's notes. A build without
    the pages (`bipub serve`'s PDF step, `--only json`) must not drop the notes of documents it
    did not render: the next build would render every kept page's body again to find them."""
    from bipub.render import markdown

    build(project, only={"json"})
    replace_in(project, "content/ko/posts/alpha.md", "본문입니다.", "본문이 바뀌었습니다.")
    rendered: list[str] = []
    real = markdown.render_body

    def spy(
        source: str, starts: tuple[int, ...], **kwargs: object
    ) -> tuple[markdown.RenderedMarkdown, markdown.Sections]:
        rendered.append(source)
        return real(source, starts, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown, "render_body", spy)
    build(project, only=KINDS)
    # the edited body, and alpha's English one for its side-by-side pages (they show the
    # edited Korean body beside it); no kept page's body
    assert len(rendered) == 2
    assert ["본문이 바뀌었습니다." in r or "Body text." in r for r in rendered] == [True, True]
    assert any("본문이 바뀌었습니다." in r for r in rendered)


def test_kits_of_the_old_quick_rebuild_are_removed(project: Path) -> None:
    old = project / ".bipub-cache" / "quick-0123456789abcdef.pickle"
    old.write_bytes(b"an old kit")
    replace_in(project, "content/ko/posts/alpha.md", "본문입니다.", "본문이 바뀌었습니다.")
    build(project, only=KINDS)
    assert not old.exists()


def test_a_touched_post_changes_no_entry_and_rewrites_nothing(project: Path) -> None:
    import os

    post = project / "content/ko/posts/alpha.md"
    st = post.stat()
    os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    result = build(project, only=KINDS)
    assert result.changed == 0
    assert (
        "0 entries changed: 18 of 24 pages keep their fingerprints "
        "(10 listing pages found made of the same values)"
    ) in result.cache_note


def test_a_resident_pairing_pairs_again_only_what_changed(project: Path, tmp_path: Path) -> None:
    """`bipub serve` keeps what pairing worked out per entry (pair/site.py PairMemo): an edit
    pairs only its entry again; a status record pairs again the entry it is about (its English
    page shows the machine-draft notice), and the site equals a clean build's each time."""
    kept = Kept(BuildCache.load(project / ".bipub-cache"))
    replace_in(project, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    result = build(project, only=KINDS, kept=kept)
    assert "3 of 3 entries paired again" in result.cache_note  # (nothing kept yet)
    replace_in(project, "content/ko/posts/alpha.md", "title: 고친 알파", "title: 또 고친 알파")
    result = build(project, only=KINDS, kept=kept)
    assert "1 of 3 entries paired again" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    status = project / "status"
    status.mkdir(exist_ok=True)
    (status / "en.yaml").write_text(
        "posts/alpha:title:\n  source_hash: '000000000000'\n  state: draft\n", encoding="utf-8"
    )
    result = build(project, only=KINDS, kept=kept)
    assert "1 of 3 entries paired again" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    replace_in(project, "bipub.yaml", "title: 테스트", "title: 고친 테스트")
    result = build(project, only=KINDS, kept=kept)
    assert "3 of 3 entries paired again (bipub.yaml changed)" in result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_an_update_joins_the_unchanged_records_of_posts_json(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """posts.json is joined from the records the last build left (render/outputs.py Parts,
    by json_api.post_key): only the records whose values changed are made again."""
    from bipub.render import json_api

    made: list[str] = []
    real_record = json_api.post_record

    def record(entry: Any, lang: str, url: Any) -> dict[str, Any]:
        made.append(f"{lang} {entry.key}")
        return real_record(entry, lang, url)

    monkeypatch.setattr(json_api, "post_record", record)
    replace_in(project, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(project, only=KINDS)
    # alpha's Korean record (its document changed); the others (its English record too: its
    # values did not change) joined from the last build's
    assert made == ["ko alpha"]
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_an_update_makes_again_only_the_edited_posts_feed_entries(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each feed entry (Atom and JSON Feed) is kept by its item, its body's key and its note
    (Parts.feed_entry): an edit makes again only the entries whose values changed — the new
    title is in every feed that shows the post, a slug set in the source changes its
    translation's entry too (its document did not change) — and the feeds equal a clean
    build's; what a kept entry's body warns about is said again (`--only feeds`)."""
    from bipub.render import feeds

    made: list[str] = []
    real = feeds.atom_entry

    def atom_entry(it: feeds.FeedItem, body: str, note: str = "") -> str:
        made.append("/".join(it.link.rstrip("/").split("/")[-3:]))  # ko/blog/alpha
        return real(it, body, note)

    monkeypatch.setattr(feeds, "atom_entry", atom_entry)
    replace_in(project, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(project, only=KINDS)
    assert made == ["ko/blog/alpha"]  # its Korean entry, once for every feed that shows it
    for feed in (
        "ko/feed.xml",
        "ko/feed.json",
        "ko/series/연재/feed.xml",
        "ko/tags/vllm/feed.json",
    ):
        assert "고친 알파".encode() in (project / "site" / feed).read_bytes(), feed
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    made.clear()
    replace_in(
        project, "content/ko/posts/alpha.md", "series_order: 1\n", "series_order: 1\nslug: a2\n"
    )
    build(project, only=KINDS)
    assert sorted(made) == ["en/blog/a2", "ko/blog/a2"]
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    replace_in(project, "content/ko/posts/beta.md", "\n---\n", "\n---\n\n```nosuchlang\nx\n```\n")
    build(project, only=KINDS)
    made.clear()
    replace_in(project, "content/ko/posts/alpha.md", "title: 고친 알파", "title: 다시 알파")
    result = build(project, only={"feeds"})
    assert made == ["ko/blog/a2"]  # beta's entries kept: their body's warning said again
    assert any("nosuchlang" in w.message for w in result.warnings)


def test_an_update_makes_again_only_the_edited_posts_llms_bodies(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llms-full.txt's post bodies (a parse of each: most of its cost) are kept by their values
    (Parts.llms_post, with the post's line in llms.txt): an edit makes again only the edited
    post's, and the file equals a clean build's."""
    from bipub.render import llms

    made: list[str] = []
    real = llms.post_body

    def post_body(body: str, page: str, *more: Any, **named: Any) -> str:
        made.append(page.rstrip("/").rsplit("/", 1)[-1])
        text: str = real(body, page, *more, **named)
        return text

    monkeypatch.setattr(llms, "post_body", post_body)
    replace_in(project, "content/ko/posts/alpha.md", "title: 알파 글", "title: 고친 알파")
    build(project, only=KINDS)
    assert made == ["alpha"]  # the Korean part of alpha (its document changed); the rest kept
    made.clear()
    replace_in(project, "content/ko/posts/alpha.md", "\n---\n", "\n---\n\n새 첫 문단.\n")
    build(project, only=KINDS)
    assert made == ["alpha"]  # the Korean body of alpha; the English one kept
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_state_left_by_another_bipub_version_is_not_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its parts (posts.json records, sitemap routes) and bodies are keyed by their values, not
    by the code that made them: another bipub's are not joined into this one's outputs."""
    assert buildstate.load(Project(project), project / "site") is not None
    monkeypatch.setattr(buildstate, "CODE", "0.0.0-other")
    assert buildstate.load(Project(project), project / "site") is None


def test_an_image_added_to_a_body_without_one_is_checked(project: Path) -> None:
    """Each body's image references are kept by its document's digest, an image-less body's
    too (pair/assets.py `_doc_refs`: not searched again on the next build); an edit that adds
    a missing image to such a body is an error all the same."""
    replace_in(
        project, "content/ko/pages/about.md", "\n---\n", "\n---\n\n![그림](/img/nowhere.png)\n"
    )
    with pytest.raises(DiagnosticError) as raised:
        build(project, only=KINDS)
    assert [d.code for d in raised.value.diagnostics] == ["missing-asset"]
    assert raised.value.diagnostics[0].file == "content/ko/pages/about.md"


def test_an_update_joins_again_only_the_llms_full_files_whose_parts_changed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llms-full.txt is joined from its posts' parts (tens of MB on a big site): a language's
    file whose frame and parts' keys are those of the published one (Parts.file_mark) is
    the published file, neither joined nor hashed again. An edit of a Korean post joins the
    Korean file (and its root copy: the default language's) only; the site equals a clean
    build's."""
    from bipub.render import llms

    joined: list[str] = []
    real = llms.llms_full_txt

    def counted(site: Any, lang: str, *more: Any, **named: Any) -> bytes:
        if named.get("texts_of_posts"):
            joined.append(lang)
        text: bytes = real(site, lang, *more, **named)
        return text

    monkeypatch.setattr(llms, "llms_full_txt", counted)
    body = "\n---\n"
    replace_in(project, "content/ko/posts/alpha.md", body, f"{body}\n첫 문단.\n")
    build(project, only=KINDS)  # (the spare copy's record: from this build on)
    joined.clear()
    replace_in(project, "content/ko/posts/alpha.md", body, f"{body}\n새 첫 문단.\n")
    build(project, only=KINDS)
    assert joined == ["ko"]
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)
    joined.clear()
    replace_in(project, "content/en/posts/alpha.md", body, f"{body}\nA new first paragraph.\n")
    result = build(project, only=KINDS)
    assert joined == ["en"], result.cache_note
    assert tree_snapshot(project / "site") == _clean(project, tmp_path)


def test_a_blog_page_listing_other_unchanged_posts_is_worked_out_again(tmp_path: Path) -> None:
    """A post deleted from the blog's second page: the third and fourth pages list other
    posts now (each moved up one page), none of them changed and the page count the same; a
    build in a new process compares the posts' keys the state keeps of each listing page
    (buildstate `Listed`, render/html.py `listing_values`), not only their number and count,
    and renders them again (the site equals a clean build's)."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for n in range(1, 9):  # (with alpha and beta: ten posts, five pages of two)
        (root / f"content/ko/posts/d{n}.md").write_text(
            f"---\ntitle: 글 {n}\ndescription: 설명\ndate: 2025-0{9 - n}-01\n---\n\n본문 {n}.\n",
            encoding="utf-8",
        )
    build(root, only=KINDS)
    (root / "content/ko/posts/d2.md").unlink()
    result = build(root, only=KINDS)
    assert "listing pages found made of the same values" in result.cache_note
    assert tree_snapshot(root / "site") == _clean(root, tmp_path)
    assert "글 5".encode() in (root / "site/ko/blog/page/3/index.html").read_bytes()
