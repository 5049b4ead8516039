"""The atheris harness (fuzz/fuzz_loaders.py) runs without atheris on the repository's seeds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO, TESTS

spec = importlib.util.spec_from_file_location("fuzz_loaders", REPO / "fuzz" / "fuzz_loaders.py")
assert spec is not None and spec.loader is not None
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)


def _seeds() -> list[bytes]:
    roots = [REPO / "content", TESTS / "bad_inputs", TESTS / "projects"]
    files = [p for r in roots for p in sorted(r.rglob("*")) if p.suffix in (".md", ".yaml")]
    return [p.read_bytes() for p in files if p.is_file() and not p.is_symlink()]


def test_the_harness_accepts_every_seed() -> None:
    seeds = _seeds()
    assert len(seeds) > 20
    for seed in seeds:
        for target in range(3):
            harness.TestOneInput(bytes([target]) + seed)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_the_harness_on_random_bytes(data: bytes) -> None:
    harness.TestOneInput(data)


def test_the_harness_documents_how_to_run_it() -> None:
    doc = (Path(harness.__file__).read_text(encoding="utf-8")).split('"""')[1]
    assert "pip install atheris" in doc and "fuzz/fuzz_loaders.py" in doc
