"""A msgstr must survive the `%` formatting templates apply to every translation (issue 16 #13)."""

from __future__ import annotations

import pytest

from bipub.render.catalogs import format_problem


@pytest.mark.parametrize(
    ("msgstr", "msgid"),
    [
        ("100%", "all"),  # fails at render: incomplete format
        ("최근 글 (100% 직접 씀)", "Latest posts"),  # fails at render: unsupported character
        ("100% done", "100%% done"),  # renders silently as "100 0one" (`% d` is a conversion)
        ("%(n)d%", "%(n)d"),
        ("%(count)s개", "%(n)s items"),  # a placeholder the msgid does not have
    ],
)
def test_a_percent_that_is_no_placeholder_of_the_msgid_is_reported(msgstr: str, msgid: str) -> None:
    problem = format_problem(msgstr, msgid)
    assert problem is not None and "not a placeholder" in problem


@pytest.mark.parametrize(
    ("msgstr", "msgid"),
    [
        ("100%% 완료", "100%% done"),
        ("%(n)d분 분량", "%(n)d min read"),
        ("%(n)d개 중 %(m)d개", "%(m)d of %(n)d"),
        ("글 %s개", "%s posts"),
        ("{name} 홈", "{name} home"),
    ],
)
def test_placeholders_and_escaped_percents_pass(msgstr: str, msgid: str) -> None:
    assert format_problem(msgstr, msgid) is None
