"""pair/site_pages.py makes the paths of the pages each language has besides its posts' and
pages' own with the renderer's URL functions, for the pages the renderer makes: what it lists
must be what a build plans (render/html.py) and writes (feeds, JSON API, llms.txt, social
cards), no more, no less: a page it lists and the site lacks would send a draft's reader nowhere."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bipub.diagnostics import Collector
from bipub.pair.site_pages import SitePages
from bipub.pipeline import load, pair, plan
from bipub.project import Project
from bipub.render import urls
from bipub.render.feeds import feed_specs
from bipub.render.pdf.links import short_wanted
from tests.conftest import CliResult

TAGGED = (
    "---\ntitle: {title}\ndate: 2026-03-0{n}\ntags: [{tags}]\nseries: {series}\n---\n\n{body}\n"
)


def _project(make_project: Callable[[str], Path]) -> Path:
    root = make_project("minimal")
    config = root / "bipub.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("posts_per_page: 2", "posts_per_page: 1")
        + "home: blog\noutputs:\n  search: true\npdf:\n  posts: true\n  short: {enabled: true}\n",
        encoding="utf-8",
    )
    posts = root / "content"
    for n, (lang, title, tags, series) in enumerate(
        [
            ("ko", "분산 글", "분산, vllm", "분산 추론"),
            ("en", "Distributed", "distributed, vllm", "Distributed inference"),
        ]
    ):
        (posts / lang / "posts" / "dist.md").write_text(
            TAGGED.format(title=title, n=n + 1, tags=tags, series=series, body="본문."),
            encoding="utf-8",
        )
    # a post with an image of its own: no card drawn (it has none to link to)
    (posts / "ko" / "posts" / "pictured.md").write_text(
        "---\ntitle: 그림 글\ndate: 2026-02-01\nimage: https://example.org/picture.png\n---\n\n"
        "본문.\n",
        encoding="utf-8",
    )
    return root


def test_the_pages_listed_are_the_pages_built(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    root = _project(make_project)
    collector = Collector()
    project = Project(root)
    config, content = load(project, collector, None)
    site = pair(project, config, content, collector)
    pages = SitePages(site, tuple(config.codes), short_wanted)
    job = plan(project, site, config.codes, collector, None)
    own = ("post.html", "page.html")
    planned = {s.path for s in job.plan.paths.values() if s.template not in own}
    listed = {p for lang in config.codes for p in pages._tables()[lang].values()}
    assert {p for p in listed if p.endswith("/")} == planned
    feeds = {s.path for lang in config.codes for s in feed_specs(site, lang)}
    assert {p for p in listed if p.endswith("feed.xml")} == feeds
    # the social cards: each language's, and each post page's own (render/cards.py)
    cards = {urls.site_card(lang) for lang in config.codes} | {
        s.image for s in job.plan.paths.values() if s.image == urls.post_card(s.path)
    }
    assert {p for p in listed if p.endswith("card.png")} == cards
    assert {"/ko/card.png", "/en/blog/beta/card.png"} <= cards  # (beta: shown untranslated)
    assert "/ko/blog/pictured/card.png" not in cards
    # each kind is there: the CV page, a list's later pages, a tag's, a series', side by side
    assert {"/ko/cv/", "/en/blog/page/2/", "/ko/tags/분산/", "/en/tags/distributed/"} <= listed
    assert {"/ko/series/분산-추론/", "/ko/blog/dist/both/", "/ko/search/"} <= listed
    assert {"/en/blog/dist/dist.pdf", "/pdf/cv-en.pdf", "/pdf/cv-ko-short.pdf"} <= listed
    assert "/en/blog/beta/beta.pdf" not in listed  # (shown in English untranslated: no PDF)
    built = cli("-C", str(root), "build")
    assert built.exit_code == 0, built.stderr
    for path in sorted(listed):
        assert (root / "site" / urls.output_file(path)).is_file(), path
    written = {"/" + p.relative_to(root / "site").as_posix() for p in root.glob("site/**/card.png")}
    assert written == cards
    # the tag of each language's page in the other: the one its posts list at its place
    assert pages.counterpart("ko", ("tag", "분산", "1"), "en") == ("/en/tags/distributed/", "")
    assert pages.counterpart("en", ("tag", "distributed", "1"), "ko") == ("/ko/tags/분산/", "")
    assert pages.counterpart("ko", ("tag", "kv-cache", "1"), "en") == ("/en/tags/kv-cache/", "")
    assert pages.counterpart("ko", ("series", "dist"), "en") == (
        "/en/series/distributed-inference/",
        "",
    )
    assert pages.counterpart("en", ("card",), "ko") == ("/ko/card.png", "")
    assert pages.counterpart("ko", ("post-card", "dist"), "en") == ("/en/blog/dist/card.png", "")
