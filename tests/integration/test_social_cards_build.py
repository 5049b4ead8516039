"""Issue 19: link previews. Every page of every kind has og:image (an absolute URL) and
twitter:card with the other og tags; a post without `image:` gets a generated 1200×630 card next
to its page, a post with one uses it; the home page (the CV) uses the site card; cards are drawn
once (the next build reads them from the cache). One shared build of the 'minimal' project."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from bipub import pipeline
from bipub.pipeline import build
from bipub.render import card_draw, cards, outputs
from bipub.render.outputs import Output
from bipub.render.pdf import fonts as pdf_fonts
from tests.conftest import PROJECTS

BASE = "https://test.example.org/"
REQUIRED = ("og:title", "og:url", "og:type", "og:locale", "og:image", "og:site_name")


@dataclass
class Built:
    root: Path
    site: Path
    drawn: list[int]  # cards drawn by each build
    warnings: list[str]  # of the first build


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("cards") / "minimal"
    shutil.copytree(PROJECTS / "minimal", root)
    beta = root / "content" / "ko" / "posts" / "beta.md"
    beta.write_text(
        beta.read_text("utf-8").replace("---\n", "---\nimage: /images/beta.png\n", 1), "utf-8"
    )
    drawn: list[int] = []
    real = card_draw.draw

    def counting(*args: object) -> bytes:
        drawn[-1] += 1
        return real(*args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cards, "draw", counting)
        mp.setenv("XDG_CACHE_HOME", str(root.parent / "xdg-cache"))  # (before the autouse one)
        mp.setenv("SOURCE_DATE_EPOCH", "1798761600")
        warnings = []
        for _ in range(2):
            drawn.append(0)
            result = build(root, root / "site", only={"html", "cards"})
            warnings = warnings or [w.format() for w in result.warnings]
            (root / "content" / "ko" / "pages" / "about.md").write_text(
                (root / "content" / "ko" / "pages" / "about.md").read_text("utf-8") + "\n고침.\n",
                "utf-8",
            )
    return Built(root, root / "site", drawn, warnings)


def _meta(html: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for tag in re.findall(r"<meta\s[^>]*>", html):
        name = re.search(r'(?:property|name)="([^"]+)"', tag)
        content = re.search(r'content="([^"]*)"', tag)
        if name and content:
            found.setdefault(name.group(1), content.group(1))
    return found


def test_every_page_has_the_link_preview_tags(built: Built) -> None:
    # (404.html aside: served for any missing URL, noindex, never a link anyone shares)
    pages = sorted(p for p in built.site.rglob("*.html") if p.name != "404.html")
    kinds = {p.relative_to(built.site).parts[1:2] for p in pages}
    assert len(pages) > 15 and {("blog",), ("tags",), ("series",), ("index.html",)} <= kinds
    for page in pages:
        meta = _meta(page.read_text("utf-8"))
        rel = page.relative_to(built.site)
        missing = [key for key in REQUIRED if key not in meta]
        assert not missing, f"{rel}: no {missing}"
        assert meta["twitter:card"] == "summary_large_image", rel
        assert meta["og:image"].startswith(BASE), f"{rel}: og:image {meta['og:image']}"


def test_a_post_without_image_gets_its_card_and_the_home_page_the_site_card(
    built: Built,
) -> None:
    alpha = _meta((built.site / "ko" / "blog" / "alpha" / "index.html").read_text("utf-8"))
    assert alpha["og:image"] == f"{BASE}ko/blog/alpha/card.png"
    assert (alpha["og:image:width"], alpha["og:image:height"]) == ("1200", "630")
    assert alpha["og:type"] == "article" and alpha["og:locale"] == "ko_KR"
    card = Image.open(BytesIO((built.site / "ko" / "blog" / "alpha" / "card.png").read_bytes()))
    assert card.size == (1200, 630)
    home = _meta((built.site / "ko" / "index.html").read_text("utf-8"))  # the CV
    assert home["og:image"] == f"{BASE}ko/card.png"
    assert (built.site / "ko" / "card.png").is_file() and (built.site / "en" / "card.png").is_file()
    tags = _meta((built.site / "en" / "tags" / "index.html").read_text("utf-8"))
    assert tags["og:image"] == f"{BASE}en/card.png"


def test_a_post_with_an_image_uses_it_and_gets_no_card(built: Built) -> None:
    """(beta's image: is not in static/: the build warned, see below)"""
    beta = _meta((built.site / "ko" / "blog" / "beta" / "index.html").read_text("utf-8"))
    assert beta["og:image"] == f"{BASE}images/beta.png"
    assert "og:image:width" not in beta  # its size is not known
    assert not (built.site / "ko" / "blog" / "beta" / "card.png").exists()
    missing = [w for w in built.warnings if "images/beta.png" in w]
    assert missing and missing[0].startswith("content/ko/posts/beta.md:2:"), built.warnings


def test_cards_are_drawn_once(built: Built) -> None:
    first, second = built.drawn
    assert first >= 4  # two site cards, alpha (ko, en), …
    assert second == 0  # an unrelated edit: every card from the cache


def test_a_card_image_that_is_not_a_url_or_site_path_is_refused(
    tmp_path: Path, make_project, cli
) -> None:
    project = make_project("minimal")
    alpha = project / "content" / "ko" / "posts" / "alpha.md"
    alpha.write_text(
        alpha.read_text("utf-8").replace("---\n", "---\nimage: cover.png\n", 1), "utf-8"
    )
    result = cli("-C", str(project), "-q", "build", "--only", "html")
    assert result.exit_code == 1
    assert "content/ko/posts/alpha.md:2" in result.stderr and "image" in result.stderr


def test_a_title_character_the_card_font_lacks_is_a_warning(make_project, cli) -> None:
    project = make_project("minimal")
    alpha = project / "content" / "ko" / "posts" / "alpha.md"
    alpha.write_text(
        alpha.read_text("utf-8").replace("title: 알파 글", "title: 알파 글 🚀"), "utf-8"
    )
    result = cli("-C", str(project), "build", "--only", "cards")
    assert result.exit_code == 0, result.stderr
    assert "content/ko/posts/alpha.md:2: " in result.stderr
    assert "U+1F680" in result.stderr and "[card-glyph]" in result.stderr


def test_a_font_without_bold_is_said_by_a_build_of_the_cards_alone(tmp_path: Path) -> None:
    """The cards draw titles in the bold face; without one they use the regular face. The PDFs
    said so, but a build without PDFs (here only the cards) said nothing."""
    project = tmp_path / "minimal"
    shutil.copytree(PROJECTS / "minimal", project)
    (project / "fonts").mkdir()
    shutil.copy("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", project / "fonts")
    config = project / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "pdf:\n  font_file: fonts/DejaVuSans.ttf\n",
        encoding="utf-8",
    )
    result = build(project, only={"cards"}, use_cache=False)
    assert any(w.code == "pdf-font" and "no bold face" in w.message for w in result.warnings)


