"""Session 32: a fence's info string after its language (```` ```python title="app.py" {2} ````,
as MkDocs Material, Docusaurus and Hugo readers write it) was dropped without a word: no title,
no highlighted lines. Now (render/code_info.py) a title is shown above the block, `{1,3-5}` and
`hl_lines="1 3-5"` highlight lines (the fast formatter marks the lines Pygments' `hl_lines`
marks), and anything else is said at the fence's line (`code-info`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import format as pygments_format
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Keyword, Name, Text, _TokenType

from bipub.check.qa import check_code
from bipub.render.code_info import CodeInfo, line_count, parse_info
from bipub.render.highlight import _format, highlight, lexer_for, mark_lines
from bipub.render.markdown import Blocks, parse, render_body, render_markdown
from bipub.render.markdown_code import mark_code_blocks
from bipub.translate.segments import layout
from tests.conftest import body_warnings


@pytest.mark.parametrize(
    ("rest", "title", "lines"),
    [
        ('title="scheduler.py"', "scheduler.py", ()),
        ("title='my app.py'", "my app.py", ()),
        ("title=app.py", "app.py", ()),
        ("{2}", "", (2,)),
        ("{1,3-5}", "", (1, 3, 4, 5)),
        ("{1, 3-4}", "", (1, 3, 4)),
        ('hl_lines="1 3-5"', "", (1, 3, 4, 5)),
        ("hl_lines='2'", "", (2,)),
        ('title="a.py" {5,1} hl_lines="2-3"', "a.py", (1, 2, 3, 5)),  # joined, sorted
        ('{2} title="{3}"', "{3}", (2,)),  # (braces in a title are its text)
    ],
)
def test_accepted_attributes(rest: str, title: str, lines: tuple[int, ...]) -> None:
    assert parse_info(rest, 6) == CodeInfo(title, lines, ())


@pytest.mark.parametrize(
    ("rest", "lines", "ignored"),
    [
        ('linenums="1"', (), "'linenums=\"1\"' ignored: bipub shows no line numbers"),
        ("showLineNumbers", (), "'showLineNumbers' ignored: not an attribute"),
        ('lang="py"', (), "'lang=\"py\"' ignored: an unknown attribute"),
        ("{0}", (), "'{0}': '0' ignored: no line (lines count from 1"),
        ("{4-2}", (), "'{4-2}': '4-2' ignored: no line"),
        ("{a}", (), "'{a}': 'a' ignored: not a line or a range"),
        ("{}", (), "'{}' ignored: no lines named"),
        ("{9}", (), "'{9}': '9' ignored: past the block's last line (6)"),
        ("{5-9}", (5, 6), "'{5-9}': lines 7-9 ignored: past the block's last line (6)"),
        ('hl_lines="1 x"', (1,), "'hl_lines=\"1 x\"': 'x' ignored: not a line or a range"),
        ('title=""', (), "'title=\"\"' ignored: an empty title"),
        ("title=a title=b", (), "'title=b' ignored: a second title (the first, 'a', is shown)"),
        ('title="a.py', (), "'title=\"a.py' ignored: not an attribute"),  # (unclosed quote)
        ("{linenos=table,hl_lines=[2]}", (), "'linenos=table' ignored: not a line or a range"),
    ],
)
def test_anything_else_is_ignored_and_said(rest: str, lines: tuple[int, ...], ignored: str) -> None:
    info = parse_info(rest, 6)
    assert info.lines == lines
    assert info.ignored and ignored in info.ignored[0], info.ignored


def test_line_count_counts_as_pygments_does() -> None:
    assert [line_count(c) for c in ("", "a\n", "a\nb", "a\r\nb\n", "a\x0cb\n")] == [0, 1, 2, 2, 1]


SOURCE = 'Intro\n\n```python title="sched<uler>.py" {2}\nx = 1\ny = 2\n```\n'


@pytest.mark.parametrize("fast", [True, False])
def test_title_and_highlighted_line_render_the_same_both_ways(fast: bool) -> None:
    rendered = render_markdown(SOURCE, fast=fast)
    assert rendered.html == (
        "<p>Intro</p>\n"
        '<div class="code-block"><div class="code-title" translate="no">'
        "sched&lt;uler&gt;.py</div>\n"
        '<pre><code class="highlight language-python" data-lang="python">'
        '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>\n'
        '<span class="hll"><span class="n">y</span> <span class="o">=</span> '
        '<span class="mi">2</span>\n</span>'
        "</code></pre>\n"
        "</div>\n"
    )
    assert rendered.code_info == ()
    assert "sched" not in rendered.text  # (reading time, search: the code only)


def test_a_block_without_attributes_is_as_before() -> None:
    html = render_markdown("```python\nx = 1\n```\n", fast=True).html
    assert html.startswith('<pre><code class="highlight language-python" data-lang="python">')
    assert "code-title" not in html and "hll" not in html


def test_an_unknown_language_keeps_its_title() -> None:
    rendered = render_markdown('```nolexer title="x.conf" {1}\na <b>\n```\n', fast=True)
    assert '<div class="code-title" translate="no">x.conf</div>' in rendered.html
    assert "a &lt;b&gt;" in rendered.html and rendered.unknown_languages == ("nolexer",)


TOKEN_TYPES: list[_TokenType] = [Keyword, Name, Text, Comment.Single]
token_value = st.text(alphabet=st.sampled_from(list("ab \n<&")), max_size=6)
token_stream = st.lists(st.tuples(st.sampled_from(TOKEN_TYPES), token_value), max_size=30)


@settings(max_examples=300, deadline=None)
@given(tokens=token_stream, lines=st.sets(st.integers(1, 12), max_size=6))
def test_the_fast_formatter_marks_the_lines_pygments_marks(
    tokens: list[tuple[_TokenType, str]], lines: set[int]
) -> None:
    triples = [(0, ttype, value) for ttype, value in tokens]
    marked = mark_lines(_format(triples), tuple(sorted(lines)))
    assert marked == pygments_format(tokens, HtmlFormatter(nowrap=True, hl_lines=sorted(lines)))


@pytest.mark.parametrize("name", ["python", "bash", "yaml", "text"])
@pytest.mark.parametrize("code", ["", "x = 1", "a = 1\r\nb = '<&>'\r\n", "\n\nx = 1\n\n"])
def test_highlighted_blocks_same_html_as_pygments(name: str, code: str) -> None:
    fast = lexer_for(name, True)
    assert fast is not None
    stock = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    for lines in [(1,), (2, 3), (1, 2, 3, 4)]:
        assert highlight.__wrapped__(code, fast, True, lines) == highlight.__wrapped__(
            code, stock, False, lines
        )


def test_ignored_attributes_are_said_at_the_fence_line() -> None:
    body = 'Body.\n\n```python linenums="1" {2-3}\nx = 1\n```\n\n```py title="a.py"\nx\n```\n'
    found = body_warnings(body, "code-info")
    assert [(d.file, d.line) for d in found] == [("content/ko/posts/p.md", 8)] * 2
    assert found[0].message == (
        "code block info string: 'linenums=\"1\"' ignored: bipub shows no line numbers"
    )
    assert found[1].message == (
        "code block info string: '{2-3}': '2-3' ignored: past the block's last line (1)"
    )
    assert body_warnings(SOURCE, "code-info") == []


def test_a_diagram_takes_no_attributes_and_says_so() -> None:
    tokens = parse('Text.\n\n```mermaid title="flow"\ngraph TD; A-->B\n```\n')
    assert mark_code_blocks(tokens) == (
        (3, "'title=\"flow\"' ignored: a ```mermaid diagram takes no attributes"),
    )
    assert mark_code_blocks(parse("```mermaid\ngraph TD; A-->B\n```\n")) == ()


def test_kept_blocks_follow_their_title_and_lines() -> None:
    """The HTML kept between renders (`Blocks` by language, code and lines; `Fences` by info
    string): the same code with another title or other lines shows the new ones."""
    blocks: Blocks = {}
    code = "x = 1\ny = 2\n"
    first = render_markdown(f"```python {{1}}\n{code}```\n", blocks=blocks, fast=True).html
    second = render_markdown(f"```python {{2}}\n{code}```\n", blocks=blocks, fast=True).html
    x, y = (f'<span class="hll"><span class="n">{n}</span>' for n in "xy")
    assert x in first and y not in first
    assert y in second and x not in second
    fences: dict = {}  # type: ignore[type-arg]
    for title in ("a.py", "b.py"):
        source = f'```python title="{title}"\n{code}```\n'
        rendered, _ = render_body(source, (0,), blocks=blocks, fences=fences)
        assert f'translate="no">{title}</div>' in rendered.html
        assert rendered == render_markdown(source, fast=False)


def test_the_draft_keeps_the_info_string_and_qa_compares_it() -> None:
    """(Held before this change too: a fence is never sent to DeepL, and QA compares info
    strings byte for byte.) A title is a file name: not translated."""
    ko = '설명.\n\n```python title="scheduler.py" {2}\nx = 1\ny = 2\n```\n'
    assert [seg.source for seg in layout(ko).segments] == ["설명."]
    assert layout(ko).fill(["Text."]) == ko.replace("설명.", "Text.")
    en = ko.replace("설명.", "Text.")
    assert check_code(ko, en) == []
    renamed = en.replace("scheduler.py", "스케줄러.py")
    assert check_code(ko, renamed) == [
        "code block 1: info string 'python title=\"스케줄러.py\" {2}', the source has "
        "'python title=\"scheduler.py\" {2}'"
    ]
    assert check_code(ko, en.replace("{2}", "{1}"))
