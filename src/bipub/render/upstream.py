"""The upstream versions bipub's two fast paths were verified against, and whether to use them.

- render/markdown_fast.py replaces rules inside markdown-it-py (and the footnote plugin of
  mdit-py-plugins) with dispatchers that give the same tokens faster;
- render/template_fast.py gives the Jinja templates a faster `escape` (the function the code Jinja
  compiles a template to calls for every `{{ … }}`), built on MarkupSafe's private
  `_escape_inner` and set through Jinja's private `Template._from_namespace`, a Context whose
  `call` (every `f(…)` in a template) relies on how Jinja's `Context.call` and `_PassArg` work,
  and a code generator whose output nodes yield their pieces joined (Jinja's `visit_Output`);
- render/highlight.py tokenizes with Pygments' lexers through joined regexes, reading patterns
  with CPython's private `re._parser` (render/first_chars.py), and formats HTML itself instead
  of `HtmlFormatter`.

All rely on how those libraries work inside, not only on what they promise. They are used only
on the versions below, which the tests compared with the stock code (tests/unit/
test_markdown_fast.py, test_highlight.py, test_fast_paths.py, test_templates_fast.py); on any
other version bipub uses stock markdown-it-py, Pygments and Jinja: the same HTML, only slower,
and `bipub -v build` says so.
To verify a new version: install it, run those tests, and add the version here.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

import jinja2
import markdown_it
import markupsafe
import mdit_py_plugins
import pygments

from bipub.dist_version import version as dist_info_version

# upstream name → versions the fast path was verified with
MARKDOWN_VERIFIED: Final[Mapping[str, tuple[str, ...]]] = {
    "markdown-it-py": ("4.3.0",),
    "mdit-py-plugins": ("0.7.0",),
}
HIGHLIGHT_VERIFIED: Final[Mapping[str, tuple[str, ...]]] = {
    "Pygments": ("2.21.0",),
    "Python": ("3.11",),  # `re._parser` and `re._constants` are private to CPython
}
TEMPLATES_VERIFIED: Final[Mapping[str, tuple[str, ...]]] = {
    "Jinja2": ("3.1.6",),
    "MarkupSafe": ("3.0.4",),
}


def _markupsafe_version() -> str:
    """MarkupSafe's version: from the name of its `.dist-info` folder (dist_version.py), else
    its deprecated `__version__`, which reads the installed metadata through
    `importlib.metadata` (~55 M instructions of imports, `email` among them, and ~8 M a call:
    ~5 % of a cold build's imports)."""
    return dist_info_version("MarkupSafe", "markupsafe") or _markupsafe_attribute()


def _markupsafe_attribute() -> str:
    with warnings.catch_warnings():  # (deprecated in 3.0, gone in 3.1: then not verified)
        warnings.simplefilter("ignore", DeprecationWarning)
        return str(getattr(markupsafe, "__version__", "unknown"))


def installed() -> dict[str, str]:
    """The version of each upstream the fast paths depend on, as installed."""
    return dict(_installed())


@lru_cache(maxsize=1)
def _installed() -> tuple[tuple[str, str], ...]:
    """`installed()`, read once a process (the modules imported do not change)."""
    return tuple(
        {
            "markdown-it-py": markdown_it.__version__,
            "mdit-py-plugins": mdit_py_plugins.__version__,
            "Pygments": pygments.__version__,
            "Python": f"{sys.version_info.major}.{sys.version_info.minor}",
            "Jinja2": jinja2.__version__,
            "MarkupSafe": _markupsafe_version(),
        }.items()
    )


def unverified(
    verified: Mapping[str, tuple[str, ...]], versions: Mapping[str, str] | None = None
) -> list[str]:
    """The upstreams (as 'name version') whose installed version is not a verified one."""
    versions = installed() if versions is None else versions
    return [f"{name} {versions[name]}" for name, ok in verified.items() if versions[name] not in ok]


def fast_markdown() -> bool:
    return not unverified(MARKDOWN_VERIFIED)


def fast_highlight() -> bool:
    return not unverified(HIGHLIGHT_VERIFIED) and sys.implementation.name == "cpython"


def fast_templates() -> bool:
    return not unverified(TEMPLATES_VERIFIED)


def notes() -> list[str]:
    """One line per fast path that is off, saying why (for `bipub -v`)."""
    out = []
    for what, verified, stock in (
        ("the fast Markdown parser (render/markdown_fast.py)", MARKDOWN_VERIFIED, "markdown-it-py"),
        ("the joined-rule highlighter (render/highlight.py)", HIGHLIGHT_VERIFIED, "Pygments"),
        (
            "the fast template escaping and calls (render/template_fast.py)",
            TEMPLATES_VERIFIED,
            "Jinja2",
        ),
    ):
        off = unverified(verified)
        if not off and not (stock == "Pygments" and sys.implementation.name != "cpython"):
            continue
        wanted = " and ".join(f"{name} {' or '.join(v)}" for name, v in verified.items())
        found = ", ".join(off) or sys.implementation.name
        out.append(
            f"{what} is off: it was verified with {wanted}, not {found}; using stock {stock} "
            "(the same output, slower)"
        )
    return out
