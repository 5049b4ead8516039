"""Segments (bipub.translate.segments) and inline XML (bipub.translate.markdown_xml): structure
stays local, every byte is accounted for, every loss is reported."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bipub.check import qa
from bipub.translate.markdown_xml import IGNORE_TAGS, PROTECTED, Loss, decode, encode_ui
from bipub.translate.segments import Layout, layout, structure, with_titles
from tests.deepl_fake import translate_text_value
from tests.deepl_fake.faults import FAULTS


def fake(xml: str, target: str) -> str:
    """What the DeepL fake answers for one text sent the way bipub sends it."""
    return translate_text_value(xml, target, tag_handling="xml", ignore_tags=IGNORE_TAGS)


def fill(lay: Layout, answer: Callable[[str], str]) -> tuple[str, list[Loss]]:
    """Every segment through `answer`, link titles first (as translate/writers.py does)."""
    bodies: list[str | None] = [None] * len(lay.segments)
    titles: dict[int, dict[int, str]] = {}
    losses: list[Loss] = []
    for seg in sorted(lay.segments, key=lambda s: s.parent is None):
        if not seg.needs_request:
            continue
        decoded = decode(answer(seg.encoded.xml), with_titles(seg, titles.get(seg.index, {})))
        bodies[seg.index] = decoded.text
        if seg.parent is not None:
            titles.setdefault(seg.parent[0], {})[seg.parent[1]] = decoded.text
        losses.extend(decoded.losses)
    return lay.fill(bodies), losses


def through(text: str, target: str, keep: tuple[str, ...] = (), title: bool = False) -> str:
    out, losses = fill(layout(text, keep, title=title), lambda x: fake(x, target))
    assert losses == []
    return out


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

> 인용문 <kbd>Ctrl</kbd>+<kbd>C</kbd> 그리고 $O(n^2)$ 각주[^1] 참고.

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


def test_the_skeleton_filled_with_the_source_is_the_source() -> None:
    lay = layout(DOC)
    assert lay.fill([None] * len(lay.segments)) == DOC
    assert lay.unlocated == ()
    assert lay.html == (22,)  # the HTML block with words: reported, never sent
    for seg in lay.segments:
        well_formed(seg.encoded.xml)


def test_an_identity_engine_keeps_the_structure_and_every_code_span() -> None:
    out, losses = fill(layout(DOC), lambda xml: xml)
    assert losses == []
    assert structure(out) == structure(DOC)
    assert qa.facts(out).code_spans == qa.facts(DOC).code_spans
    assert qa.facts(out).links == qa.facts(DOC).links


def test_structure_never_reaches_deepl() -> None:
    sent = "\n".join(s.encoded.xml for s in layout(DOC).segments if s.needs_request)
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
    ):
        assert secret not in sent, secret
    plain = re.sub(r"<[^>]*>", "", sent)
    assert not re.search(r"^(?:[-*>]|\d+\.) ", plain, re.M)  # no bullets, numbers, quotes
    for prose in ("처리량은", "측정 결과", "첫째 항목", "이어지는 줄", "인용문", "각주 내용"):
        assert prose in sent, prose
    assert '<a i="' in sent and ">문서</a>" in sent  # link text is translated, the target is not
    assert all("\n" not in s.encoded.xml for s in layout(DOC).segments)


def test_one_segment_per_block() -> None:
    kinds = [s.kind for s in layout(DOC).segments]
    assert kinds.count("heading") == 1
    assert kinds.count("cell") == 4  # four cells: each its own text
    lay = layout("| a b | c d |\n|---|---|\n| e f | g h |")
    assert [s.encoded.xml for s in lay.segments] == ["a b", "c d", "e f", "g h"]


def test_link_titles_are_segments_of_their_own() -> None:
    text = (
        '문서는 [여기](https://x.org/a "공식 문서")에 있고 그림은 ![구조](a.png (구조 그림))이다.'
    )
    lay = layout(text)
    assert [(s.kind, s.source, s.parent) for s in lay.segments[1:]] == [
        ("title", "공식 문서", (0, 1)),
        ("title", "구조 그림", (0, 3)),
    ]
    assert "공식" not in lay.segments[0].encoded.xml  # the title is not in the paragraph's text
    out = through(text, "EN-US")
    assert out == (
        'munseoneun [yeogi](https://x.org/a "gongsig munseo")e issgo geurimeun '
        "![gujo](a.png (gujo geurim))ida."
    )


def test_keep_terms_and_title_prefix() -> None:
    lay = layout("[vLLM] vLLM의 스케줄러와 PagedAttention", ("vLLM", "PagedAttention"), title=True)
    (seg,) = lay.segments
    assert seg.encoded.xml.startswith("<k>vLLM</k>의")
    assert "<k>PagedAttention</k>" in seg.encoded.xml
    assert lay.pieces[0] == "[vLLM] "
    out = through("[vLLM] vLLM의 스케줄러", "EN-US", ("vLLM",), title=True)
    assert out.startswith("[vLLM] vLLM") and "seukejulreo" in out


def test_keep_terms_match_whole_words_only() -> None:
    (seg,) = layout("vLLMx and vLLM, pre-vLLM", ("vLLM",)).segments
    assert seg.encoded.xml.count("<k>vLLM</k>") == 2


def test_only_code_or_numbers_has_no_prose() -> None:
    assert not layout("```sh\nmake\n```").segments
    assert not any(s.needs_request for s in layout("| 4 | 14.2 |\n|--|--|").segments)
    assert not any(s.needs_request for s in layout("`x` https://a.b/c").segments)
    assert all(s.needs_request for s in layout("run `x` now").segments)


def test_edges_that_are_not_words_are_trimmed_before_sending() -> None:
    (seg,) = layout("<b>주의</b>: 본문[^1]\n\n[^1]: 각주").segments[:1]
    assert seg.encoded.lead == "<b>" and seg.encoded.trail == "[^1]"
    assert seg.encoded.xml == '주의<x i="0"/>: 본문'
    (code,) = layout("`kubectl`로 배포한다").segments
    assert code.encoded.xml.startswith('<x i="0"/>')  # a code span is a word: it stays


def test_ui_strings_keep_placeholders_as_ignored_tags() -> None:
    source = "Posted on %(date)s by {name} — <b>new</b> &amp; 100%%"
    enc = encode_ui(source)
    assert "<k>%(date)s</k>" in enc.xml and "<k>{name}</k>" in enc.xml and "<k>%%</k>" in enc.xml
    assert "<b>" not in enc.xml and "&amp;amp;" not in enc.xml
    decoded = decode(fake(enc.xml, "KO"), enc)
    translated = enc.lead + decoded.text + enc.trail
    assert qa.check_placeholders(source, translated) == []
    assert "%(date)s" in translated and "{name}" in translated and "<b>" in translated


# --------------------------------------------------------------------------- losses


def test_a_lost_code_span_is_put_back_at_the_end_with_a_loss() -> None:
    (seg,) = layout("Run `make` and `test` now.").segments
    decoded = decode(seg.encoded.xml.replace('<x i="1"/>', ""), seg.encoded)
    assert decoded.text == "Run `make` and  now. `test`"
    assert decoded.losses == (Loss("protected", "`test`"),)


def test_a_lost_emphasis_or_link_keeps_the_words() -> None:
    (seg,) = layout("a **bold** word and [docs](https://x.org/d)").segments
    decoded = decode(re.sub(r"</?[ga][^>]*>", "", seg.encoded.xml), seg.encoded)
    assert decoded.text == "a bold word and docs"
    assert [loss.kind for loss in decoded.losses] == ["emphasis", "link"]
    assert "https://x.org/d" in decoded.losses[1].describe()


def test_unknown_placeholders_and_malformed_xml_are_reported() -> None:
    (seg,) = layout("Run `make` now.").segments
    decoded = decode(seg.encoded.xml + '<x i="99"/>', seg.encoded)
    assert decoded.malformed and any(loss.kind == "unknown" for loss in decoded.losses)
    broken = decode('Run <g i="0">make now', seg.encoded)
    assert broken.malformed and any(loss.kind == "malformed" for loss in broken.losses)
    assert "`make`" in broken.text  # the protected slot is still put back


def test_decode_closes_dangling_emphasis() -> None:
    (seg,) = layout("a **bold** word").segments
    decoded = decode(seg.encoded.xml.replace("</g>", ""), seg.encoded)
    assert decoded.text.count("**") == 2


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        # DeepL's answers with a space inside a tag: `** words**` would show its stars
        ('Out<g i="0"> put throughput</g> here', "Out **put throughput** here"),
        ('<g i="0">Output throughput </g>here', "**Output throughput** here"),
        ('처리 <g i="0"> 출력 처리량 </g>을 본다', "처리  **출력 처리량** 을 본다"),
    ],
)
def test_whitespace_inside_an_emphasis_goes_outside(answer: str, text: str) -> None:
    (seg,) = layout("**Output throughput** here").segments
    decoded = decode(answer, seg.encoded)
    assert decoded.text == text and decoded.losses == ()
    assert qa.facts(decoded.text).skeleton.stray == 0


def test_an_emphasis_around_nothing_is_a_lost_emphasis() -> None:
    """An answer `X<g i="0"></g> Output` gave `X**** Output`: four stars shown as text."""
    (seg,) = layout("**Output throughput** here").segments
    decoded = decode('Output<g i="0"></g> throughput here', seg.encoded)
    assert decoded.text == "Output throughput here"
    assert [loss.kind for loss in decoded.losses] == ["emphasis"]


def test_decode_accepts_reformatted_tags() -> None:
    (seg,) = layout("Use `x` here.").segments
    xml = seg.encoded.xml.replace('<x i="0"/>', "<x i='0'></x>")
    assert decode(xml, seg.encoded).text == "Use `x` here."


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("# 제목처럼", "paragraph"),
        ("1. 목록처럼", "paragraph"),
        ("- 목록처럼", "paragraph"),
        ("> 인용처럼", "paragraph"),
        ("```", "paragraph"),
        ("a | b", "cell"),
        ("제목 #", "heading"),
    ],
)
def test_an_answer_that_looks_like_structure_stays_words(answer: str, kind: str) -> None:
    text = {"paragraph": "- 항목\n\n문단", "cell": "| 칸 | 둘 |\n|--|--|", "heading": "## 제목"}[
        kind
    ]
    lay = layout(text)
    out = lay.fill([answer] * len(lay.segments))
    assert structure(out) == structure(text), out


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("https://x.y/z[^1]: n\n\n[^1]: 주석", "drop_one_tag"),  # would become a definition
        ("[^1]\n`>나+\n\n[^1]: 주석", "drop_one_tag"),  # a line start after a trimmed lead
        ("`x` <div>가</div>", "drop_one_tag"),  # would become an HTML block
    ],
)
def test_a_segment_that_would_start_a_block_after_a_loss_stays_words(text: str, fault: str) -> None:
    out, _ = fill(layout(text), lambda xml: FAULTS[fault](fake(xml, "EN-US")))
    assert structure(out) == structure(text), out


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
def test_edge_cases(text: str) -> None:
    lay = layout(text)
    assert lay.fill([None] * len(lay.segments)) == text
    out, _ = fill(lay, lambda xml: xml)
    assert structure(out) == structure(text)
    for seg in lay.segments:
        well_formed(seg.encoded.xml)


# --------------------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_skeleton_is_lossless_for_any_text(text: str) -> None:
    lay = layout(text)
    assert lay.fill([None] * len(lay.segments)) == text
    for seg in lay.segments:
        assert "\n" not in seg.encoded.xml
        well_formed(seg.encoded.xml)


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_ui_roundtrip_is_identity_for_any_text(text: str) -> None:
    enc = encode_ui(text)
    assert enc.lead + decode(enc.xml, enc).text + enc.trail == text
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
        kind = draw(
            st.sampled_from(["text", "code", "link", "titled", "image", "em", "strong", "url"])
        )
        phrase = draw(PHRASE)
        if kind == "code":
            parts.append(f"`{draw(CODE)}`")
        elif kind == "link":
            parts.append(f"[{phrase}]({draw(URL)})")
        elif kind == "titled":
            parts.append(f'[{phrase}]({draw(URL)} "{draw(PHRASE)}")')
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
@given(markdown(), st.sampled_from(["KO", "EN-US"]))
def test_pseudo_translation_keeps_code_links_numbers_and_structure(text: str, target: str) -> None:
    out = through(text, target)
    src, tr = qa.facts(text), qa.facts(out)
    assert tr.code_spans == src.code_spans  # byte for byte, in order
    assert tr.blocks == src.blocks
    assert tr.links == src.links
    assert tr.skeleton == src.skeleton  # headings, list items, tables, images
    assert structure(out) == structure(text)
    assert re.findall(r"\d+", out) == re.findall(r"\d+", text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown(), st.sampled_from(sorted(FAULTS)))
def test_under_any_fault_structure_holds_and_every_loss_is_reported(text: str, fault: str) -> None:
    lay = layout(text)
    out, losses = fill(lay, lambda xml: FAULTS[fault](fake(xml, "EN-US")))
    assert structure(out) == structure(text)
    assert qa.facts(out).blocks == qa.facts(text).blocks
    # every code span is there (a lost one put back), and each one put back is reported
    assert not Counter(qa.facts(text).code_spans) - Counter(qa.facts(out).code_spans)
    moved = Counter(qa.facts(out).code_spans) - Counter(qa.facts(text).code_spans)
    assert not moved
    # no emphasis marker shown as text that the source did not show, unless a loss says why
    if qa.facts(out).skeleton.stray > qa.facts(text).skeleton.stray:
        assert losses, out
    if fault == "drop_tags":
        sent = [s for s in lay.segments if s.needs_request]
        assert len([x for x in losses if x.kind == "protected"]) == sum(
            sum(1 for k in s.encoded.kinds if k in PROTECTED) for s in sent
        )


#: Markdown's sharp edges, to be glued together at random.
EDGES = st.sampled_from(
    [
        *list("ab 가나 \n\n\t#>-*+_`~|[]()!<>&$:\"'1.="),
        "```",
        "    ",
        "- ",
        "1. ",
        "> ",
        "| a | b |\n|---|---|\n",
        "[^1]",
        "[^1]: n\n",
        "<div>\n",
        "**",
        "https://x.y/z",
        "\\*",
        "  \n",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDGES, max_size=40).map("".join), st.sampled_from([None, *sorted(FAULTS)]))
# found by this test: `![^1]` was read as an image, so an engine that dropped its tag took the
# footnote reference with it (and the footnote's definition was no longer rendered)
@example(text="![^1]: n\n[^1]: n\n", fault="drop_one_tag")
# found by this test: a lead `[^1]` kept locally, and an answer that lost its tags starting with
# `: n`, made the paragraph a footnote's definition
@example(text="[^1]https://x.y/z[^1]: n\n", fault="drop_tags")
# found by this test at 20,000 examples: `<가>` is text, its translation `<ga>` a tag alone on its
# line, which starts an HTML block
@example(text="<가>", fault=None)
# and: a lost code span's tag moved "```" to the start of the paragraph's second line (a fence)
@example(text="a```\n```a```", fault="drop_one_tag")
def test_sharp_edged_markdown_keeps_its_structure_under_faults(
    text: str, fault: str | None
) -> None:
    def answer(xml: str) -> str:
        out = fake(xml, "EN-US")
        return FAULTS[fault](out) if fault else out

    lay = layout(text)
    assert lay.fill([None] * len(lay.segments)) == text
    out, _ = fill(lay, answer)
    assert structure(out) == structure(text), out
