"""The QA cache's salt covers every source file of the QA rules (bipub.check.qa.RULE_FILES):
a rule changed in any of them must re-check every text, not reuse the old rules' results."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from bipub.check import qa
from bipub.check.glossary import Glossary
from bipub.check.run import QaCache

SRC = Path(qa.__file__).resolve().parents[2]


def _imported_files(path: Path) -> set[Path]:
    """The bipub modules a file imports (type-only imports too: a rule reads their code)."""
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bipub"):
            assert node.module is not None
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("bipub")]
        for name in names:
            base = SRC.joinpath(*name.split("."))
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file() and candidate.name != "__init__.py":
                    found.add(candidate.resolve())
    return found


def test_every_module_the_rules_import_is_in_the_salt() -> None:
    """Every check/qa*.py file (the rules) and every bipub module one of them imports is hashed
    (the glossary module is; what it imports to load the glossary file is not a rule)."""
    check = SRC / "bipub" / "check"
    todo = [Path(qa.__file__).resolve()]
    rules: set[Path] = set(todo) | {p.resolve() for p in check.glob("qa*.py")}
    while todo:
        for dep in _imported_files(todo.pop()):
            if dep not in rules:
                rules.add(dep)
                if dep.parent == check and dep.name.startswith("qa"):
                    todo.append(dep)
    salted = {p.resolve() for p in qa.RULE_FILES}
    missing = sorted(str(p.relative_to(SRC)) for p in rules - salted)
    assert not missing, f"add these to bipub.check.qa.RULE_FILES: {missing}"


def test_a_change_to_any_rule_file_changes_the_salt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copies = []
    for i, path in enumerate(qa.RULE_FILES):
        copy = tmp_path / f"{i}-{path.name}"
        shutil.copyfile(path, copy)
        copies.append(copy)
    monkeypatch.setattr(qa, "RULE_FILES", tuple(copies))
    glossary = Glossary()
    before = QaCache(None, glossary).salt
    assert QaCache(None, glossary).salt == before  # the same rules: the same salt
    for copy in copies:
        text = copy.read_bytes()
        copy.write_bytes(text + b"\n# a changed rule\n")
        assert QaCache(None, glossary).salt != before, copy.name
        copy.write_bytes(text)
    assert QaCache(None, glossary).salt == before
