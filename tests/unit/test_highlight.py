"""render/highlight.py gives exactly Pygments' tokens (the joined-rules tokenizer) and exactly the
HTML of `HtmlFormatter(nowrap=True)` (its own formatter)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import format as pygments_format
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import RegexLexer, bygroups, default
from pygments.lexers import find_lexer_class_by_name, get_all_lexers, get_lexer_by_name
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Punctuation,
    String,
    Text,
    Token,
    Whitespace,
    _TokenType,
)

import bipub.render.first_chars as fc
import bipub.render.highlight as hl
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


# The tokenizer's modes: a state runs Pygments' loop over all its rules until it has been used
# enough to pay for finding its rules' first characters, then loops over the rules that can start
# with the next character, and joins each such group of rules once used enough. The tests run
# each mode on its own ("eager": everything analysed and joined at once; "loop": analysed at
# once, never joined), the thresholds as built in a warm process ("default") and a fresh one
# ("fresh": a block or two stays in Pygments' loop), and modes switching within a block ("mixed").
MODES = {  # analysis and join threshold factors, as in a fresh process
    "default": (1.0, 1.0, False),
    "fresh": (1.0, 1.0, True),
    "eager": (0.0, 0.0, False),
    "loop": (0.0, 1e18, False),
    "mixed": (0.002, 0.0005, True),
}


class _AsIfNew(dict):  # type: ignore[type-arg]
    """A memo that still serves what it holds, but tells the thresholds nothing is there yet
    (they count only the work not done already), as in a fresh process."""

    def __contains__(self, key: object) -> bool:
        return False


@contextmanager
def dispatch_mode(mode: str) -> Iterator[None]:
    """Run with `mode`'s thresholds, on states prepared afresh (the states memo is swapped)."""
    saved = hl._ANALYSE_AFTER, hl._JOIN_AFTER, hl._JOINED, hl._FIRSTS, hl._COMBINED
    hl._ANALYSE_AFTER, hl._JOIN_AFTER, fresh = MODES[mode]
    hl._JOINED = {}
    if fresh:
        hl._FIRSTS, hl._COMBINED = _AsIfNew(hl._FIRSTS), _AsIfNew(hl._COMBINED)
    try:
        yield
    finally:
        hl._ANALYSE_AFTER, hl._JOIN_AFTER, hl._JOINED, hl._FIRSTS, hl._COMBINED = saved


