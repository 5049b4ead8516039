"""llms.py shift_headings: a post's headings (those its page shows: bipub's Markdown) move under
the file's, nothing else changes (code, math, quotes, lists, paragraphs), whatever Markdown a post
is made of; where they are is the same whether the page's render found them or a parse of the
body alone; and text_gettext gives the catalog's plain text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bipub.render import markdown as bm
from bipub.render.llms_body import shift_headings

SITE = bm._parser(False)  # bipub's Markdown: what the page shows as a heading or a link

LINES = st.sampled_from(
    [
        "# Title",
        "## Part",
        "### Sub",
        "###### Deep",
        "   ## indented heading",
        "#no space",
        "## closed ##",
        "Setext",
        "======",
        "------",
        "```",
        "~~~",
        "    # indented code",
        "> ## quoted",
        "- ## in a list",
        "paragraph text",
        "한국어 문단",
        "$$",
        "| a | b |",
        "|---|---|",
        "[^n]: a note",
        "    ## in a note",
        "<div>",
        "",
        "#",
    ]
)


def _blocks(text: str) -> list[tuple[str, str]]:
    """The content of every token but the headings' own (their text is checked apart)."""
    out = []
    inside = False
    for token in SITE.parse(text, {}):
        if token.type == "heading_open" and token.level == 0:
            inside = True
            continue
        if token.type == "heading_close" and token.level == 0:
            inside = False
            continue
        if not inside:
            out.append((token.type, token.content))
    return out


def _headings(text: str) -> list[tuple[int, str]]:
    tokens = SITE.parse(text, {})
    return [
        (int(t.tag[1]), " ".join(tokens[i + 1].content.split()))
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.level == 0
    ]


@settings(max_examples=400)
@given(st.lists(LINES, max_size=14), st.integers(min_value=1, max_value=6))
def test_only_headings_move(lines: list[str], top: int) -> None:
    body = "\n".join(lines)
    shifted = shift_headings(body, top)
    assert _blocks(shifted) == _blocks(body)
    before, after = _headings(body), _headings(shifted)
    assert [text for _, text in after] == [text for _, text in before]
    if before:
        highest = min(level for level, _ in before)
        assert [level for level, _ in after] == [
            min(6, level - highest + top) for level, _ in before
        ]


def test_examples() -> None:
    body = "Intro\n\n## A\n\ntext\n\n### B\n\n```\n## code\n```\n\nSet\n---\n\n> ## quote"
    assert shift_headings(body, 4) == (
        "Intro\n\n#### A\n\ntext\n\n##### B\n\n```\n## code\n```\n\n#### Set\n\n> ## quote"
    )
    assert shift_headings("no heading\n", 4) == "no heading\n"
    assert shift_headings("# a\n###### b", 4) == "#### a\n###### b"  # at most 6
    # a formula, not a heading nor a link (as the page shows it)
    assert shift_headings("# a\n\n$$\n# x\n$$", 4) == "#### a\n\n$$\n# x\n$$"
    from bipub.render.llms_body import absolute_links

    body = "$$\n[a](b.md)\n$$\n\n[a](b.md)"
    assert absolute_links(body, PAGE) == f"$$\n[a](b.md)\n$$\n\n[a]({PAGE}b.md)"


def test_text_gettext_is_plain_text() -> None:
    from babel.messages.pofile import read_po

    from bipub.diagnostics import Collector
    from bipub.render.catalogs import load_translations
    from bipub.render.templates import THEME_DIR, make_environment, text_gettext

    ko = load_translations(
        "ko", [(THEME_DIR / "locales", "theme")], Collector(), warn_untranslated=False
    )
    env = make_environment(None, "ko", ko)
    _ = text_gettext(env)
    assert _("Experience") == "경력"
    assert _("a < b & c") == "a < b & c"  # not escaped
    assert _("100%%") == "100%"  # as the templates format it
    # what the templates' `_()` gives with escaping off, for every string of the catalog
    template = env.from_string("{% autoescape false %}{{ _(message) }}{% endautoescape %}")
    with open(THEME_DIR / "locales/ko/LC_MESSAGES/messages.po", "rb") as po:
        # (those with variables are never asked of text_gettext: it passes none)
        messages = [m.id for m in read_po(po) if isinstance(m.id, str) and "%(" not in m.id]
    assert len(messages) > 50
    for message in [*messages, "a < b & c", "100%%", "<b>%%</b>"]:
        assert _(message) == template.render(message=message), message


PAGE = "https://x.example.org/ko/blog/post/"
LINK_LINES = st.sampled_from(
    [
        "[a](b.md)",
        "![그림](figure.png)",
        '[t](/assets/x.svg "title")',
        "[f](#part)",
        "[abs](https://example.org/a)",
        "[mail](mailto:a@example.org)",
        "[sp](<a b.png>)",
        "[paren](a_(b).png)",  # balanced parentheses belong to the target
        "[ref] and ![img][ref]",
        "[ref]: ../other/",
        "`[c](code-span)`",
        "    [i](indented-code)",
        "```",
        "<div>",
        "plain ](not a link)",
        "",
        "- [item](item.md)",
        "> [q](quoted.md)",
        "$$",  # a formula's lines: no link
        "see[^n]",
        "[^n]: a [note](note.md)",  # a footnote's link (its lines are moved to the end)
    ]
)


def _texts(text: str) -> list[tuple[str, str]]:
    """Every token's type and content but link and image targets."""
    out = []
    for token in SITE.parse(text, {}):
        if token.children:
            out += [(c.type, c.content) for c in token.children if c.type != "image"]
        else:
            out.append((token.type, token.content))
    return out


def _targets(text: str) -> list[str]:
    out = []
    for token in SITE.parse(text, {}):
        for child in token.children or ():
            for name in ("href", "src"):
                if name in child.attrs:
                    out.append(str(child.attrs[name]))
    return out


@settings(max_examples=400)
@given(st.lists(LINK_LINES, max_size=10))
def test_relative_links_become_absolute_and_nothing_else_changes(lines: list[str]) -> None:
    from urllib.parse import urljoin

    from bipub.render.llms_body import absolute_links

    body = "\n".join(lines)
    out = absolute_links(body, PAGE)
    assert _texts(out) == _texts(body)
    before, after = _targets(body), _targets(out)
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        assert new == SITE.normalizeLink(urljoin(PAGE, old)) or new == urljoin(PAGE, old)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES | LINK_LINES, max_size=14), st.booleans())
def test_the_render_finds_the_outline_a_parse_of_the_body_finds(
    lines: list[str], raw_html: bool
) -> None:
    """llms-full.txt moves the headings and makes absolute the links the page's render found
    (MarkdownCache.outlines) or, for a body no render of the build parsed, those a parse of its
    own finds: the same, or an update and a clean build would make different files."""
    body = "\n".join(lines)
    _, sections = bm.render_body(body, (0,), raw_html=raw_html)
    assert sections.outline == bm.body_outline(body, raw_html)


def test_a_formula_inside_a_paragraph_keeps_its_link_like_text() -> None:
    """Session 29: `$$…$$` inside a paragraph is display math, so a link-like text on its lines
    is LaTeX, not a link: llms-full.txt leaves it as written (the link before it is made
    absolute)."""
    from bipub.render.llms_body import absolute_links

    body = "[a](b.md)\n$$\n[a](b.md)\n$$"
    assert absolute_links(body, PAGE) == f"[a]({PAGE}b.md)\n$$\n[a](b.md)\n$$"
