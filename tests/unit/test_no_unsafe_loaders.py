"""No `yaml.load` without a safe loader anywhere in bipub (ruff's S506 checks the same in CI)."""

from __future__ import annotations

import re

from tests.conftest import REPO

UNSAFE = re.compile(
    r"yaml\.(?:load|load_all|unsafe_load|full_load)\s*\(|Loader\s*=\s*yaml\.(?:Loader|UnsafeLoader|FullLoader)"
    r"|yaml\.(?:Loader|UnsafeLoader|FullLoader)\b|\beval\s*\(|\bexec\s*\("
)


def test_no_unsafe_yaml_loading_or_eval_in_the_sources() -> None:
    found = []
    for path in sorted((REPO / "src" / "bipub").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if UNSAFE.search(line.split("#", 1)[0]):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []
