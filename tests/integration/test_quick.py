"""Quick rebuilds (src/bipub/quick.py): an edited post's outputs, without the whole site.

Every test edits a copy of the 'minimal' project after a full build and checks two things: which
path the next build took (quick, or full with the reason), and that the output and the warnings
equal a clean build's, byte for byte.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bipub import quick
from bipub.diagnostics import DiagnosticError
from bipub.pipeline import BuildResult, build
from bipub.render import workers
from tests.conftest import tree_snapshot

KINDS = {"html", "json", "feeds", "llms"}


@pytest.fixture
def built(make_project) -> Path:  # type: ignore[no-untyped-def]
    project: Path = make_project("minimal")
    assert build(project).quick is None  # the first build is a full one (and leaves a kit)
    return project


def _post(project: Path, lang: str = "ko", name: str = "alpha") -> Path:
    return project / "content" / lang / "posts" / f"{name}.md"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _warnings(result: BuildResult) -> list[tuple[object, ...]]:
    return [(d.file, d.line, d.code, d.message) for d in result.warnings]


def _assert_clean(project: Path, result: BuildResult, tmp: Path) -> None:
    """The output and warnings of `result` are what a clean build gives."""
    clean = tmp / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    expected = build(project, clean, use_cache=False)
    assert _warnings(result) == _warnings(expected)
    assert result.pages == expected.pages  # (the summary's page counts)
    got, want = tree_snapshot(project / "site"), tree_snapshot(clean)
    assert sorted(got) == sorted(want)
    assert [p for p in want if got[p] != want[p]] == []
    assert _folders(project / "site") == _folders(clean)  # (none left empty)


def _folders(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir())


def test_body_edit_is_quick_and_equals_a_clean_build(built: Path, tmp_path: Path) -> None:
    _edit(_post(built), "본문입니다.", "본문을 고쳤습니다.")
    result = build(built)
    assert result.quick == ["content/ko/posts/alpha.md"]
    assert result.changed >= 2  # the page and the feed (and status.json: the section's hash)
    page = (built / "site" / "ko" / "blog" / "alpha" / "index.html").read_text(encoding="utf-8")
    assert "본문을 고쳤습니다." in page
    _assert_clean(built, result, tmp_path)


def test_translation_edit_and_new_section(built: Path, tmp_path: Path) -> None:
    """A new heading in the translation adds a unit (status.json's records of the entry)."""
    _edit(_post(built, "en"), "Body text.", "Body text.\n\n## More\n\nAnother part.")
    result = build(built)
    assert result.quick == ["content/en/posts/alpha.md"]
    _assert_clean(built, result, tmp_path)


def test_edits_add_up_until_the_next_full_build(built: Path, tmp_path: Path) -> None:
    _edit(_post(built), "본문입니다.", "첫 수정.")
    assert build(built).quick == ["content/ko/posts/alpha.md"]
    _edit(_post(built, name="beta"), "---\n\n", "---\n\n한 줄 더.\n\n")
    result = build(built)
    # computed from the kit of the last full build: both files differ from it
    assert result.quick == ["content/ko/posts/alpha.md", "content/ko/posts/beta.md"]
    _assert_clean(built, result, tmp_path)
    assert build(built).up_to_date


def test_touch_only_rewrites_nothing(built: Path) -> None:
    post = _post(built)
    st = post.stat()
    os.utime(post, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    result = build(built)
    assert result.quick == ["content/ko/posts/alpha.md"]
    assert result.changed == 0


def test_warnings_of_the_edited_file_follow_the_edit(built: Path, tmp_path: Path) -> None:
    _edit(_post(built), "```python", "```nosuchlang")
    result = build(built)
    assert result.quick == ["content/ko/posts/alpha.md"]
    assert any(d.code == "code-language" and "nosuchlang" in d.message for d in result.warnings)
    _assert_clean(built, result, tmp_path)
    with pytest.raises(DiagnosticError, match="nosuchlang"):
        build(built, strict=True)  # the up-to-date path repeats the warning: --strict fails
    _edit(_post(built), "```nosuchlang", "```python")
    result = build(built)
    assert result.quick == ["content/ko/posts/alpha.md"]
    assert not any(d.code == "code-language" for d in result.warnings)
    _assert_clean(built, result, tmp_path)


def test_strict_fails_on_a_quick_rebuild_warning(built: Path) -> None:
    """--strict: the new warning is an error, and nothing is written (as in a full build)."""
    before = tree_snapshot(built / "site")
    _edit(_post(built), "[링크](https://example.org/)", "[링크](javascript:alert(1))")
    with pytest.raises(DiagnosticError, match=r"unsafe|dropped"):
        build(built, strict=True)
    assert tree_snapshot(built / "site") == before
    assert build(built).quick == ["content/ko/posts/alpha.md"]  # without --strict: published


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("front-matter", "front matter changed (more than title, description, tags or dates)"),
        ("page-title", "a page's front matter changed"),
        ("new-post", "added or removed"),
        ("removed-post", "added or removed"),
        ("template", "added or removed"),
        ("config", "only posts and pages"),
        ("damaged-output", "not as the last build left it"),
        ("no-kit", "no quick-rebuild kit"),
        ("planted-kit", "unreadable"),
    ],
)
def test_what_needs_a_full_build(built: Path, tmp_path: Path, change: str, reason: str) -> None:
    post = _post(built)
    _edit(post, "본문입니다.", "본문을 고쳤습니다.")
    if change == "front-matter":
        _edit(post, "date: 2026-04-07", "date: 2026-04-07\ndraft: false")
    elif change == "page-title":
        page = next((built / "content" / "ko" / "pages").glob("*.md"))
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace("title: ", "title: (고침) ", 1), encoding="utf-8")
    elif change == "new-post":
        shutil.copy(post, post.with_name("gamma.md"))
    elif change == "removed-post":
        _post(built, name="beta").unlink()
    elif change == "template":
        (built / "templates").mkdir()
        (built / "templates" / "post.html").write_text(
            '{% extends "base.html" %}{% block content %}<p>MARK</p>{% endblock %}\n',
            encoding="utf-8",
        )
    elif change == "config":
        _edit(built / "bipub.yaml", "posts_per_page: 2", "posts_per_page: 3")
    elif change == "damaged-output":
        (built / "site" / "ko" / "tags" / "index.html").write_text("by hand", encoding="utf-8")
    elif change == "no-kit":
        for kit in (built / ".bipub-cache").glob("quick-*"):
            kit.unlink()
    elif change == "planted-kit":  # a kit not signed with this user's key is never unpickled
        for kit in (built / ".bipub-cache").glob("quick-*"):
            kit.write_bytes(b"\0" * 32 + b"not a pickle")
    result = build(built)
    assert result.quick is None
    assert reason in result.cache_note
    _assert_clean(built, result, tmp_path)
    if change not in ("no-kit", "planted-kit"):
        # the full build left a new kit: the next body edit is quick again
        _edit(post, "본문을 고쳤습니다.", "또 고쳤습니다.")
        assert build(built).quick == ["content/ko/posts/alpha.md"]


def test_translation_state_change_needs_a_full_build(built: Path, tmp_path: Path) -> None:
    """Editing a source section whose translation is tracked makes it stale: the badge, the
    listings and llms.txt change, so the full build runs."""
    import json

    records = json.loads((built / "site" / "api" / "en" / "status.json").read_text("utf-8"))
    body = next(r for r in records if r["key"].startswith("posts/alpha:body#"))
    (built / "status").mkdir()
    (built / "status" / "en.yaml").write_text(
        f"{body['key']}:\n  source_hash: '{body['source_hash']}'\n  state: reviewed\n",
        encoding="utf-8",
    )
    assert build(built).quick is None  # status/ changed: full build, new kit
    _edit(_post(built), "본문입니다.", "본문이 바뀌었습니다.")
    result = build(built)
    assert result.quick is None
    assert "translation state" in result.cache_note
    _assert_clean(built, result, tmp_path)


def test_post_with_a_pdf_needs_a_full_build(built: Path, tmp_path: Path) -> None:
    _edit(_post(built), "series_order: 1\n", "series_order: 1\npdf: true\n")
    assert build(built).quick is None
    _edit(_post(built), "본문입니다.", "본문을 고쳤습니다.")
    result = build(built)
    assert result.quick is None
    assert "has a PDF" in result.cache_note


