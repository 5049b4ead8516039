"""The joined-rules tokenizer (render/highlight.py) gives exactly Pygments' tokens and HTML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments import highlight as pygments_highlight
from pygments.lexers import get_lexer_by_name

from bipub.render.highlight import _FORMATTER, _joined, accelerate, highlight, lexer_for

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
}


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
    assert highlight(code, fast) == pygments_highlight(code, stock, _FORMATTER)


def test_demo_code_blocks_are_unchanged() -> None:
    blocks = _demo_blocks()
    assert blocks, "the demo has code blocks"
    for name, code in blocks:
        fast, stock = lexer_for(name), _stock(name)
        assert fast is not None
        assert highlight(code, fast) == pygments_highlight(code, stock, _FORMATTER), name


def test_python_states_are_all_joined() -> None:
    """The speed-up is really in use (a Pygments upgrade that defeats it should be noticed)."""
    lexer = lexer_for("python")
    assert lexer is not None
    states = _joined(type(lexer))
    names = list(states.tokens)
    assert names and all(states[name][0] is not None for name in names)


def test_states_are_joined_when_first_used() -> None:
    """A fresh lexer class compiles no joined pattern until a block needs one."""
    lexer = lexer_for("rust")
    assert lexer is not None
    states = _joined(type(lexer))
    states.clear()
    highlight("let x = 1;", lexer)
    assert "root" in states and len(states) < len(states.tokens)


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
