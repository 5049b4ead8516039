"""The code the dataclass decorator compiles, kept between runs (bipub/compiled_code.py)."""

from __future__ import annotations

import dataclasses
import marshal
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bipub import compiled_code
from bipub.cli import save_compiled
from bipub.commands.ui import Ui
from bipub.compiled_code import FILE, HEADER, KeptCompiles, kept_compiles
from tests.conftest import REPO

pytestmark = pytest.mark.skipif(
    not compiled_code._verified(), reason="not a Python this was verified on"
)


def make_classes() -> list[type]:
    """Dataclasses with what the decorator makes methods of (made anew at each call)."""

    @dataclasses.dataclass
    class Plain:
        a: int
        b: str = "b"
        c: list[int] = dataclasses.field(default_factory=list)
        n: ClassVar[int] = 0

    @dataclasses.dataclass(frozen=True, order=True)
    class Frozen:
        x: int
        y: tuple[int, ...] = ()

    @dataclasses.dataclass(slots=True, kw_only=True)
    class Slotted:
        p: float
        q: dataclasses.InitVar[int] = 1

        def __post_init__(self, q: int) -> None:
            self.p += q

    @dataclasses.dataclass(eq=False, repr=False, unsafe_hash=False)
    class Bare:
        z: Any = None

    return [Plain, Frozen, Slotted, Bare]


def behaviour(classes: list[type]) -> list[object]:
    plain, frozen, slotted, bare = classes
    out: list[object] = [repr(plain(1)), plain(1) == plain(1), plain(1, "x") == plain(1)]
    out += [repr(frozen(2, (1,))), hash(frozen(2)) == hash(frozen(2)), frozen(1) < frozen(2)]
    try:
        frozen(1).x = 3  # type: ignore[misc]
    except dataclasses.FrozenInstanceError as exc:
        out.append(type(exc).__name__)
    out += [repr(slotted(p=1.5, q=2)), slotted(p=1.0).p, hasattr(slotted(p=1.0), "__dict__")]
    out += [bare(1) == bare(1), plain(1).c is not plain(1).c]
    with pytest.raises(TypeError):
        plain()  # type: ignore[call-arg]
    return out


def methods(classes: list[type]) -> list[tuple[object, ...]]:
    """What each method of each class is made of (its bytecode, names and constants)."""
    out = []
    for cls in classes:
        for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__lt__"):
            fn = vars(cls).get(name)
            code = getattr(fn, "__code__", None)
            if code is not None:
                made = (code.co_code, code.co_names, code.co_consts, code.co_flags)
                out.append((cls.__name__, name, *made, repr(fn.__annotations__)))
    return out


def test_classes_made_with_kept_code_are_the_classes_made_without(tmp_path: Path) -> None:
    stock = make_classes()
    with kept_compiles(tmp_path) as kept:  # compiled now, kept
        assert kept is not None
        first = make_classes()
        kept.save()
    assert kept.compiled == 0 and (tmp_path / FILE).is_file()
    with kept_compiles(tmp_path) as again:  # run from the code read back
        assert again is not None and again.codes
        second = make_classes()
        assert again.compiled == 0, "a text kept was compiled again"
    assert behaviour(first) == behaviour(second) == behaviour(stock)
    assert methods(first) == methods(second) == methods(stock)
    assert "exec" not in vars(dataclasses)  # (the builtin again after the block)


def test_a_text_kept_is_not_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        make_classes()
        kept.save()

    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiled_code, "compile", refused, raising=False)
    with kept_compiles(tmp_path) as kept:
        make_classes()


def test_on_a_python_not_verified_the_decorator_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled_code, "VERIFIED", set())
    stock = re._compiler.compile  # type: ignore[attr-defined]
    with kept_compiles(tmp_path) as kept:
        assert kept is None
        assert "exec" not in vars(dataclasses)
        assert re._compiler.compile is stock  # type: ignore[attr-defined]
        assert behaviour(make_classes()) == behaviour(make_classes())
    assert not (tmp_path / FILE).exists()


def test_the_decorator_is_put_back_when_the_command_fails(tmp_path: Path) -> None:
    stock = re._compiler.compile  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError), kept_compiles(tmp_path):
        assert "exec" in vars(dataclasses)
        assert re._compiler.compile is not stock  # type: ignore[attr-defined]
        raise RuntimeError("the command's bug")
    assert "exec" not in vars(dataclasses)
    assert re._compiler.compile is stock  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"not ours", "another bipub or Python"),
        (HEADER + b"\x00garbage", "damaged"),
        (HEADER + marshal.dumps(({"text": 1}, {})), "damaged"),
        (HEADER + marshal.dumps(({}, {("x", 0): (0, [1.5], 0, {}, ())})), "damaged"),
        (HEADER + marshal.dumps(({}, {("x", 0): (0, [17, 1], 0, {}, ())})), "damaged"),
        (HEADER + marshal.dumps(({}, {("x", 0): (0, b"\x11\x00\x00", 0, {}, ())})), "damaged"),
        (HEADER + marshal.dumps([1, 2]), "damaged"),
    ],
)
def test_a_file_of_another_python_or_damaged_is_not_used_and_is_written_again(
    tmp_path: Path, content: bytes, why: str
) -> None:
    (tmp_path / FILE).write_bytes(content)
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        assert why in kept.note and not kept.codes
        classes = make_classes()
        kept.save()
    assert behaviour(classes) == behaviour(make_classes())
    assert KeptCompiles.read(tmp_path / FILE).codes  # (written again, whole)
    assert KeptCompiles.read(tmp_path / FILE).note == ""