def test_the_cards_fonts_are_asked_of_fontconfig_before_the_pages(make_project) -> None:
    """The render stage starts the cards' `fc-list` runs (pdf/fonts.py `FontsAhead`) before
    the pages and reads them when the cards are made: none runs in `Cards.render`, and a build
    that stops before the cards leaves none running (pipeline.py `render`)."""
    project = make_project("minimal")
    events: list[str] = []
    runs: list[pdf_fonts.FcQuery] = []
    real_query, real_pages = pdf_fonts.FcQuery.__init__, outputs.HtmlPages.render

    def query(self: pdf_fonts.FcQuery, family: str) -> None:
        events.append(f"fc-list {family}")
        runs.append(self)
        real_query(self, family)

    def pages(self: outputs.HtmlPages, *args: object) -> None:
        events.append("pages")
        real_pages(self, *args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pdf_fonts.FcQuery, "__init__", query)
        mp.setattr(outputs.HtmlPages, "render", pages)
        build(project, project / "site", only={"html", "cards"})
        assert events == ["fc-list Noto Sans CJK KR", "fc-list Noto Sans Mono CJK KR", "pages"]

        def failing(self: outputs.HtmlPages, *args: object) -> None:
            raise RuntimeError("a page failed")

        mp.setattr(outputs.HtmlPages, "render", failing)
        runs.clear()
        alpha = project / "content" / "ko" / "posts" / "alpha.md"
        alpha.write_text(alpha.read_text("utf-8") + "\n고침.\n", "utf-8")  # (not up to date)
        with pytest.raises(RuntimeError):
            build(project, project / "site", only={"html", "cards"})
    assert len(runs) == 2
    assert all(run._proc is not None and run._proc.returncode is not None for run in runs)


