"""A CV string list paired by position, after an insert at the top of the source (issue 16 #12):
recorded translations never show next to another item, from `review approve` to the build."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult


def test_an_insert_at_the_top_shows_source_text_not_the_neighbours_translation(
    make_project: Callable[[str], Path], cli: Callable[..., CliResult]
) -> None:
    project = make_project("minimal")
    en, ko = project / "content" / "en" / "cv.yaml", project / "content" / "ko" / "cv.yaml"
    with en.open("a", encoding="utf-8") as f:
        f.write("certifications:\n  - CKA (Certified Kubernetes Administrator)\n  - NVIDIA DLI\n")
    with ko.open("a", encoding="utf-8") as f:
        f.write("certifications:\n  - CKA (쿠버네티스 관리자)\n  - NVIDIA DLI 수료증\n")
    approved = cli("-C", str(project), "review", "approve", "--all", "--lang", "ko",
                   "--reviewer", "t")  # fmt: skip
    assert approved.exit_code == 0, approved.stderr
    text = en.read_text(encoding="utf-8")
    en.write_text(
        text.replace("certifications:\n", "certifications:\n  - AWS Solutions Architect\n"),
        encoding="utf-8",
    )
    result = cli("-C", str(project), "build", "--only", "json")
    assert result.exit_code == 0, result.stderr
    cv = json.loads((project / "site" / "api" / "ko" / "cv.json").read_text(encoding="utf-8"))
    assert cv["certifications"] == [
        "AWS Solutions Architect",
        "CKA (Certified Kubernetes Administrator)",
        "NVIDIA DLI",
    ]
    assert "cv:certifications[0]: paired by position" in result.stderr
    assert "made for 'CKA (Certified Kubernetes Administrator)', now at [1]" in result.stderr