def test_a_partial_build_leaves_no_kit(built: Path) -> None:
    """`--lang` and `--only` builds have their own options; a body edit after `--lang ko`
    runs the full ko build (no kit for those options)."""
    _edit(_post(built), "본문입니다.", "고침 하나.")
    result = build(built, langs=["ko"])
    assert result.quick is None and "no quick-rebuild kit" in result.cache_note


def test_quick_rebuild_writes_beside_and_renames(built: Path) -> None:
    """The spare copy shares inodes with the live site: a quick rebuild must never write into
    an old inode (it would change the spare copy too)."""
    build(built, only=KINDS)  # another option set: the live site is now a swapped copy
    page = built / "site" / "ko" / "blog" / "alpha" / "index.html"
    old_inode = page.stat().st_ino
    before = page.read_bytes()
    prev = built / ".site.prev" / "ko" / "blog" / "alpha" / "index.html"
    _edit(_post(built), "본문입니다.", "본문을 고쳤습니다.")
    assert build(built).quick == ["content/ko/posts/alpha.md"]
    assert page.stat().st_ino != old_inode
    if prev.exists() and prev.stat().st_ino == old_inode:
        assert prev.read_bytes() == before


def test_warnings_of_kept_pages_are_not_lost(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A page kept from the previous build (its inputs unchanged) still reports what rendering
    its body warned about — without feeds, which would render it anyway."""
    project: Path = make_project("minimal")
    _edit(_post(project), "```python", "```nosuchlang")
    first = build(project, only={"html"})
    assert any(d.code == "code-language" for d in first.warnings)
    # another field of beta's front matter: a full build, alpha kept
    _edit(_post(project, name="beta"), "title:", "draft: false\ntitle: 바뀐")
    second = build(project, only={"html"})
    assert second.quick is None and second.reused > 0
    assert _warnings(second) == _warnings(
        build(project, tmp_path / "c", use_cache=False, only={"html"})
    )


def test_workers_report_markdown_warnings(make_project, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Pages rendered by forked workers: their Markdown warnings reach the build's report."""
    project: Path = make_project("minimal")
    _edit(_post(project), "```python", "```nosuchlang")
    monkeypatch.setattr(workers, "MIN_PAGES_FOR_WORKERS", 0)
    monkeypatch.setenv("BIPUB_WORKERS", "2")
    parallel = build(project, only={"html"}, use_cache=False)
    monkeypatch.setenv("BIPUB_WORKERS", "1")
    sequential = build(project, tmp_path / "seq", only={"html"}, use_cache=False)
    assert any(d.code == "code-language" for d in parallel.warnings)
    assert _warnings(parallel) == _warnings(sequential)
    assert tree_snapshot(project / "site") == tree_snapshot(tmp_path / "seq")


def test_kit_names_differ_by_output_and_options(tmp_path: Path) -> None:
    assert quick._name(tmp_path / "a", "k") != quick._name(tmp_path / "b", "k")
    assert quick._name(tmp_path / "a", "k") != quick._name(tmp_path / "a", "l")


def test_interrupted_quick_rebuild_is_repaired(built: Path, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Killed between two files (the page replaced, the feed not yet): the record was not
    saved, so the next build sees an output that is not as recorded and builds in full."""
    from bipub.write import output

    real = output._same_bytes
    seen: list[Path] = []

    def die_on_second_file(target: Path, data: bytes) -> bool:
        seen.append(target)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(target, data)

    _edit(_post(built), "본문입니다.", "본문을 고쳤습니다.")
    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr(output, "_same_bytes", die_on_second_file)
        build(built)
    assert len(seen) == 2
    result = build(built)
    assert result.quick is None and "not as the last build left it" in result.cache_note
    _assert_clean(built, result, tmp_path)


def test_highlighted_blocks_are_kept_between_quick_rebuilds(built: Path, tmp_path: Path) -> None:
    """quick-blocks.pickle: a repeated edit highlights nothing again, an unknown language is
    still reported from it, and a file not signed by this user is ignored."""
    from bipub.cache import load_signed

    _edit(_post(built), "```python", "```nosuchlang")
    assert build(built).quick == ["content/ko/posts/alpha.md"]
    blocks_file = built / ".bipub-cache" / quick.BLOCKS_FILE
    _, blocks = load_signed(blocks_file)
    assert blocks[("nosuchlang", "x = 1\n")] is None
    _edit(_post(built), "본문입니다.", "다시 고침.")
    again = build(built)
    assert again.quick == ["content/ko/posts/alpha.md"]
    assert any(d.code == "code-language" for d in again.warnings)
    _assert_clean(built, again, tmp_path)
    blocks_file.write_bytes(b"\0" * 32 + b"planted")
    _edit(_post(built), "다시 고침.", "세 번째.")
    third = build(built)
    assert third.quick == ["content/ko/posts/alpha.md"]
    _assert_clean(built, third, tmp_path)


def test_output_check_without_forking(built: Path, tmp_path: Path) -> None:
    """With other threads running (as in `bipub serve`), the output is checked in-process."""
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        (built / "site" / "ko" / "tags" / "index.html").write_text("by hand", encoding="utf-8")
        _edit(_post(built), "본문입니다.", "본문을 고쳤습니다.")
        result = build(built)
        assert result.quick is None and "not as the last build left it" in result.cache_note
        _edit(_post(built), "본문을 고쳤습니다.", "또 고쳤습니다.")
        assert build(built).quick == ["content/ko/posts/alpha.md"]
        _assert_clean(built, build(built), tmp_path)
    finally:
        stop.set()
        other.join()


def test_reading_time_change_renders_the_listings_again(make_project, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A longer body changes the card's reading time: the home, blog and tag pages listing it
    are rendered again (in English too, where the post is shown untranslated)."""
    project: Path = make_project("minimal")
    gamma = _post(project, name="gamma")
    gamma.write_text(
        "---\ntitle: 감마 글\ndate: 2026-06-01\ntags: [vllm]\n---\n\n짧은 글입니다.\n",
        encoding="utf-8",
    )
    assert build(project).quick is None
    _edit(gamma, "짧은 글입니다.", "긴 글입니다. " + "문장이 이어집니다. " * 500)
    result = build(project)
    assert result.quick == ["content/ko/posts/gamma.md"]
    assert sum(result.pages.values()) - result.reused > 2  # its pages and listings
    _assert_clean(project, result, tmp_path)
    _edit(gamma, "긴 글입니다.", "다시 긴 글입니다.")  # same reading time: only its pages
    result = build(project)
    assert result.quick == ["content/ko/posts/gamma.md"]
    _assert_clean(project, result, tmp_path)
    # the edit undone: its card is the kit's again, and the listings an earlier quick rebuild
    # changed are put back (they are not the kit's card any more in the output)
    gamma.write_text(
        "---\ntitle: 감마 글\ndate: 2026-06-01\ntags: [vllm]\n---\n\n짧은 글입니다.\n",
        encoding="utf-8",
    )
    result = build(project)
    assert result.quick == ["content/ko/posts/gamma.md"]
    _assert_clean(project, result, tmp_path)


@pytest.mark.parametrize("record", ["removed", "planted"])
def test_without_the_touched_record_the_full_build_runs(
    standalone: Path, tmp_path: Path, record: str
) -> None:
    """A lost (or foreign) record of what earlier quick rebuilds changed: what they changed
    cannot be told (a tag added and removed again left its pages), so the full build runs and
    puts an undone edit back."""
    beta = _post(standalone, "ko", "beta")
    _edit(beta, "title: 베타 글", "title: 새 제목")
    assert build(standalone).quick == ["content/ko/posts/beta.md"]
    (touched,) = (standalone / ".bipub-cache").glob("quick-*-touched.pickle")
    if record == "removed":
        touched.unlink()
    else:
        touched.write_bytes(b"\0" * 32 + b"not a pickle")
    _edit(beta, "title: 새 제목", "title: 베타 글")
    result = build(standalone)
    assert result.quick is None
    assert "the record of what earlier quick rebuilds changed is missing" in result.cache_note
    _assert_clean(standalone, result, tmp_path)


def test_every_kit_file_of_the_demo_loads(make_project) -> None:  # type: ignore[no-untyped-def]
    """Every view type the demo's pages use survives the kit's pickling (a kit that cannot be
    read would only ever make builds fall back to the full path, unnoticed)."""
    project: Path = make_project("demo")
    build(project, only=KINDS)
    files = sorted((project / ".bipub-cache").glob("quick-*.pickle"))
    assert len(files) == 1 + 2 * quick.SHARDS + 4  # the kit, its shards, Touched, texts, lists,
    # series
    names = {f.name.removeprefix("quick-").split(".")[0].split("-")[0] for f in files}
    (name,) = names
    kit = quick._load(project / ".bipub-cache" / f"quick-{name}.pickle", name)
    assert isinstance(kit, quick.Kit)
    assert quick._load_touched(project / ".bipub-cache", name, kit) is not None
    assert quick._load_texts(project / ".bipub-cache", name, kit)
    lists = quick._load_lists(project / ".bipub-cache", name, kit)
    series = quick._load_series(project / ".bipub-cache", name, kit)
    assert {lang for lang, _ in series} == {"ko", "en"}
    assert all(m.card is not None for s in series.values() for m in s.members)
    assert lists.sitemap and all(lang.card_blocks and lang.tags for lang in lists.langs.values())
    ko = lists.langs["ko"]
    assert [ko.card(key).key for key in ko.order] == ko.order
    for i in range(quick.SHARDS):
        for stem, key in ((f"{i:02d}", kit.entry_shards[i]), (f"list-{i:02d}", kit.list_shards[i])):
            path = project / ".bipub-cache" / f"quick-{name}-{stem}.pickle"
            assert quick._load_shard(path, name, key) is not None, path.name


def test_unchanged_kit_shards_are_not_written_again(built: Path) -> None:
    """A full build after a title edit (and another field: a full build) rewrites the kit shards
    whose pages changed, not all."""
    cache = built / ".bipub-cache"
    before = {p.name: p.stat().st_mtime_ns for p in cache.glob("quick-*-*.pickle")}
    _edit(_post(built, name="beta"), "title: 베타 글", "draft: false\ntitle: 베타 글 (고침)")
    assert build(built).quick is None
    after = {p.name: p.stat().st_mtime_ns for p in cache.glob("quick-*-*.pickle")}
    assert after.keys() == before.keys()
    rewritten = [name for name in after if after[name] != before[name]]
    assert 0 < len(rewritten) < len(after) // 2


def test_old_kits_are_removed(built: Path, tmp_path: Path) -> None:
    """Kits of other output folders and options are kept up to quick.KEEP_KITS."""
    for i in range(quick.KEEP_KITS + 2):
        build(built, tmp_path / f"out-{i}", only=KINDS)
    mains = [
        p
        for p in (built / ".bipub-cache").glob("quick-*.pickle")
        if p.name.count("-") == 1 and p.name != quick.BLOCKS_FILE
    ]
    assert len(mains) == quick.KEEP_KITS
    names = {p.name.removeprefix("quick-").removesuffix(".pickle") for p in mains}
    shards = {p.name.split("-")[1] for p in (built / ".bipub-cache").glob("quick-*-*.pickle")}
    assert shards <= names


def test_a_post_replaced_by_a_folder_is_not_missed(built: Path, tmp_path: Path) -> None:
    """Same paths, but one is a folder now: never a quick rebuild (the build reports it)."""
    beta = _post(built, name="beta")
    beta.unlink()
    beta.mkdir()
    result = build(built)
    assert result.quick is None
    assert not (built / "site" / "ko" / "blog" / "beta").exists()


def test_build_cache_keeps_notes_of_current_documents_only(built: Path) -> None:
    """The Markdown notes in the build cache are those of this build's documents: editing a
    post ten times does not leave ten versions behind."""
    from bipub.cache import BuildCache

    for i in range(3):
        # its title and its place in the series (more than a title: a full build)
        _edit(_post(built), "title: 알파 글", f"title: 알파 글 {i}")
        _edit(_post(built), "series_order: 1\n", f"series_order: {2 + i}\n")
        assert build(built).quick is None
        _edit(_post(built), f"title: 알파 글 {i}", "title: 알파 글")
        _edit(_post(built), f"series_order: {2 + i}\n", "series_order: 1\n")
    cache = BuildCache.load(built / ".bipub-cache")
    alpha = [key for key in cache.notes if key.endswith(":content/ko/posts/alpha.md")]
    assert len(alpha) == 1


@pytest.fixture
def standalone(make_project) -> Path:  # type: ignore[no-untyped-def]
    """The 'minimal' project with its untranslated post 'beta' taken out of the series (a
    series member's edits: tests/integration/test_quick_series.py)."""
    project: Path = make_project("minimal")
    _edit(_post(project, "ko", "beta"), "series: 연재\nseries_order: 2\n", "")
    assert build(project).quick is None
    return project


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("title: 베타 글", 'title: 베타 글 — 고친 제목 <&> "따옴표" [괄호]'),
        ("description: 번역되지 않은 글", "description: 설명을 고쳤습니다"),
        ("description: 번역되지 않은 글\n", ""),
        ("title: 베타 글\n", "title: >-\n  여러 줄로\n  쓴 제목\n"),  # the body moves down a line
    ],
    ids=["title", "description", "no-description", "folded-title"],
)
def test_title_or_description_edit_is_quick(
    standalone: Path, tmp_path: Path, old: str, new: str
) -> None:
    """The post's pages (ko, and the en page that shows the untranslated ko post), the home, blog
    and tag pages listing its card, the feeds, posts.json, status.json and the llms files."""
    before = tree_snapshot(standalone / "site")
    _edit(_post(standalone, "ko", "beta"), old, new)
    result = build(standalone)
    assert result.quick == ["content/ko/posts/beta.md"], result.cache_note
    _assert_clean(standalone, result, tmp_path)
    changed = {p for p, data in tree_snapshot(standalone / "site").items() if before.get(p) != data}
    assert {"ko/blog/beta/index.html", "en/blog/beta/index.html", "api/en/posts.json"} <= changed
    if "title" in old:
        listed = {"ko/index.html", "ko/blog/index.html", "ko/tags/kv-cache/index.html"}
        assert listed | {"ko/feed.xml", "llms.txt", "ko/llms-full.txt"} <= changed


