"""What a post's parts of llms.txt and llms-full.txt are made of (render/llms.py `post_line`,
`full_post`): the keys an update keeps them by (render/outputs.py Parts.llms_post), so that it
makes again only the parts of the posts an edit changed and joins them with the others as a
full build does.
"""

from __future__ import annotations

from bipub.model.fields import slugify
from bipub.render import urls
from bipub.render.llms import Names

# The UI strings a post's parts (`post_line`, `full_post`, `_state_note`) show: their
# translations are part of what the parts are made of (`names_key`). A string used there and not
# listed here would leave a part of the last build in place after a catalog edit:
# tests/unit/test_llms_labels.py renders the parts of every state and checks it.
POST_LABELS: tuple[str, ...] = (
    "Not translated yet",
    "Machine translation, not reviewed",
    "Translation may be outdated",
    "Published",
    "Updated",
    "Tags",
    "This post has not been translated yet, so it is shown in its original language.",
    "This is a machine translation that has not been reviewed yet.",
    "The original was updated after this translation.",
    "Read the original",
)


def names_key(doc_lang: str, tags: tuple[str, ...], shown: Names) -> tuple[object, ...]:
    """The names a post's parts in a language (`post_line`, `full_post` with `post_body`) show
    that the whole site decides: the name of its document's language (`doc_lang`) and the
    names of its tags (`tags`: tags_of's). With the post's version (pair/model.py
    `version_key`: its document by its file's digest — title, description, tags, body —,
    dates, slug, translation state) and original language, `site_key` and the translations of
    POST_LABELS, every value its parts are made of (render/outputs.py Parts.llms_post). Cheap
    (no text of the post is hashed): an update works it out for every post and makes again
    the parts whose key moved."""
    return (shown.languages.get(doc_lang), tuple(shown.tags.get(slugify(t), t) for t in tags))


def site_key(url: urls.UrlBuilder, raw_html: bool) -> tuple[object, ...]:
    """The site's values every post's parts read: its URL and `raw_html`."""
    return (url.base_url, raw_html)
