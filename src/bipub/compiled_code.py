"""The code the dataclass decorator compiles at every start, kept between runs.

`@dataclass` makes each class's methods (`__init__`, `__repr__`, `__eq__`, `__hash__`, the
frozen `__setattr__`...) by compiling Python source text when the class is made, at import
(`dataclasses._create_fn`: `exec(text, globals, namespace)`): ~650 small functions for the
~140 dataclasses a build imports (bipub's and its libraries'), ~20 ms of CPU before its first
stage, every run, for the same texts. While `kept_compiles` is on, that `exec` compiles each
text once: the code objects are kept in the user's cache folder (`FILE`, marshal), and a text
met before runs from its code object, made by `compile` of that very text with the flags
`exec` would give it (the module has no `from __future__` import: `_verified`), so each
class gets the same methods, in the same namespaces.

It is on only where that was checked (`VERIFIED`: the Python versions, and the decorator
still compiling through the module's `exec`); anywhere else the decorator runs as it is. A
file that cannot be read, of another Python or damaged is not used (the texts are compiled
as without it, then kept again); one that cannot be written is said by the `bipub` command
(a `cache-not-saved` warning).

Nothing here is bipub's own state: a run sets the decorator's `exec` for the command's time
and puts it back after (`kept_compiles`); forked workers inherit it and never save.
"""

from __future__ import annotations
import __future__

import builtins
import dataclasses
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType
from typing import Any

VERIFIED = {(3, 11)}  # Python versions whose dataclasses module this was checked against
FILE = "dataclass-code.marshal"
# texts kept at most: past it, a save keeps those of its own run only (the file holds the
# classes of every command and of every bipub it was written by: ~650 texts a build, ~1 KB each)
MAX_TEXTS = 5000
# the file's first line: what it is and the Python it was made by (marshal's format and the
# code it holds are that Python's own: another one's file is not read)
HEADER = f"bipub dataclass code 1 {sys.implementation.cache_tag} {sys.version}\n".encode()
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag


def user_cache_dir() -> Path:
    """bipub's folder in the user's cache ($XDG_CACHE_HOME/bipub or ~/.cache/bipub)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bipub"


def _verified() -> bool:
    """Whether this Python's dataclasses module is the one this was checked against: its
    version, its methods made by `_create_fn` through the module's `exec`, and no future
    flag that `exec` would pass on to what it compiles."""
    create = getattr(dataclasses, "_create_fn", None)
    return (
        sys.version_info[:2] in VERIFIED
        and sys.implementation.name == "cpython"
        and create is not None
        and "exec" in create.__code__.co_names
        and not create.__code__.co_flags & _FUTURE_FLAGS
        and "exec" not in vars(dataclasses)  # (nobody else's replacement is in place)
    )


class KeptCompiles:
    """The code objects of the texts compiled (`codes`), read from and saved to `path`."""

    def __init__(self, path: Path, codes: dict[str, CodeType] | None = None) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = codes if codes is not None else {}
        self.compiled = 0  # texts compiled by this process (not in the file read)
        self.used: set[str] = set()  # the texts this process ran
        self.note = ""  # why the file read was not used, if it was not ("" if it was)

    @classmethod
    def read(cls, path: Path) -> KeptCompiles:
        """The file's code objects (none if it is missing, of another Python or damaged:
        `note` says why, for a file that is there)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return cls(path)
        except OSError as exc:
            kept = cls(path)
            kept.note = f"{path} not read ({exc.strerror or exc})"
            return kept
        kept = cls(path)
        if not data.startswith(HEADER):
            kept.note = f"{path} was written by another bipub or Python: not used"
            return kept
        try:
            # (code from the user's own cache folder, trusted as the compiled templates kept
            # there are, render/templates.py, and Python's __pycache__ files)
            codes = marshal.loads(memoryview(data)[len(HEADER) :])  # noqa: S302
        except (EOFError, ValueError, TypeError) as exc:
            kept.note = f"{path} is damaged ({exc}): not used"
            return kept
        if not isinstance(codes, dict) or not all(
            isinstance(k, str) and isinstance(v, CodeType) for k, v in codes.items()
        ):
            kept.note = f"{path} is damaged (not texts and their code): not used"
            return kept
        return cls(path, codes)

    def exec(
        self,
        source: Any,
        globals: dict[str, Any] | None = None,
        locals: dict[str, Any] | None = None,
    ) -> None:
        """`exec(source, globals, locals)`, a text from its kept code object."""
        if type(source) is str:
            self.used.add(source)
            code = self.codes.get(source)
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.codes[source] = code
                self.compiled += 1
            source = code
        builtins.exec(source, globals, locals)  # noqa: S102 - (the decorator's own exec)

    def save(self) -> None:
        """Write the file again if this process compiled a text it did not hold (atomically:
        a temporary file, then a rename). Raises OSError."""
        if not self.compiled:
            return
        if len(self.codes) > MAX_TEXTS:
            self.codes = {text: self.codes[text] for text in self.used}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(HEADER)
                f.write(marshal.dumps(self.codes))
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self.compiled = 0


@contextmanager
def kept_compiles(folder: Path) -> Iterator[KeptCompiles | None]:
    """The dataclass decorator compiling through the code kept in `folder` (`FILE`) while in
    the block; None (and the decorator as it is) on a Python not `VERIFIED`. The caller saves
    what was compiled (`KeptCompiles.save`) and says when it cannot."""
    if not _verified():
        yield None
        return
    kept = KeptCompiles.read(folder / FILE)
    dataclasses.exec = kept.exec  # type: ignore[attr-defined]
    try:
        yield kept
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]  # (the builtin again)