def test_retitles_add_up_with_body_edits(standalone: Path, tmp_path: Path) -> None:
    """A title edit, then a body edit of another post, then the title back: each a quick rebuild
    from the last full build's kit, each equal to a clean build."""
    beta, alpha = _post(standalone, "ko", "beta"), _post(standalone, "ko", "alpha")
    _edit(beta, "title: 베타 글", "title: 새 제목")
    assert build(standalone).quick == ["content/ko/posts/beta.md"]
    _edit(alpha, "본문입니다.", "본문을 고쳤습니다.")
    result = build(standalone)
    assert result.quick == ["content/ko/posts/alpha.md", "content/ko/posts/beta.md"]
    _assert_clean(standalone, result, tmp_path)
    _edit(beta, "title: 새 제목", "title: 베타 글")
    result = build(standalone)
    assert result.quick is not None
    _assert_clean(standalone, result, tmp_path)


def test_only_a_title_edit_reads_the_texts_kit(standalone: Path, tmp_path: Path) -> None:
    """posts.json and the llms files by item are kept apart (tens of MB on a big site): a body
    edit does not read them, a title edit does (and falls back if they are gone)."""
    (texts,) = (standalone / ".bipub-cache").glob("quick-*-texts.pickle")
    texts.unlink()
    beta = _post(standalone, "ko", "beta")
    _edit(beta, "번역이 아직 없습니다.", "번역이 아직 없습니다. 고쳤습니다.")
    result = build(standalone)
    assert result.quick == ["content/ko/posts/beta.md"]
    _assert_clean(standalone, result, tmp_path)
    _edit(beta, "title: 베타 글", "title: 새 제목")
    result = build(standalone)
    assert result.quick is None and "missing or unreadable" in result.cache_note
    _assert_clean(standalone, result, tmp_path)