def test_past_its_bound_the_file_keeps_the_texts_of_its_own_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = {f"x = {i}": compile(f"x = {i}", "<string>", "exec") for i in range(5)}
    (tmp_path / FILE).write_bytes(HEADER + marshal.dumps((old, {})))
    monkeypatch.setattr(compiled_code, "MAX_TEXTS", 3)
    monkeypatch.setattr(compiled_code, "MIN_NEW", 1)
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        make_classes()
        kept.save()
    texts = KeptCompiles.read(tmp_path / FILE).codes
    assert texts and not set(texts) & set(old)


def test_code_that_cannot_be_saved_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    with kept_compiles(blocker) as kept:
        assert kept is not None
        make_classes()
    save_compiled(kept, Ui(tmp_path, 0))
    err = capsys.readouterr().err
    assert "could not be saved" in err and "[cache-not-saved]" in err, err
    save_compiled(kept, Ui(tmp_path, -1))  # (-q: errors only)
    assert capsys.readouterr().err == ""


def run_bipub(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "bipub", *args], cwd=REPO, env=env, capture_output=True, text=True
    )


def test_the_program_keeps_the_code_it_compiled_and_runs_from_it(tmp_path: Path) -> None:
    """A build (here one that stops at its missing bipub.yaml, once every stage is imported)
    keeps what it compiled, and the next run compiles nothing more (the file stays as it is)."""
    empty = tmp_path / "no-project"
    empty.mkdir()
    args = ("-C", str(empty), "build", "--no-cache")
    first = run_bipub(tmp_path, *args)
    assert first.returncode == 2 and "no bipub.yaml" in first.stderr, first.stderr
    kept = tmp_path / "bipub" / FILE
    read: Callable[[], KeptCompiles] = lambda: KeptCompiles.read(kept)  # noqa: E731
    assert len(read().codes) > 100 and len(read().patterns) > 100, "not kept"
    stamp = os.stat(kept).st_mtime_ns
    second = run_bipub(tmp_path, *args)
    assert (second.returncode, second.stderr) == (first.returncode, first.stderr)
    assert os.stat(kept).st_mtime_ns == stamp  # (nothing new compiled: not written again)


SAMPLES: list[tuple[str | bytes, int]] = [
    (r"(?P<name>[a-z]+)-(\d+)?(?:x|y)*", 0),
    (r"^\s*#+\s+(.*?)\s*$", re.M),
    (r"caf[ée]|\w+", re.I),
    (r"(?<=a)b(?!c)", re.A),
    (r"[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]", 0),
    (r"(?x) a  b  # spaced", 0),
    (r"(?i)(?s)x.y", 0),
    (r"(a)(?(1)b|c)", 0),
    (rb"[\x00-\x1f]+(?P<rest>.*)", re.S),
    (r"\bword\b", re.U | re.I),
]


def every_pattern_of_a_build() -> list[tuple[str | bytes, int]]:
    """The patterns bipub's modules and libraries compile (re's own cache after importing
    the stages), and SAMPLES."""
    import bipub.pipeline
    import bipub.render.highlight  # noqa: F401

    found = [(key[1], key[2]) for key in list(re._cache)]  # type: ignore[attr-defined]
    return SAMPLES + [(p, f) for p, f in found if type(p) in (str, bytes) and type(f) is int]


def test_patterns_made_from_kept_code_are_the_patterns_re_makes(tmp_path: Path) -> None:
    stock = compiled_code._STOCK_RE_COMPILE
    patterns = every_pattern_of_a_build()
    assert len(patterns) > 100
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        first = [kept.compile_pattern(p, f) for p, f in patterns]
        kept.save()
    with kept_compiles(tmp_path) as again:
        assert again is not None
        second = [again.compile_pattern(p, f) for p, f in patterns]
        assert again.compiled == 0, "a pattern kept was compiled again"
        re.purge()
        assert re.compile(SAMPLES[0][0]) == second[0]  # (re.compile goes through it)
        assert again.used_patterns
    for (p, f), a, b in zip(patterns, first, second, strict=True):
        want = stock(p, f)
        for got in (a, b):
            assert got == want, (p, f)  # (Pattern.__eq__: the pattern, flags and matcher code)
            assert (got.groups, got.groupindex, got.flags) == (
                want.groups,
                want.groupindex,
                want.flags,
            )
    assert re.compile(r"(?P<n>\d+)x").match("12x").group("n") == "12"


def test_a_run_that_compiled_little_new_does_not_write_the_file_again(tmp_path: Path) -> None:
    """Patterns made of a set's members come in another order in each process: a run that
    compiled only a few things it did not hold leaves the file as it is."""
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        make_classes()
        kept.save()
    stamp = os.stat(tmp_path / FILE).st_mtime_ns
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        for i in range(compiled_code.MIN_NEW - 1):
            kept.compile_pattern(f"never-seen-{i}", 0)
        kept.save()
    assert os.stat(tmp_path / FILE).st_mtime_ns == stamp
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        for i in range(compiled_code.MIN_NEW):
            kept.compile_pattern(f"new-{i}", 0)
        kept.save()
    assert ("new-0", 0) in KeptCompiles.read(tmp_path / FILE).patterns


def test_a_long_run_keeps_no_more_than_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled_code, "MAX_PATTERNS", 2)
    monkeypatch.setattr(compiled_code, "MAX_TEXTS", 2)
    with kept_compiles(tmp_path) as kept:
        assert kept is not None
        made = [kept.compile_pattern(f"p{i}", 0) for i in range(10)]
        classes = make_classes()
        assert len(kept.patterns) == 4 and len(kept.codes) == 4
    assert [p.pattern for p in made] == [f"p{i}" for i in range(10)]
    assert behaviour(classes) == behaviour(make_classes())
