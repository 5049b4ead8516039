"""The shape of src/bipub: no import circle, no stage importing a later one, no private imports
across packages, no module past 600 lines without a stated reason. scripts/import_cycles.py is the same check for the command line."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tests.conftest import REPO

SRC = REPO / "src"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "import_cycles", REPO / "scripts" / "import_cycles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_cycles", module)
    spec.loader.exec_module(module)
    return module


def test_no_import_circle() -> None:
    circles = _tool().circles(SRC, "bipub")
    assert circles == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_circle_check_finds_a_circle(tmp_path: Path) -> None:
    """The check can fail: a circle hidden in a function and one behind TYPE_CHECKING count."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import d\n"
    )
    (pkg / "d.py").write_text("import pkg.c\n")
    assert _tool().circles(tmp_path, "pkg") == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]


# The stages in order (a module may import its own rank and lower ones only). Rank 0 is what
# every stage uses: diagnostics, the code registry, the project layout, caches, the output writer.
RANKS: dict[str, int] = {
    "__init__": 0,
    "diagnostics": 0,
    "codes": 0,
    "project": 0,
    "cache": 0,
    "out_of_band": 0,  # (cache.py's: the documents' bodies after the pickle)
    "table_diff": 0,  # (cache.py's: the files saved as what changed)
    "cache_signed": 0,  # (cache.py's: signing and reading the files)
    "cache_files": 0,  # (cache.py's: the files per output folder, what a build drops)
    "cache_pieces": 0,  # (restore.py's: the entries file's pieces in segment files)
    "parallel": 0,
    "text": 0,
    "uptodate": 0,
    "uprecord": 0,
    "inputs": 0,
    "write": 0,
    "scaffold": 0,
    "compiled_code": 0,
    "code_stamp": 0,
    "mermaid_cli": 0,
    "dist_version": 0,
    "pydantic_plugins": 0,
    "user_files": 0,  # (writing a file of the user's: translate, review, i18n, check -o)
    "schedule": 0,  # (which posts wait for their date: read by the up-to-date check too)
    "load": 1,
    "model": 1,
    "config": 1,
    "pair": 2,
    "check": 3,
    "render": 3,
    "linkcheck": 3,  # (reads a document's links with the render's Markdown parser)
    "scheduled_links": 3,  # (links to scheduled posts, read with linkcheck: build and check)
    "i18n_catalogs": 4,
    "translate": 4,
    "pipeline": 5,
    "result": 5,
    "buildstate": 4,
    "handover": 4,
    "restore": 4,
    "entry_rows": 4,  # (restore.py's: how the entries file pickles its rows)
    "serve": 6,
    "serve_watch": 6,
    "serve_builds": 6,
    "serve_save": 6,
    "commands": 7,
    "cli": 8,
    "__main__": 8,
}
# Known exceptions, each to be removed, never added to: `bipub check` and `bipub translate` load
# and pair through pipeline.py's stage functions.
KNOWN_UPWARD = {("check", "pipeline"), ("translate", "pipeline")}


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def test_no_stage_imports_a_later_stage() -> None:
    tool = _tool()
    mods = tool.modules(SRC, "bipub")
    unranked = sorted({_part(m) for m in mods} - set(RANKS))
    assert not unranked, f"give these a rank in RANKS: {unranked}"
    upward = sorted(
        f"{a} imports {b}"
        for a, targets in tool.edges(mods).items()
        for b in targets
        if RANKS[_part(a)] < RANKS[_part(b)] and (_part(a), _part(b)) not in KNOWN_UPWARD
    )
    assert not upward, "a lower stage imports a later one:\n" + "\n".join(upward)


def test_no_private_name_is_imported_from_another_package() -> None:
    found = []
    for path in sorted((SRC / "bipub").rglob("*.py")):
        module = ".".join(path.relative_to(SRC).with_suffix("").parts)
        package = module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bipub")):
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and (node.module or "").rsplit(".", 1)[0] != package:
                    found.append(f"{path.relative_to(REPO)}:{node.lineno} {alias.name}")
    assert not found, "private names imported across packages:\n" + "\n".join(found)


# A module longer than this is split by concern (issue 17's house rules) unless it is listed in
# LONG_MODULES with the reason it is one piece. Keep the list short; each entry is a debt.
MAX_LINES = 600
LONG_MODULES: dict[str, str] = {}


def _long_modules(src: Path, allowed: dict[str, str]) -> list[str]:
    found = []
    for path in sorted((src / "bipub").rglob("*.py")):
        name = path.relative_to(src).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and name not in allowed:
            found.append(f"{name}: {lines} lines")
    return found


def test_no_module_passes_600_lines_without_a_reason() -> None:
    long = _long_modules(SRC, LONG_MODULES)
    assert not long, f"split these by concern (or list them in LONG_MODULES with a reason): {long}"
    assert all(reason.strip() for reason in LONG_MODULES.values()), "a reason for each entry"
    stale = [n for n in LONG_MODULES if not (SRC / n).is_file()]
    assert not stale, f"LONG_MODULES names files that are gone: {stale}"


def test_the_length_check_finds_a_long_module(tmp_path: Path) -> None:
    pkg = tmp_path / "bipub" / "sub"
    pkg.mkdir(parents=True)
    (pkg / "short.py").write_text("x = 1\n" * MAX_LINES)
    (pkg / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert _long_modules(tmp_path, {}) == [f"bipub/sub/long.py: {MAX_LINES + 1} lines"]
    assert _long_modules(tmp_path, {"bipub/sub/long.py": "one table"}) == []


def test_no_two_test_files_share_a_name() -> None:
    """The test folders are not packages: pytest imports each file by its name, and a second
    file of the same name stops the whole collection ("import file mismatch")."""
    tests = Path(__file__).resolve().parent.parent
    seen: dict[str, list[str]] = {}
    for path in tests.rglob("test_*.py"):
        if "bad_inputs" in path.parts or "projects" in path.parts:
            continue
        seen.setdefault(path.name, []).append(str(path.relative_to(tests)))
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}
