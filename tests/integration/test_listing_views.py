"""What a listing page is made of, made once per build and shared (render/page_views.py,
render/templates.py `CardHtml`, render/card_html.py): the tag links of the cards of posts with
the same tags, the hrefs of the listing pages around each, the cards' HTML read back as it was
saved. The pages stay the clean build's, byte for byte (test_card_html, test_golden_minimal)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from babel.support import NullTranslations
from markupsafe import Markup

from bipub.cache import BuildCache
from bipub.pipeline import Kept, build
from bipub.render import card_html, templates
from bipub.render.html import HtmlRenderer
from bipub.render.page_views import card_tag_slugs
from tests.conftest import PROJECTS

KINDS = {"html"}

POST = """---
title: 같은 태그 {n}
date: 2026-03-0{n}
tags: [{tags}]
---

본문 {n}.
"""


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, HtmlRenderer]:
    """The minimal project with three more Korean posts, two of them with the same tags (one
    tag written twice, in another case), built once with a kept renderer."""
    root = tmp_path / "p"
    shutil.copytree(PROJECTS / "minimal", root)
    for n, tags in ((1, "vllm, scheduler"), (2, "vllm, scheduler, VLLM"), (3, "scheduler")):
        (root / f"content/ko/posts/same-{n}.md").write_text(POST.format(n=n, tags=tags), "utf-8")
    kept = Kept(BuildCache())
    build(root, only=KINDS, kept=kept)
    renderer = kept.pages.renderer
    assert isinstance(renderer, HtmlRenderer)
    return root, renderer


def test_posts_with_the_same_tags_share_their_cards_tag_links(
    built: tuple[Path, HtmlRenderer],
) -> None:
    _root, renderer = built
    posts = {e.key: e for e in renderer.site.posts("ko")}
    first, second, third = (renderer.card(posts[f"same-{n}"], "ko") for n in (1, 2, 3))
    # (the same tags: one tuple of links; "VLLM" is the slug of "vllm" again, linked once)
    assert [t.slug for t in first.tags] == [t.slug for t in second.tags] == ["vllm", "scheduler"]
    assert [t.slug for t in third.tags] == ["scheduler"]
    assert first.tags is renderer.card_tags(posts["same-1"], "ko")
    # each post's links are its own tags' (the rule: tag_links of card_tag_slugs)
    for lang in ("ko", "en"):
        for entry in renderer.site.posts(lang):
            want = renderer.tag_links(lang, card_tag_slugs(entry, lang))
            assert renderer.card(entry, lang).tags == want


def test_cards_are_read_back_as_saved_and_given_to_templates_as_markup(
    built: tuple[Path, HtmlRenderer],
) -> None:
    root, renderer = built
    kept = card_html.KeptCardHtml()
    assert renderer.card_html.made_with is not None
    kept.start(renderer.card_html.made_with, root / ".bipub-cache", save=False)
    entry = renderer.site.posts("ko")[0]
    key = renderer.card_key_at(("posts", entry.key, "ko"), renderer.card(entry, "ko"))
    found = kept.get(("ko", key, 2, None))
    assert found is not None and kept.note == ""
    # each card's HTML as saved: a str, not copied into a Markup at every build
    assert type(found) is str and {type(html) for html in kept.html.values()} == {str}
    env = templates.make_environment(None, "ko", NullTranslations())
    cards = env.globals["post_card"]
    assert isinstance(cards, templates.CardHtml)
    card = renderer.card(renderer.site.posts("ko")[0], "ko")
    one, joined = cards(card), cards.join([card, card])
    assert type(one) is Markup and type(joined) is Markup
    assert str(joined) == str(one) * 2


def test_a_list_of_remembered_cards_is_joined_without_a_call_each(
    built: tuple[Path, HtmlRenderer], monkeypatch: pytest.MonkeyPatch
) -> None:
    _root, renderer = built
    env = templates.make_environment(None, "ko", NullTranslations())
    cards = env.globals["post_card"]
    assert isinstance(cards, templates.CardHtml)
    shown = [renderer.card(e, "ko") for e in renderer.site.posts("ko")]
    first = cards.join(shown)
    numbered = cards.join(shown, 3, numbered=True)
    rows = cards.rows(shown)
    calls: list[object] = []
    for name in ("__call__", "_html", "_render"):
        real = getattr(templates.CardHtml, name)
        monkeypatch.setattr(
            templates.CardHtml,
            name,
            lambda self, *a, _real=real, **k: calls.append(a) or _real(self, *a, **k),
        )
    assert cards.join(shown) == first
    assert cards.join(shown, 3, numbered=True) == numbered
    assert cards.rows(shown) == rows
    assert calls == []
    # (each card as one call gives it: numbered from 1, rows at "level" 0)
    assert str(numbered) == "".join(str(cards(c, 3, n)) for n, c in enumerate(shown, 1))
    assert str(rows) == "".join(str(cards(c, templates.ARCHIVE_ROW)) for c in shown)
