"""render/highlight.py gives exactly Pygments' tokens (the joined-rules tokenizer) and exactly the
HTML of `HtmlFormatter(nowrap=True)` (its own formatter)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import format as pygments_format
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    String,
    Text,
    Token,
    Whitespace,
    _TokenType,
)

from bipub.render.highlight import _format, _joined, accelerate, highlight, lexer_for

REPO = Path(__file__).resolve().parents[2]

SAMPLES = {
    "python": 'def f(x: int = 3, *a, **k) -> str:\n    """doc"""\n    return f"{x!r:>{k}}" + r\'\\d\' # c\n@dec\nclass A(B, metaclass=M): pass\nmatch x:\n    case [1, *_]: ...\n',
    "bash": "for i in $(seq 1 3); do echo \"${i}\" '$x' >&2; done\ncat <<EOF\nhi $USER\nEOF\n",
    "rust": 'fn main() { let x: Vec<u8> = vec![1, 2]; println!("{}", x.len()); } // c\n',
    "go": 'package main\nimport "fmt"\nfunc main() { fmt.Println(`raw`, 0x1F, 1.5e3) }\n',
    "javascript": "const a = `t ${x}`; /re[a-z]+/gi.test(s) && (() => {})();\n",
    "typescript": "interface A<T> { x?: T }\nexport const f = <T,>(a: T): T => a;\n",
    "sql": "SELECT a, COUNT(*) FROM t WHERE b LIKE 'x%' GROUP BY a; -- c\n",
    "toml": '[tool.x]\na = 1\nb = "s"\nc = [1, 2]\n',
    "diff": "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n",
    "dockerfile": "FROM python:3.11\nRUN pip install x && \\\n    echo ok\n",
    "ini": "[s]\nk = v ; c\n",
    "json": '{"a": [1, 2.5, true, null], "b": "s"}\n',
    "yaml": "a: 1\nb: [x, y]\nc: |\n  text\n",
    "cpp": "#include <x>\ntemplate<class T> int f(T t) { return t ? 1 : 0; }\n",
    "c": '#include <stdio.h>\nint main(void) {\n\tprintf("%d & %s\\n", 1 << 2, "<x>");\n}\n',
    "java": '@Override\npublic <T> List<T> f(Map<String, T> m) { return m.get("k") != null ? x : y; }\n',
    "shell": "if [ -f \"$f\" ] && [[ $x == 'a' ]]; then\n\techo ok | tee -a log &>/dev/null\nfi\n",
    "console": "$ echo '<b>' && ls -la\n<b>\n# sudo rm x\n",
    "html": "<!DOCTYPE html>\n<a href=\"x?a=1&amp;b=2\" class='c'>&lt;t&gt; 한글</a>\n<script>if (a < b) {}</script>\n",
    "css": '.a > b::after { content: "<&>"; color: #fff !important; } /* c */\n@media (max-width: 1px) {}\n',
    "text": "plain <text> & \"quotes\" 'single'\n\n\ttabbed 한국어\n",
    "pycon": '>>> print("<x>")\n<x>\n>>> 1/0\nTraceback (most recent call last):\nZeroDivisionError\n',
}

# the HTML every test compares with: Pygments' own formatter, default options but no wrapper
REFERENCE = HtmlFormatter(nowrap=True)


def _stock(name: str):  # type: ignore[no-untyped-def]
    return get_lexer_by_name(name, stripnl=False, ensurenl=False)


def _demo_blocks() -> list[tuple[str, str]]:
    blocks = []
    for path in sorted((REPO / "content").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        blocks += re.findall(r"```([a-z]+)\n(.*?)```", text, re.S)
    return blocks


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_same_tokens_and_html_as_pygments(name: str) -> None:
    fast, stock = lexer_for(name), _stock(name)
    assert fast is not None
    code = SAMPLES[name]
    assert list(fast.get_tokens(code)) == list(stock.get_tokens(code))
    assert highlight(code, fast) == pygments_highlight(code, stock, REFERENCE)


def test_demo_code_blocks_are_unchanged() -> None:
    blocks = _demo_blocks()
    assert blocks, "the demo has code blocks"
    for name, code in blocks:
        fast, stock = lexer_for(name), _stock(name)
        assert fast is not None
        assert highlight(code, fast) == pygments_highlight(code, stock, REFERENCE), name


def test_python_states_are_all_joined() -> None:
    """The speed-up is really in use (a Pygments upgrade that defeats it should be noticed)."""
    lexer = lexer_for("python")
    assert lexer is not None
    states = _joined(lexer)
    names = list(states.tokens)
    assert names and all(states[name][0] is not None for name in names)


def test_states_are_joined_when_first_used() -> None:
    """A fresh lexer class compiles no joined pattern until a block needs one."""
    lexer = lexer_for("rust")
    assert lexer is not None
    states = _joined(lexer)
    states.clear()
    highlight("let x = 1;", lexer)
    assert "root" in states and len(states) < len(states.tokens)


@pytest.mark.parametrize(
    ("name", "options"),
    [("csharp", {}), ("csharp", {"unicodelevel": "full"}), ("nemerle", {}), ("inform7", {})],
)
def test_lexers_with_token_variants(name: str, options: dict[str, object]) -> None:
    """These lexers choose their token table per instance (an option picks it), not per class."""
    code = 'using System;\nclass A { int f(string s) => s.Length > 0 ? 1 : 0; } // "<&>"\n'
    fast = accelerate(get_lexer_by_name(name, **options))
    stock = get_lexer_by_name(name, **options)
    assert list(fast.get_tokens(code)) == list(stock.get_tokens(code))
    assert highlight(code, fast) == pygments_highlight(code, stock, REFERENCE)
    assert _joined(fast).tokens is fast._tokens
    assert lexer_for(name) is not None


def test_lexer_with_its_own_tokenizer_is_left_alone() -> None:
    lexer = _stock("yaml")  # ExtendedRegexLexer: keeps its own loop
    assert "get_tokens_unprocessed" not in vars(accelerate(lexer))


code_text = st.text(
    alphabet=st.sampled_from(list("abcdefxyz_019 \n\t()[]{}:;,.'\"#\\/*+-=<>@$`!?%&|^~rfbu")),
    max_size=200,
)


@settings(max_examples=300, deadline=None)
@given(code=code_text, name=st.sampled_from(["python", "bash", "javascript", "rust", "sql"]))
def test_random_text_tokenizes_identically(code: str, name: str) -> None:
    fast, stock = lexer_for(name), _stock(name)
    assert fast is not None
    assert list(fast.get_tokens(code)) == list(stock.get_tokens(code))


# Formatter: the same HTML as Pygments' for any token stream, not only the streams lexers give

TOKEN_TYPES = [
    Token,
    Text,
    Whitespace,
    Error,
    Keyword,
    Keyword.Constant,
    Name,
    Name.Function.Magic,
    String.Double,
    Number.Integer,
    Comment.Single,
    Comment.Single.Custom,  # not a standard type: "c1 c1-Custom"
    Text.Custom,  # a non-standard child of a type without a class
    Token.Custom.Deeper,
]
token_value = st.text(alphabet=st.sampled_from(list("ab \n\t\r<>&\"'한€")), max_size=6)
token_stream = st.lists(st.tuples(st.sampled_from(TOKEN_TYPES), token_value), max_size=30)


@settings(max_examples=500, deadline=None)
@given(tokens=token_stream)
def test_formatter_matches_pygments_on_any_token_stream(
    tokens: list[tuple[_TokenType, str]],
) -> None:
    assert _format(tokens) == pygments_format(tokens, HtmlFormatter(nowrap=True))


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        [(Keyword, "")],
        [(Text, "\n")],
        [(Keyword, "\n\n")],
        [(Keyword, "a")],  # no final newline: Pygments ends the line anyway
        [(Keyword, "a\n")],
        [(Keyword, "a\n\n")],
        [(Keyword, "a"), (Keyword, "b"), (Name, "c")],  # one span for the two keywords
        [(Keyword, "a"), (Name, ""), (Keyword, "b")],  # an empty token keeps the span open
        [(Keyword, "a"), (Name, "\n"), (Keyword, "b")],  # a newline closes it
        [(Keyword, "a\nb"), (Keyword, "c\n\nd")],  # spans close and reopen at newlines
        [(Text, "x"), (Whitespace, " "), (Text, "<&>\"'")],  # quotes are not escaped
        [(Token, "t"), (Text, "u"), (Comment.Single.Custom, "v\n")],
    ],
)
def test_formatter_edge_cases(tokens: list[tuple[_TokenType, str]]) -> None:
    assert _format(tokens) == pygments_format(tokens, HtmlFormatter(nowrap=True))


# Whole blocks: lexer preprocessing (\r\n, a byte order mark, tabs) and random text

EDGE_CODE = [
    "",
    "\n",
    "\n\n\n",
    "x = 1",
    "x = 1\n\n",
    "\n\nx = 1\n",
    "a = 1\r\nb = '<&>'\r\n",
    "a = 1\rb = 2\r",
    "\ufeffprint('bom')\n",
    "if x:\n\tpass  # \ttab\n",
    "s = \"안녕하세요 <세계> & '따옴표'\"  # 한국어 주석\n",
    "x = 1 \u00a0\u2028 y\n",
]


@pytest.mark.parametrize("name", ["python", "bash", "json", "yaml", "text", "diff", "console"])
@pytest.mark.parametrize("code", EDGE_CODE)
def test_edge_blocks_same_html_as_pygments(name: str, code: str) -> None:
    fast = lexer_for(name)
    assert fast is not None
    assert highlight(code, fast) == pygments_highlight(code, _stock(name), REFERENCE)


@pytest.mark.parametrize(
    "options",
    [
        {"tabsize": 4},
        {"stripnl": True, "ensurenl": True},
        {"stripall": True},
        {"filters": ["whitespace"]},  # a filter that changes token values
        {"filters": ["codetagify"]},  # one that splits tokens and adds token types
    ],
)
def test_lexer_preprocessing_and_filters_are_kept(options: dict[str, object]) -> None:
    """`highlight` formats what `lexer.get_tokens` gives, preprocessed and filtered."""
    code = "\n\tdef f():  # TODO: <x>\r\n\t\treturn 'a  b'\n\n"
    lexer = accelerate(get_lexer_by_name("python", **options))
    assert highlight(code, lexer) == pygments_highlight(
        code, get_lexer_by_name("python", **options), REFERENCE
    )


def _corpus_block(rng: random.Random) -> str:
    """A block shaped like the benchmark corpus's (/work/shared/bench/gen_corpus.py)."""
    ident = ["batch", "req", "block", "cache", "page", "seq", "token", "slot", "kv", "head"]
    a, b, c = (rng.choice(ident) + "_" + str(rng.randint(0, 999)) for _ in range(3))
    return (
        f"def {a}({b}, {c}={rng.randint(1, 4096)}):\n"
        f"    for {c}_i in range(len({b})):\n"
        f"        {b}[{c}_i] = {b}[{c}_i] * {rng.random():.4f} + {c}\n"
        f"    return sum({b}) / max(len({b}), {rng.randint(1, 64)})\n"
    )


def test_corpus_shaped_blocks_same_html_as_pygments() -> None:
    rng = random.Random(5)
    fast, stock = lexer_for("python"), _stock("python")
    assert fast is not None
    for _ in range(50):
        code = _corpus_block(rng)
        assert highlight(code, fast) == pygments_highlight(code, stock, REFERENCE)


html_text = st.text(
    alphabet=st.sampled_from(
        [*"abcxyz_09 \n\n\t\r()[]{}:;,.'\"#\\/*+-=<>@$`!?%&|^~", "가", "한", "é", "€"]
    ),
    max_size=200,
)
HTML_LANGUAGES = [
    "python",
    "bash",
    "javascript",
    "typescript",
    "rust",
    "go",
    "c",
    "cpp",
    "java",
    "json",
    "yaml",
    "toml",
    "sql",
    "html",
    "css",
    "diff",
    "text",
    "console",
]


@settings(max_examples=400, deadline=None)
@given(code=html_text, name=st.sampled_from(HTML_LANGUAGES))
def test_random_text_same_html_as_pygments(code: str, name: str) -> None:
    fast = lexer_for(name)
    assert fast is not None
    assert highlight.__wrapped__(code, fast) == pygments_highlight(code, _stock(name), REFERENCE)


@settings(max_examples=400, deadline=None)
@given(code=html_text, name=st.sampled_from(HTML_LANGUAGES))
def test_random_text_tokenizes_identically_in_more_languages(code: str, name: str) -> None:
    fast = lexer_for(name)
    assert fast is not None
    assert list(fast.get_tokens(code)) == list(_stock(name).get_tokens(code))
