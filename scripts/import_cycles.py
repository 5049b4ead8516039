#!/usr/bin/env python3
"""Import circles among a package's modules, imports inside functions (and TYPE_CHECKING) included.

    python3 scripts/import_cycles.py [SRC_DIR [PACKAGE]]     (defaults: src bipub)

Prints one line per circle (modules joined by ' <-> ') and exits 1 if there is any; prints nothing
and exits 0 otherwise. A package's own __init__ importing its submodules is not counted.
tests/unit/test_architecture.py runs `circles()` so that CI fails on a circle.
"""

from __future__ import annotations

import ast
import pathlib
import sys


def modules(src: pathlib.Path, package: str) -> dict[str, pathlib.Path]:
    found: dict[str, pathlib.Path] = {}
    for f in (src / package).rglob("*.py"):
        name = ".".join(f.relative_to(src).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = f
    return found


def _targets(
    mods: dict[str, pathlib.Path], cur: str, node: ast.Import | ast.ImportFrom
) -> list[str]:
    pkg = cur if mods[cur].name == "__init__.py" else cur.rsplit(".", 1)[0]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
            base = ".".join(parts + ([base] if base else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    return [a.name for a in node.names]


def edges(mods: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    """Module → the package modules it imports (anywhere in its code)."""
    out: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for t in _targets(mods, m, node):
                    while t and t not in mods and "." in t:
                        t = t.rsplit(".", 1)[0]
                    own_init = mods.get(t) is not None and mods[t].name == "__init__.py"
                    if t in mods and t != m and not (own_init and m.startswith(t + ".")):
                        out[m].add(t)
    return out


def circles(src: pathlib.Path, package: str) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    graph = edges(modules(src, package))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def main(argv: list[str]) -> int:
    src = pathlib.Path(argv[1] if len(argv) > 1 else "src")
    package = argv[2] if len(argv) > 2 else "bipub"
    found = circles(src, package)
    for c in found:
        print(" <-> ".join(c))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
