"""pydantic's plugin loader, skipped where no installed distribution declares a pydantic plugin.

pydantic asks for its plugins when it builds its first model: pydantic/plugin/_loader.py
imports `importlib.metadata` (and with it `email`, `zipfile`, `csv`…: ~55 M instructions, ~4 %
of a cold build's imports) and reads the entry points of every installed distribution
(~12 M more), to find those of the group `pydantic`. Where none declares that group, its
`get_plugins()` returns no plugins (whatever `PYDANTIC_DISABLE_PLUGINS` says).

`skip_loader()`, run by the command line before anything imports pydantic, looks for that
group itself with plain file reads (the `entry_points.txt` of each `*.dist-info` and
`*.egg-info` folder on `sys.path`, which is where `importlib.metadata` looks) and, where no
file names it, puts in place of pydantic's `_loader` a module whose `get_plugins()` returns
no plugins: the same answer without the imports. It keeps pydantic's own loader (the stock
path) where the answer might differ or the module might work otherwise: another pydantic
version than the verified ones, `_loader` already imported, an entry of `sys.path` that is a
file (a zip or an egg) or an `.egg` folder, another finder of distributions in
`sys.meta_path`, a file it cannot read, or any entry point file naming `pydantic` in a
section. `stock_reason()` says which (`bipub -v`).
"""

from __future__ import annotations

import os
import re
import sys
import types
from collections.abc import Iterable, Mapping
from typing import Final

# pydantic versions whose plugin/_loader.py was read for this: `get_plugins()` is its only
# function pydantic calls, from plugin/_schema_validator.py, and returns `()` or the loaded
# plugins' values; with no entry point of the group it loads none
VERIFIED: Final = ("2.14.3",)
LOADER: Final = "pydantic.plugin._loader"
_NAMES_PYDANTIC = re.compile(r"^\s*\[[^\]\n]*pydantic", re.IGNORECASE | re.MULTILINE)


def _pydantic_version() -> str | None:
    """pydantic's version, read from its version.py without importing pydantic (its package
    imports ~30 modules); None where it is not found there."""
    for entry in sys.path:
        path = os.path.join(entry or ".", "pydantic", "version.py")
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        except OSError:
            continue
        found = re.search(r"^VERSION\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
        return found.group(1) if found else None
    return None


def stock_reason(
    path: Iterable[str] | None = None,
    meta_path: Iterable[object] | None = None,
    modules: Mapping[str, object] | None = None,
) -> str | None:
    """Why pydantic's own plugin loader must run, or None where it would find no plugin."""
    modules = sys.modules if modules is None else modules
    if LOADER in modules and not isinstance(modules[LOADER], _NoPlugins):
        return "pydantic's plugin loader was imported before bipub's start"
    version = _pydantic_version()
    if version not in VERIFIED:
        return f"verified with pydantic {' or '.join(VERIFIED)}, not {version or 'unknown'}"
    import importlib.machinery  # (already imported by Python's start)

    known = (importlib.machinery.PathFinder,)
    for finder in sys.meta_path if meta_path is None else meta_path:
        if finder in known or not hasattr(finder, "find_distributions"):
            continue
        return f"the import finder {finder!r} may find other distributions"
    for entry in sys.path if path is None else path:
        folder = entry or "."
        if not os.path.exists(folder):
            continue  # (as importlib.metadata: nothing there)
        if not os.path.isdir(folder) or folder.lower().endswith(".egg"):
            return f"{entry} on sys.path is not a plain folder"
        try:
            names = os.listdir(folder)
        except OSError as exc:
            return f"{entry} on sys.path could not be listed ({exc.strerror})"
        for name in names:
            low = name.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            points = os.path.join(folder, name, "entry_points.txt")
            try:
                with open(points, encoding="utf-8") as file:
                    text = file.read()
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError) as exc:
                return f"{points} could not be read ({exc})"
            if _NAMES_PYDANTIC.search(text):
                return f"{points} may declare a pydantic plugin"
    return None


class _NoPlugins(types.ModuleType):
    """What stands for pydantic/plugin/_loader.py: its names, and no plugins."""

    PYDANTIC_ENTRY_POINT_GROUP = "pydantic"
    _plugins: dict[str, object] | None = None
    _loading_plugins = False

    @staticmethod
    def get_plugins() -> tuple[()]:
        return ()


def skip_loader() -> str | None:
    """pydantic's plugin loader replaced by one that finds no plugins, where it would find
    none (see the module's text); else the reason it is kept, and nothing changed."""
    reason = stock_reason()
    if reason is None and LOADER not in sys.modules:
        sys.modules[LOADER] = _NoPlugins(LOADER)
    return reason


def note() -> str:
    """For `bipub -v`: whether pydantic's plugin loader runs in this process, and why."""
    if isinstance(sys.modules.get(LOADER), _NoPlugins):
        return "pydantic's plugin loader skipped: no installed distribution declares a plugin"
    reason = stock_reason() or "not replaced at this process's start"
    return f"pydantic's plugin loader used ({reason})"
