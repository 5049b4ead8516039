"""urls.encode leaves a path of unreserved characters as it is without calling quote(): the
result must be quote()'s on any text."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from bipub.render.urls import encode


@given(st.text(alphabet=st.sampled_from("aZ09-._~/ %?#&+=:가\u00e9\x00\n")))
def test_encode_is_quote(path: str) -> None:
    assert encode(path) == quote(path, safe="/-._~")


@given(st.text())
def test_encode_is_quote_on_any_text(path: str) -> None:
    assert encode(path) == quote(path, safe="/-._~")


def test_plain_and_korean_paths() -> None:
    assert encode("/ko/blog/post-00042/") == "/ko/blog/post-00042/"
    assert encode("/ko/tags/서빙/") == "/ko/tags/%EC%84%9C%EB%B9%99/"
