"""No `yaml.load` without a safe loader anywhere in bipub (ruff's S506 checks the same in CI)."""

from __future__ import annotations

import re

from tests.conftest import REPO

UNSAFE = re.compile(
    r"yaml\.(?:load|load_all|unsafe_load|full_load)\s*\(|Loader\s*=\s*yaml\.(?:Loader|UnsafeLoader|FullLoader)"
    r"|yaml\.(?:Loader|UnsafeLoader|FullLoader)\b|\beval\s*\(|\bexec\s*\("
)


# The one sanctioned exec: compiled_code.py stands in for the dataclass decorator's own `exec` of
# the method texts it generates (never a text from content or configuration); each line is
# named here, so another exec anywhere (or a new one there) still fails.
ALLOWED = {
    ("src/bipub/compiled_code.py", "def exec("),
    ("src/bipub/compiled_code.py", "builtins.exec(source, globals, locals)"),
}


def test_no_unsafe_yaml_loading_or_eval_in_the_sources() -> None:
    found = []
    for path in sorted((REPO / "src" / "bipub").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if UNSAFE.search(code) and not any(
                rel == file and code.strip().startswith(text) for file, text in ALLOWED
            ):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []
