"""The slugs a post or page may not take (pair/site.py `_pair_group` says so)."""

from __future__ import annotations

# Names a post's or page's slug may not take (compared case-insensitively: some file systems
# are): its folder would be, or sit beside, a file or folder of the site's own — a page at
# /ko/feed.xml/ turns the feed into a folder, a post at /ko/blog/index.html/ the blog listing.
RESERVED_SLUGS = frozenset(
    {
        # folders of the site's own
        "api",
        "archive",  # every post by year, /<lang>/blog/archive/ (render/archive.py)
        "assets",
        "blog",
        "index",
        "page",
        "pagefind",  # the search index (render/search_shards.py)
        "pdf",
        "search",  # the search page
        "series",
        "static",
        "tags",
        # files of the site's own
        "404.html",
        "card.png",  # issue 19: a language's social card (render/cards.py)
        "feed.json",  # issue 19: the JSON Feed
        "feed.xml",
        "index.html",
        "robots.txt",
        "sitemap.xml",
    }
)


def reserved_slug(slug: str) -> bool:
    """Whether a post or page may not use `slug` (RESERVED_SLUGS, and every llms*.txt)."""
    name = slug.casefold()
    return name in RESERVED_SLUGS or (name.startswith("llms") and name.endswith(".txt"))
