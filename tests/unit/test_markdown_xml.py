"""Markdown ↔ XML for DeepL (bipub.translate.markdown_xml): lossless, and Markdown-safe."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bipub.check import qa
from bipub.translate.markdown_xml import (
    IGNORE_TAGS,
    decode,
    encode_markdown,
    encode_ui,
)
from tests.deepl_fake import translate_text_value


def fake(xml: str, target: str) -> str:
    """What the DeepL fake answers for one text sent the way bipub sends it."""
    return translate_text_value(xml, target, tag_handling="xml", ignore_tags=IGNORE_TAGS)


def through(text: str, target: str, keep: tuple[str, ...] = (), title: bool = False) -> str:
    enc = encode_markdown(text, keep, title=title)
    decoded = decode(fake(enc.xml, target), enc.slots)
    assert decoded.problems == ()
    return decoded.text


def well_formed(xml: str) -> None:
    ET.fromstring(f"<r>{xml}</r>")


# --------------------------------------------------------------------------- examples

DOC = """\
처리량은 **157 → 382** tokens/s가 됐다. `block_size`를 보자 ([문서](https://docs.vllm.ai/en/latest/?a=1&b=2 "제목")).

## 측정 결과

- 첫째 항목 *강조*와 https://example.org/x_y.
- 둘째 항목
  이어지는 줄

| 환경 | 값 |
|---|---:|
| H100 `nvlink` | 14.2 μs |

> 인용문 <kbd>Ctrl</kbd>+<kbd>C</kbd> 그리고 $O(n^2)$.

```python
def f(x):  # 주석도 그대로
    return x * 2
```

    indented code stays

<div class="note">
raw HTML block
</div>

[^1]: 각주 내용.

[ref]: https://example.org/ref
"""


def test_roundtrip_is_identity_on_a_rich_document() -> None:
    enc = encode_markdown(DOC)
    assert decode(enc.xml, enc.slots).text == DOC
    well_formed(enc.xml)


def test_protected_parts_never_reach_deepl() -> None:
    xml = encode_markdown(DOC).xml
    for secret in (
        "block_size",
        "https://docs.vllm.ai",
        "https://example.org/x_y",
        "def f(x)",
        "주석도",
        "indented code stays",
        "raw HTML block",
        "nvlink",
        "O(n^2)",
        "Ctrl",
        "https://example.org/ref",
        "```",
        "## ",
        "|",
        "\n",
    ):
        assert secret not in xml, secret
    for prose in ("처리량은", "측정 결과", "첫째 항목", "이어지는 줄", "인용문", "각주 내용"):
        assert prose in xml, prose
    assert '<a i="' in xml and ">문서</a>" in xml  # link text is translated, the target is not


def test_table_cells_are_separate_blocks() -> None:
    xml = encode_markdown("| a b | c d |\n|---|---|\n| e f | g h |").xml
    assert xml.count("<t>") == 4
    assert "a b" in xml and "g h" in xml


def test_keep_terms_and_title_prefix() -> None:
    enc = encode_markdown(
        "[vLLM] vLLM의 스케줄러와 PagedAttention", ("vLLM", "PagedAttention"), title=True
    )
    assert enc.xml.startswith('<x i="0"/><t>')
    assert "<k>vLLM</k>" in enc.xml and "<k>PagedAttention</k>" in enc.xml
    assert enc.slots[0] == "[vLLM] "
    out = through("[vLLM] vLLM의 스케줄러", "EN-US", ("vLLM",), title=True)
    assert out.startswith("[vLLM] vLLM") and "seukejulreo" in out


def test_keep_terms_match_whole_words_only() -> None:
    xml = encode_markdown("vLLMx and vLLM, pre-vLLM", ("vLLM",)).xml
    assert xml.count("<k>vLLM</k>") == 2


def test_only_code_or_numbers_has_no_prose() -> None:
    assert not encode_markdown("```sh\nmake\n```").has_prose
    assert not encode_markdown("| 4 | 14.2 |").has_prose
    assert not encode_markdown("`x` https://a.b/c").has_prose
    assert encode_markdown("run `x` now").has_prose


def test_ui_strings_keep_placeholders_as_ignored_tags() -> None:
    enc = encode_ui("Posted on %(date)s by {name} — <b>new</b> &amp; 100%%")
    assert "<k>%(date)s</k>" in enc.xml and "<k>{name}</k>" in enc.xml and "<k>%%</k>" in enc.xml
    assert "<b>" not in enc.xml and "&amp;amp;" not in enc.xml
    translated = decode(fake(enc.xml, "KO"), enc.slots).text
    assert (
        qa.check_placeholders("Posted on %(date)s by {name} — <b>new</b> &amp; 100%%", translated)
        == []
    )
    assert "%(date)s" in translated and "{name}" in translated and "<b>" in translated


def test_decode_reports_lost_and_unknown_placeholders() -> None:
    enc = encode_markdown("Run `make` and `test` now.")
    broken = enc.xml.replace('<x i="1"/>', "") + '<x i="99"/>'
    decoded = decode(broken, enc.slots)
    assert "`test`" not in decoded.text
    assert any("lost" in p for p in decoded.problems)
    assert any("unknown" in p for p in decoded.problems)


def test_decode_closes_dangling_emphasis() -> None:
    enc = encode_markdown("a **bold** word")
    decoded = decode(enc.xml.replace("</g>", ""), enc.slots)
    assert decoded.text.count("**") == 2


def test_decode_accepts_reformatted_tags() -> None:
    enc = encode_markdown("Use `x` here.")
    xml = enc.xml.replace('<x i="0"/>', "<x i='0'></x>")
    assert decode(xml, enc.slots).text == "Use `x` here."


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "*",
        "**a",
        "a*b*c",
        "snake_case_name and _emph_",
        "[",
        "[]()",
        "![](x.png)",
        "[a [b] c](u (v)) [x][y] [z]",
        "<not a tag",
        "a\tb\r\nc\x00d\u2028e\ufeff",
        "> > nested\n>\n> - item",
        "1. one\n2) two\n   - nested *x*\n\n     code after list?",
        "~~~\nunclosed fence",
        "$$\nx\n$$ after",
        "&copy; &#169; &#xA9; & ;",
        "Setext\n======\n\ntext\n---",
        "  \\*not emphasis\\* `` a ` b ``",
    ],
)
def test_roundtrip_edge_cases(text: str) -> None:
    enc = encode_markdown(text)
    assert decode(enc.xml, enc.slots).text == text
    well_formed(enc.xml)


# --------------------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_roundtrip_is_identity_for_any_text(text: str) -> None:
    enc = encode_markdown(text)
    assert decode(enc.xml, enc.slots).text == text
    assert "\n" not in enc.xml
    well_formed(enc.xml)


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_ui_roundtrip_is_identity_for_any_text(text: str) -> None:
    enc = encode_ui(text)
    assert decode(enc.xml, enc.slots).text == text
    well_formed(enc.xml)


WORDS = st.sampled_from(
    ["the", "cache", "batch", "Scheduler", "처리량", "캐시를", "블록", "요청이", "42", "3.5", "157"]
)
PHRASE = st.lists(WORDS, min_size=1, max_size=5).map(" ".join)
CODE = st.sampled_from(["x", "block_size", "a * b", "f(x)[0]", "--max-num-seqs", "<T>", "$PATH"])
URL = st.sampled_from(
    ["https://example.org/a_b", "https://docs.vllm.ai/en/?q=1&r=2", "http://x.io/p*q*", "/ko/blog/"]
)


@st.composite
def inline(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["text", "code", "link", "image", "em", "strong", "url"]))
        phrase = draw(PHRASE)
        if kind == "code":
            parts.append(f"`{draw(CODE)}`")
        elif kind == "link":
            parts.append(f"[{phrase}]({draw(URL)})")
        elif kind == "image":
            parts.append(f"![{phrase}]({draw(URL)})")
        elif kind == "em":
            parts.append(f"*{phrase}*")
        elif kind == "strong":
            parts.append(f"**{phrase}**")
        elif kind == "url" and draw(URL).startswith("http"):
            parts.append(draw(URL))
        else:
            parts.append(phrase)
    return " ".join(parts)


@st.composite
def markdown(draw: st.DrawFn) -> str:
    blocks = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["para", "heading", "list", "fence", "table", "quote"]))
        if kind == "para":
            lines = draw(st.lists(inline(), min_size=1, max_size=3))
            blocks.append("\n".join(lines))
        elif kind == "heading":
            blocks.append("#" * draw(st.integers(1, 4)) + " " + draw(inline()))
        elif kind == "list":
            marker = draw(st.sampled_from(["-", "*", "1."]))
            items = draw(st.lists(inline(), min_size=1, max_size=4))
            blocks.append("\n".join(f"{marker} {item}" for item in items))
        elif kind == "fence":
            code = draw(st.lists(CODE, min_size=1, max_size=3))
            blocks.append("```python\n" + "\n".join(code) + "\n```")
        elif kind == "table":
            cols = draw(st.integers(1, 3))
            rows = draw(st.integers(1, 3))
            cell = PHRASE | CODE.map(lambda c: f"`{c}`") | URL.map(lambda u: f"[x]({u})")
            lines = [
                "| " + " | ".join(draw(cell) for _ in range(cols)) + " |",
                "|" + "---|" * cols,
            ]
            for _ in range(rows):
                lines.append("| " + " | ".join(draw(cell) for _ in range(cols)) + " |")
            blocks.append("\n".join(lines))
        else:
            blocks.append("> " + draw(inline()))
    return "\n\n".join(blocks)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown())
def test_generated_markdown_roundtrips(text: str) -> None:
    enc = encode_markdown(text)
    assert decode(enc.xml, enc.slots).text == text
    well_formed(enc.xml)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown(), st.sampled_from(["KO", "EN-US"]))
def test_pseudo_translation_keeps_code_links_numbers_and_structure(text: str, target: str) -> None:
    out = through(text, target)
    src, tr = qa.facts(text), qa.facts(out)
    assert tr.code_spans == src.code_spans  # byte for byte, in order
    assert tr.blocks == src.blocks
    assert tr.links == src.links
    assert tr.skeleton == src.skeleton  # headings, list items, tables, images
    assert re.findall(r"\d+", out) == re.findall(r"\d+", text)
    assert out.count("\n") == text.count("\n")
