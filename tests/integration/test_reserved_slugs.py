"""The slugs a post or page may not take (pair/site.py RESERVED_SLUGS) cover every file and folder
the site makes of its own beside them: a page called `search` was caught only when its path met
the search page's, in a message that named neither file nor line."""

from __future__ import annotations

from pathlib import Path

from bipub import pipeline
from bipub.pair.site import reserved_slug
from tests.conftest import built_copy


def test_every_name_the_site_makes_beside_pages_and_posts_is_reserved(tmp_path: Path) -> None:
    root = built_copy(tmp_path, only=set(pipeline.OUTPUT_KINDS))
    site = root / "site"
    pages = {"about"}  # (the minimal project's own pages)
    for lang in ("ko", "en"):
        made = {p.name for p in (site / lang).iterdir()} - pages
        assert made, lang
        assert [name for name in sorted(made) if not reserved_slug(name)] == [], lang
        posts = {p.name for p in (site / lang / "blog").iterdir() if p.is_dir()}
        own = {p.name for p in (site / lang / "blog").iterdir()} - {"alpha", "beta", "gamma"}
        assert posts, lang
        assert [name for name in sorted(own) if not reserved_slug(name)] == [], lang