_OPENED: list[list[str]] = []  # the paths opened while a test listens (sys.addaudithook)


def _listen(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _OPENED and isinstance(args[0], str | bytes | Path):
        _OPENED[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_listen)  # (a hook cannot be removed: it records only inside `_opens`)


def _card_files(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_ino for p in site.rglob("card.png")}


def test_an_edit_opens_only_the_card_that_changed(make_project) -> None:
    """Issue 17: a build after an edit keeps every published card whose key did not change
    (OutputTree.keep: the file the last build published, by its identity) without opening it
    or its copy in the cards cache; the edited post's card alone is looked up, drawn and
    written. A card changed by hand in the output is made again."""
    project = make_project("minimal")
    site = project / "site"
    build(project, site, only={"cards"})
    before = _card_files(site)
    assert len(before) >= 5
    (site / "en" / "card.png").write_bytes(b"changed by hand")
    alpha = project / "content" / "ko" / "posts" / "alpha.md"
    alpha.write_text(
        alpha.read_text("utf-8").replace("title: 알파 글", "title: 알파 글 2"), "utf-8"
    )
    _OPENED.append([])
    try:
        kind = cards.Cards()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(pipeline, "outputs", lambda only: [kind])
            build(project, site, only={"cards"})
        opened = [Path(p) for p in _OPENED[-1]]
    finally:
        _OPENED.pop()
    after = _card_files(site)
    assert after.keys() == before.keys()
    changed = {rel for rel in after if after[rel] != before[rel]}
    assert changed == {"ko/blog/alpha/card.png", "en/card.png"}
    assert Image.open(site / "en" / "card.png").size == (1200, 630)
    # the published cards and their staged copies (a folder beside the site)
    in_site = {
        p.relative_to(project).as_posix().split("/", 1)[1]
        for p in opened
        if p.name == "card.png" and p.is_relative_to(project)
    }
    assert in_site <= changed, in_site
    cached = {p.name.lstrip(".")[:32] for p in opened if p.parent.name == "cards"}
    assert len(cached) == 2, cached  # alpha's new card (not there: drawn, stored), en/card.png
    assert kind.kept == len(before) - 2 and kind.drawn == 1


def test_cards_carried_over_by_a_build_without_them_are_kept_by_the_next(make_project) -> None:
    """`build --only html` carries the cards over by hard link, which moves their ctime (part of
    the identity `keep` compares): the cache records their new identity, so the next build of
    the cards still keeps them (and the cards of one language's build, the other's)."""
    project = make_project("minimal")
    site = project / "site"
    about = project / "content" / "ko" / "pages" / "about.md"
    build(project, site, only={"cards"})
    for only, langs in (({"html"}, None), ({"cards"}, ["en"]), ({"cards"}, None)):
        about.write_text(about.read_text("utf-8") + "\n고침.\n", "utf-8")
        kind = cards.Cards()
        made: list[Output] = [kind] if "cards" in only else []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(pipeline, "outputs", lambda _only, made=made: made)
            build(project, site, langs=langs, only=only)
        if "cards" in only:
            assert (kind.kept, kind.drawn) == (len(_card_files(site)) // (2 if langs else 1), 0)


def test_each_title_with_a_character_the_card_font_lacks_is_a_warning(make_project) -> None:
    """The cards look again at a title's characters unless each was seen drawn: a title with
    a character the font lacks warns however many titles before it had it too (here the
    same characters)."""
    project = make_project("minimal")
    for name, title, new in (("alpha", "알파 글", "로켓 🚀"), ("beta", "베타 글", "🚀 로켓")):
        post = project / "content" / "ko" / "posts" / f"{name}.md"
        post.write_text(post.read_text("utf-8").replace(title, new), "utf-8")
    result = build(project, only={"cards"}, use_cache=False)
    warned = sorted(w.file for w in result.warnings if w.code == "card-glyph")
    assert warned == ["content/ko/posts/alpha.md", "content/ko/posts/beta.md"]


@pytest.mark.parametrize("resident", [False, True], ids=["build", "serve"])
def test_a_kept_card_key_follows_what_the_card_shows(make_project, resident: bool) -> None:
    """A card is kept while its key (what it shows) is the one of the card published: after
    an edit of a post's date (the card's footer), its title, or the language's title, every
    card is the one a clean build draws, and the cards of the other posts are kept."""
    from bipub.cache import BuildCache
    from bipub.pipeline import Kept
    from tests.conftest import tree_snapshot

    project = make_project("minimal")
    site = project / "site"
    memory = Kept(BuildCache()) if resident else None
    build(project, site, only={"html", "cards"}, kept=memory)
    alpha = project / "content" / "ko" / "posts" / "alpha.md"
    config = project / "bipub.yaml"
    alpha_cards = {"ko/blog/alpha/card.png", "en/blog/alpha/card.png"}
    for path, old, new, redrawn in (
        (alpha, "date: 2026-04-07", "date: 2026-04-09", alpha_cards),  # (both: the post's date)
        (alpha, "title: 알파 글", "title: 고친 알파", {"ko/blog/alpha/card.png"}),
        (
            config,
            "title: Test site",
            "title: Tested site",
            {"en/card.png", *alpha_cards} - {"ko/blog/alpha/card.png"},
        ),
    ):
        before = _card_files(site)
        path.write_text(path.read_text("utf-8").replace(old, new), "utf-8")
        build(project, site, only={"html", "cards"}, kept=memory)
        clean = project.parent / f"clean-{len(old)}"
        build(project, clean, only={"html", "cards"}, use_cache=False)
        cards_now = {rel: data for rel, data in tree_snapshot(site).items() if "card" in rel}
        assert cards_now == {r: d for r, d in tree_snapshot(clean).items() if "card" in r}
        after = _card_files(site)
        changed = {rel for rel in after if after[rel] != before.get(rel)}
        assert redrawn <= changed, changed
        assert not {rel for rel in changed if rel.startswith("ko/")} - redrawn, changed


def test_an_edit_reads_the_fonts_characters_only_for_a_title_with_new_ones(
    make_project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The characters the card fonts draw, found among the titles, are kept in the build state
    by the fonts: an edit build works out a changed post's card without reading the fonts'
    characters (cmap) unless its title has a character not seen before, and still warns of a
    character they lack."""
    project = make_project("minimal")
    site = project / "site"
    build(project, site, only={"html", "cards"})
    read: list[object] = []
    real = cards.cmap
    monkeypatch.setattr(cards, "cmap", lambda *args: read.append(args) or real(*args))
    alpha = project / "content" / "ko" / "posts" / "alpha.md"
    alpha.write_text(alpha.read_text("utf-8") + "\n고침.\n", "utf-8")  # (its entry's key moves)
    result = build(project, site, only={"html", "cards"})
    assert read == [] and not [w for w in result.warnings if w.code == "card-glyph"]
    alpha.write_text(
        alpha.read_text("utf-8").replace("title: 알파 글", "title: 알파 글 🚀"), "utf-8"
    )
    result = build(project, site, only={"html", "cards"})
    assert read, "a new character: the fonts' characters are read"
    glyphs = [w for w in result.warnings if w.code == "card-glyph"]
    assert glyphs and "U+1F680" in glyphs[0].message


def test_a_post_card_changed_by_hand_is_made_again_by_an_edit_build(make_project) -> None:
    """A post card found by its entry's key (unchanged) is kept only if the published file is
    still the one the last build wrote: one changed in the output is made again."""
    project = make_project("minimal")
    site = project / "site"
    build(project, site, only={"html", "cards"})
    card = site / "en" / "blog" / "alpha" / "card.png"
    drawn = card.read_bytes()
    card.write_bytes(b"changed by hand")
    about = project / "content" / "ko" / "pages" / "about.md"
    about.write_text(about.read_text("utf-8") + "\n고침.\n", "utf-8")
    kind = cards.Cards()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "outputs", lambda only: [kind])
        build(project, site, only={"html", "cards"})
    assert card.read_bytes() == drawn
    assert kind.kept == len(_card_files(site)) - 1
