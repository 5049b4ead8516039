"""`make_plan` (the translate planning API) with a relative root: it crashed in the loader with
a content path missing its first characters (`ntent/ko/posts/a.md`: the root's length cut off a
path that had none of it). Now the root is taken from the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from bipub.translate.drafts import make_plan
from tests.integration.test_translate import make, post


@pytest.mark.parametrize("relative", [".", "./", "sub/..", "proj"])
def test_a_relative_root_plans_as_the_absolute_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: str
) -> None:
    root = make(
        tmp_path / "proj", {"content/ko/posts/a.md": post("가", "나.\n\n## 다\n\n라 3개.\n")}
    )
    (root / "sub").mkdir()
    monkeypatch.chdir(root if relative != "proj" else tmp_path)
    plan = make_plan(Path(relative), "en")
    expected = make_plan(root, "en")
    assert plan.root == root.resolve() and plan.root.is_absolute()
    assert [j.key for j in plan.jobs] == [j.key for j in expected.jobs]
    assert {g.source_file for g in plan.groups.values()} == {"content/ko/posts/a.md"}