def _demo_blocks() -> list[tuple[str, str]]:
    blocks = []
    for path in sorted((REPO / "content").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        blocks += re.findall(r"```([a-z]+)\n(.*?)```", text, re.S)
    return [(name, code) for name, code in blocks if name != "mermaid"]  # diagrams: drawn


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_same_tokens_and_html_as_pygments(name: str, mode: str) -> None:
    fast, stock = lexer_for(name), _stock(name)
    assert fast is not None
    code = SAMPLES[name]
    with dispatch_mode(mode):
        assert list(fast.get_tokens(code)) == list(stock.get_tokens(code))
        assert highlight.__wrapped__(code, fast) == pygments_highlight(code, stock, REFERENCE)
    assert highlight(code, fast) == pygments_highlight(code, stock, REFERENCE)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_demo_code_blocks_are_unchanged(mode: str) -> None:
    blocks = _demo_blocks()
    assert blocks, "the demo has code blocks"
    with dispatch_mode(mode):
        for name, code in blocks:
            fast, stock = lexer_for(name), _stock(name)
            assert fast is not None
            expected = pygments_highlight(code, stock, REFERENCE)
            assert highlight.__wrapped__(code, fast) == expected, name


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


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize(
    ("name", "options"),
    [("csharp", {}), ("csharp", {"unicodelevel": "full"}), ("nemerle", {}), ("inform7", {})],
)
def test_lexers_with_token_variants(name: str, options: dict[str, object], mode: str) -> None:
    """These lexers choose their token table per instance (an option picks it), not per class."""
    code = 'using System;\nclass A { int f(string s) => s.Length > 0 ? 1 : 0; } // "<&>"\n'
    fast = accelerate(get_lexer_by_name(name, **options))
    stock = get_lexer_by_name(name, **options)
    with dispatch_mode(mode):
        assert list(fast.get_tokens(code)) == list(stock.get_tokens(code))
        assert highlight.__wrapped__(code, fast) == pygments_highlight(code, stock, REFERENCE)
        assert _joined(fast).tokens is fast._tokens
    assert lexer_for(name) is not None


def test_lexer_with_its_own_tokenizer_is_left_alone() -> None:
    lexer = _stock("yaml")  # ExtendedRegexLexer: keeps its own loop
    assert "get_tokens_unprocessed" not in vars(accelerate(lexer))


code_text = st.text(
    alphabet=st.sampled_from(list("abcdefxyz_019 \n\t()[]{}:;,.'\"#\\/*+-=<>@$`!?%&|^~rfbu")),
    max_size=200,
)


@settings(max_examples=400, deadline=None)
@given(
    code=code_text,
    name=st.sampled_from(["python", "bash", "javascript", "rust", "sql"]),
    mode=st.sampled_from(sorted(MODES)),
)
def test_random_text_tokenizes_identically(code: str, name: str, mode: str) -> None:
    fast, stock = lexer_for(name), _stock(name)
    assert fast is not None
    with dispatch_mode(mode):
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
    triples = [(0, ttype, value) for ttype, value in tokens]  # (as get_tokens_unprocessed)
    assert _format(triples) == pygments_format(tokens, HtmlFormatter(nowrap=True))


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
    triples = [(0, ttype, value) for ttype, value in tokens]  # (as get_tokens_unprocessed)
    assert _format(triples) == pygments_format(tokens, HtmlFormatter(nowrap=True))


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


@pytest.mark.parametrize("mode", ["default", "eager", "loop"])
@pytest.mark.parametrize("name", ["python", "bash", "json", "yaml", "text", "diff", "console"])
@pytest.mark.parametrize("code", EDGE_CODE)
def test_edge_blocks_same_html_as_pygments(name: str, code: str, mode: str) -> None:
    fast = lexer_for(name)
    assert fast is not None
    with dispatch_mode(mode):
        assert highlight.__wrapped__(code, fast) == pygments_highlight(
            code, _stock(name), REFERENCE
        )


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


@pytest.mark.parametrize("mode", sorted(MODES))
def test_corpus_shaped_blocks_same_html_as_pygments(mode: str) -> None:
    rng = random.Random(5)
    fast, stock = lexer_for("python"), _stock("python")
    assert fast is not None
    with dispatch_mode(mode):
        for _ in range(50):
            code = _corpus_block(rng)
            assert highlight.__wrapped__(code, fast) == pygments_highlight(code, stock, REFERENCE)


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


@settings(max_examples=500, deadline=None)
@given(code=html_text, name=st.sampled_from(HTML_LANGUAGES), mode=st.sampled_from(sorted(MODES)))
def test_random_text_same_html_as_pygments(code: str, name: str, mode: str) -> None:
    fast = lexer_for(name)
    assert fast is not None
    with dispatch_mode(mode):
        expected = pygments_highlight(code, _stock(name), REFERENCE)
        assert highlight.__wrapped__(code, fast) == expected


@settings(max_examples=500, deadline=None)
@given(code=html_text, name=st.sampled_from(HTML_LANGUAGES), mode=st.sampled_from(sorted(MODES)))
def test_random_text_tokenizes_identically_in_more_languages(
    code: str, name: str, mode: str
) -> None:
    fast = lexer_for(name)
    assert fast is not None
    with dispatch_mode(mode):
        assert list(fast.get_tokens(code)) == list(_stock(name).get_tokens(code))


# First characters: the rules that can match where a character comes next


def _first_chars(pattern: str, flags: int = 0) -> fc.FirstChars | None:
    return fc.first_test(re.compile(pattern, flags))


FIRST_CHARS = [  # pattern, flags, characters it must include, characters it must leave out
    ("abc", 0, "a", "bAx"),
    ("(?i)k", 0, "kK\u212a", "x"),  # the Kelvin sign folds to k
    ("k", re.IGNORECASE, "kK\u212a", "x"),
    ("(?i)s", 0, "sS\u017f", "t"),  # and the long s to s
    ("(?i:\u017f)x", 0, "sS\u017f", "xt"),
    ("(?i)[a-z]", 0, "aZ\u212a\u017f\u0130\u0131", "0_"),  # İ and ı fold to i
    ("(?i)[^a]", 0, "bB", "aA"),
    ("(?i)\u03c3", 0, "\u03c3\u03c2\u03a3", "s"),  # σ, final ς, Σ
    ("(?i)\u00b5", 0, "\u00b5\u03bc\u039c", "u"),  # micro sign, μ, Μ
    ("(?i)\u00df", 0, "\u00df\u1e9e", "s"),  # ß, ẞ
    ("[^\\W\\d]", 0, "a_é", "0 -"),
    ("\\w", 0, "a_é0\u0663", " -"),
    ("\\d", 0, "0\u0663", "a"),  # ٣ is a digit
    ("\\S", 0, "a-", " \n\t\u00a0"),
    ("[^\\S\\n]+", 0, " \t\u00a0\u2028", "\na"),
    ("(?a:\\w)", 0, "a_", "é"),
    ("a?b", 0, "ab", "c"),
    ("a*?b", 0, "ab", "c"),
    ("(?:ab|cd)*e", 0, "ace", "bdx"),
    ("((?:(x)|y?)z)", 0, "xyz", "a"),
    ("(?=x)\\w+", 0, "x", " "),  # a lookahead consumes nothing: what follows decides
    ("(?!x)[xy]", 0, "y", "z"),
    ("(?<=a)b", 0, "b", "a"),
    ("\\bfoo", 0, "f", "o "),
    ("^#", re.MULTILINE, "#", " "),
    ("\\A#!", 0, "#", "!"),
    ("x{0}y", 0, "y", "z"),
    ("(?>ab)c", 0, "a", "bc"),
    ("a++b", 0, "a", "b"),
    ("(?i)a(?-i:b)", 0, "aA", "bB"),
    ("(?i)(?-i:a)x", 0, "a", "Ax"),
    ("(?i:a)b", 0, "aA", "bB"),
    (".", 0, "a\x00 ", "\n"),
    ("(?s).", 0, "\n", ""),
    ("[\u4e00-\u9fff]+", 0, "\u4e00\u9fff", "\u4dff\ua000a"),  # a range too wide to list
    ("[+\\-*/]", 0, "+-*/", "a"),
    ("(a)\\1", 0, "a", "b"),  # a back-reference after the first character does not matter
    ("(?x) a  # comment", 0, "a", " #"),
]
ANY_START = [  # rules that may match the empty string, or that the analysis gives up on
    "",
    "a*",
    "a?",
    "(?:a|)",
    "x{0}",
    "(?=a)",
    "(?!a)",
    "\\b",
    "$",
    "^",
    "(a?)\\1b",  # a back-reference that may come first
    "(?P<q>a?)(?P=q)b",
    "(a)?(?(1)b|c)",  # a conditional group
]
PROBE = (
    "".join(chr(c) for c in range(32, 127))
    + "\n\t\r\x00\u00a0\u2028\u017f\u212a\u0130\u0131\u03c3\u03c2\u03a3\u00b5\u03bc\u039c"
    + "\u00df\u1e9eé\u0663\u4e00\u9fff\u4dff\ua000"
)
SUFFIXES = ["", "a", "b", "c", "e", "x", "z", "!", " ", "\n", "ab", "bc", "oo", "foo", "b b"]


@pytest.mark.parametrize(("pattern", "flags", "inside", "outside"), FIRST_CHARS)
def test_first_characters(pattern: str, flags: int, inside: str, outside: str) -> None:
    first = _first_chars(pattern, flags)
    assert first is not None
    assert [c for c in inside if c not in first] == []
    assert [c for c in outside if c in first] == []


@pytest.mark.parametrize("pattern", ANY_START)
def test_rules_that_may_start_anywhere(pattern: str) -> None:
    assert _first_chars(pattern) is None


@pytest.mark.parametrize(("pattern", "flags"), [(p, f) for p, f, _, _ in FIRST_CHARS])
def test_first_characters_hold_every_match(pattern: str, flags: int) -> None:
    """The analysis may list characters no match starts with, never leave one out: every match of
    the pattern on probe texts starts with a listed character."""
    compiled, first = re.compile(pattern, flags), _first_chars(pattern, flags)
    assert first is not None
    missed = [
        c + suffix
        for c in PROBE
        for suffix in SUFFIXES
        if compiled.match(c + suffix) and c not in first
    ]
    assert missed == []


def test_first_items_survive_their_regex_text() -> None:
    """`_item_regex` writes back what the parser read, for every first item of the sample
    languages' rules (a new `re._parser` that reads them differently would be noticed)."""
    from re import _parser  # type: ignore[attr-defined]

    checked = 0
    for name in SAMPLES:
        lexer = lexer_for(name)
        assert lexer is not None
        for rules in getattr(lexer, "_tokens", {}).values():
            for rexmatch, _, _ in rules:
                pattern = getattr(rexmatch, "__self__", None)
                if not isinstance(pattern, re.Pattern):
                    continue
                parsed = _parser.parse(pattern.pattern, pattern.flags)
                items: list[fc.Item] = []
                try:
                    fc.first_items(parsed, parsed.state.flags, items)
                except fc.Unknown:
                    continue
                for _flags, op, av in items:
                    assert _parser.parse(fc.item_regex(op, av)).data == [(op, av)]
                    checked += 1
    assert checked > 500


class TrickyLexer(RegexLexer):
    """Rules the first-character analysis must get right, end to end."""

    name = "tricky"
    tokens = {
        "root": [
            (r"(?i)\u017fk", Keyword),  # case folding: also "SK", "sK", ...
            (r"(?i)s", Name.Builtin),
            (r"k(?=x)", Name.Label, "after"),  # a lookahead
            (r"\bK\b", Name.Constant),
            (r"(?=\d)", Text, "number"),  # an empty match that changes state
            (r"@", Punctuation, "cond"),
            (r"[^\W\d]+", Name),
            (r"(\s*)(#)(.*?)$", bygroups(Whitespace, Comment, Comment)),  # a callback
            (r"[^\S\n]+", Whitespace),
            (r"[^\n$]", String),
        ],
        "number": [(r"\d+", Number, "#pop"), default("#pop")],
        "after": [(r"x", Punctuation), (r"$", Text, "#pop"), default("#pop")],  # `$`: at the end
        "cond": [(r"(a)?(?(1)b|c)", Keyword), default("#pop")],  # not joinable: Pygments' loop
    }


tricky_text = st.text(
    alphabet=st.sampled_from(list("\u017fSsKk\u212a\u0130x019 \n\t#@abc_é$가")), max_size=60
)


@settings(max_examples=500, deadline=None)
@given(code=tricky_text, mode=st.sampled_from(sorted(MODES)))
def test_tricky_rules_tokenize_identically(code: str, mode: str) -> None:
    fast, stock = (
        accelerate(TrickyLexer(stripnl=False, ensurenl=False)),
        TrickyLexer(stripnl=False, ensurenl=False),
    )
    with dispatch_mode(mode):
        assert list(fast.get_tokens(code)) == list(stock.get_tokens(code))


TRICKY_CODE = [
    "",
    "kx",
    "kx\n",
    "kxx",
    "k",
    "9",
    "x9",
    "@",
    "@ab",
    "@c",
    "@",
    "\u017fk",
    "SK",
    "s\u212a",
    "# c",
    "  #",
    "$",
    "K K",
    "\u0130",
    "가$",
]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_tricky_edge_texts_tokenize_identically(mode: str) -> None:
    """Deterministic texts for the tricky rules: empty matches at the end of the text ("kx"
    leaves the `$` rule matching there), folding, the state that cannot be joined."""
    fast, stock = (
        accelerate(TrickyLexer(stripnl=False, ensurenl=False)),
        TrickyLexer(stripnl=False, ensurenl=False),
    )
    with dispatch_mode(mode):
        for code in TRICKY_CODE:
            assert list(fast.get_tokens(code)) == list(stock.get_tokens(code)), code


def _sampled_lexers() -> list[str]:
    """Every 12th lexer that uses Pygments' own RegexLexer loop (the whole list takes a minute;
    a one-off sweep over all of them found no difference)."""
    names = []
    for _name, aliases, _, _ in sorted(get_all_lexers()):
        if aliases and aliases[0] != "mcschema":  # mcschema's own lexer hangs on some texts
            cls = find_lexer_class_by_name(aliases[0])
            if cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed:
                names.append(aliases[0])
    return names[::12]


def _vocabulary_text(lexer: RegexLexer, rng: random.Random) -> str:
    """Random text of the lexer's own words and symbols (its patterns' literal pieces)."""
    words = sorted(
        {
            word
            for rules in lexer._tokens.values()
            for rexmatch, _, _ in rules
            for word in re.findall(
                r"[A-Za-z_]\w{1,12}|[^\w\s\\()\[\]|?*+{}^$.]{1,3}",
                getattr(getattr(rexmatch, "__self__", None), "pattern", ""),
            )
        }
    )
    extra = list(" \n\t()[]{}'\"#;,.=<>:/\\*-+$%@!?`&|^~0123456789\u017f\u212a가é")
    parts = [
        rng.choice(words) if words and rng.random() < 0.6 else rng.choice(extra) for _ in range(60)
    ]
    return "".join(p + rng.choice(["", " ", "\n", "(", '"']) for p in parts)


@pytest.mark.parametrize("mode", ["eager", "loop"])
def test_sampled_lexers_tokenize_identically(mode: str) -> None:
    rng = random.Random(11)
    with dispatch_mode(mode):
        for name in _sampled_lexers():
            fast, stock = lexer_for(name), _stock(name)
            assert fast is not None
            for code in ["", "\n", "x", *(_vocabulary_text(stock, rng) for _ in range(4))]:
                assert list(fast.get_tokens(code)) == list(stock.get_tokens(code)), (name, code)


def test_states_are_analysed_and_joined_when_used_enough() -> None:
    """A block or two runs Pygments' loop (finding first characters costs more than they save);
    a state used long enough is analysed, then its busy groups of rules are joined."""
    lexer = lexer_for("python")
    assert lexer is not None
    rng = random.Random(3)
    with dispatch_mode("fresh"):
        highlight.__wrapped__(_corpus_block(rng), lexer)
        root = _joined(lexer)["root"][1].__self__  # type: ignore[attr-defined]
        assert root.tests is None and not root.table
        for _ in range(200):
            highlight.__wrapped__(_corpus_block(rng), lexer)
        assert root.tests is not None
        assert any(joined[0] is not None for joined in root.table.values())  # some joined


def test_mixed_mode_switches_within_a_block() -> None:
    """The "mixed" thresholds move Python's main state through all three ways in one block."""
    lexer = lexer_for("python")
    assert lexer is not None
    with dispatch_mode("mixed"):
        states = _joined(lexer)
        tokens = lexer.get_tokens_unprocessed(_corpus_block(random.Random(1)))
        next(tokens)
        assert states["root"][1].__self__.tests is None  # type: ignore[attr-defined]
        list(tokens)
        assert states["root"][1].__self__.tests is not None  # type: ignore[attr-defined]
        table = states["root"][0]
        assert table is not None
        assert any(joined[0] is not None for joined in table.values())  # some group joined


def test_python_rules_have_first_characters() -> None:
    """The speed-up is in use: Python's main state has few rules that may start anywhere, and
    the rules tried before a name are a small part of the state's."""
    lexer = lexer_for("python")
    assert lexer is not None
    with dispatch_mode("eager"):
        highlight.__wrapped__("x = 1\n", lexer)
        table, fill, rules = _joined(lexer)["root"]
        assert table is not None
        assert sum(test is None for test in fill.__self__.tests) <= 2  # type: ignore[attr-defined]
        for char in "xdf(":  # a name, keywords (def, for, from), punctuation
            assert 0 < len(fill(char)[2]) * 4 < len(rules), char
