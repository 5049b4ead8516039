"""Front matter → load → validate → pair raises only bipub's own errors, whatever the file holds.

Hypothesis writes generated posts (and CV files) into a copy of the 'minimal' project and drives
`load_content` and `pair_site`: every problem must come back as a Diagnostic naming the file, with
a line inside it or none — never an exception, never a value that crashes a later stage.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bipub.config import load_config
from bipub.diagnostics import Collector
from bipub.load.content import load_content
from bipub.load.front_matter import FrontMatterError, split_front_matter
from bipub.load.text import TextDecodeError, decode_text
from bipub.load.yaml_strict import YamlError, load_yaml
from bipub.pair.site import pair_site
from tests.conftest import PROJECTS

FIELDS = ["title", "description", "date", "updated", "tags", "series", "series_order", "draft"]
FIELDS += ["slug", "key", "pdf", "source_lang", "unknown", "title ", "Title", "날짜", "<<"]

_ODD = ["\u200b", "\u202e", "\u3164", "\ufeff", "\x85", "\u2028", "\x00", "\x07", "é", "😀"]
_scalar_chars = st.sampled_from([*"abz가한글09-_.:/#&*!|>'\"[]{},%@`?~ \t\\", *_ODD])
plain = st.text(_scalar_chars, max_size=12)
special = st.sampled_from(
    [
        "no",
        "NO",
        "yes",
        "on",
        "off",
        "~",
        "null",
        "true",
        "False",
        "012",
        "0o17",
        "0x1F",
        "1:30",
        "1_000",
        ".inf",
        ".nan",
        "-0",
        "1e3",
        "2024-02-30",
        "2024-02-29",
        "2026-04-07",
        "2026-13-01",
        "9999-99-99",
        "0000-00-00",
        "2026-04-07T10:00:00Z",
        "'quoted'",
        '"\\ud800"',
        '"\\udc00x"',
        '"\\U0001F600"',
        '"\\x00"',
        '"\\e"',
        "!!binary aGk=",
        "!!python/object:os.system x",
        "!!timestamp 2001-12-14",
        "!!str 12",
        "!!int x",
        "&a x",
        "*a",
        "[" * 60,
        "{" * 60,
        "|\n  block\n",
        ">-\n  folded\n",
        "[a, [b, [c]]]",
        "{a: 1}",
        "? complex",
        "- item",
        "\t",
        "'",
        '"',
    ]
)
value = st.recursive(
    st.one_of(plain, special, st.integers(-(10**20), 10**20).map(str)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.dictionaries(st.sampled_from(FIELDS), inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
        ),
    ),
    max_leaves=8,
)
front_matter = st.lists(st.tuples(st.sampled_from(FIELDS), value), max_size=8).map(
    lambda items: "".join(f"{k}: {v}\n" for k, v in items)
)
body = st.lists(
    st.sampled_from([*"# *[]()<>`!-\n한a:/&;", "javascript:", "\r\n"]), max_size=30
).map("".join)
fences = st.sampled_from(["---\n", "---\r\n", "\ufeff---\n", "---", "--- \n", "...\n", ""])


@contextmanager
def project() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "minimal"
        shutil.copytree(PROJECTS / "minimal", root)
        yield root


CONFIG = load_config(PROJECTS / "minimal")


def _load_and_pair(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    collector = Collector()
    content = load_content(root, CONFIG, collector)  # must not raise
    if not collector.errors:
        pair_site(root, CONFIG, content, collector)  # must not raise either
    for d in collector:
        assert d.file is None or not d.file.startswith("/"), d
        if d.file in files and d.line is not None:
            assert 1 <= d.line <= files[d.file].count(b"\n") + 2, d.format()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fences, front_matter, fences, body)
@example("---\n", 'title: "\\ud800"\ndate: 2026-04-07\n', "---\n", "x")
@example("---\n", "title: " + "[" * 3000 + "\n", "---\n", "x")
@example("---\n", "title: &a x\ntags: [*a, *a]\n", "---\n", "x")
@example("---\n", "title: t\ndate: 2024-02-30\nslug: /etc/x\n", "---\n", "[x](javascript:1)")
@example("---\n", "title: t\ndate: 2026-04-07\ntags: ['', '\u3164']\nseries: '!!'\n", "---\n", "x")
def test_generated_posts_give_only_diagnostics(
    open_fence: str, yaml_text: str, close_fence: str, text: str
) -> None:
    data = (open_fence + yaml_text + close_fence + text).encode("utf-8", "surrogatepass")
    with project() as root:
        _load_and_pair(root, {"content/ko/posts/fuzz.md": data, "content/en/posts/alpha.md": data})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
@example(b"---\ntitle: \xed\xa0\x80\n---\n")  # CESU-8 surrogate: invalid UTF-8
@example(b"\xef\xbb\xbf---\r\ntitle: t\r\ndate: 2026-04-07\r\n---\r\nx")
def test_arbitrary_bytes_give_only_diagnostics(data: bytes) -> None:
    with project() as root:
        _load_and_pair(
            root, {"content/ko/posts/fuzz.md": b"---\n" + data, "content/ko/cv.yaml": data}
        )


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_low_level_loaders_raise_only_their_own_errors(data: bytes) -> None:
    try:
        text = decode_text(data, "f.md")
        split = split_front_matter(text, "f.md")
        load_yaml(split.yaml_text, "f.md", line_offset=split.yaml_line - 1)
    except (TextDecodeError, FrontMatterError, YamlError):
        pass
