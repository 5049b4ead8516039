"""What Python compiles again at every start, kept between runs: the code the dataclass
decorator compiles, and regular expressions.

`@dataclass` makes each class's methods (`__init__`, `__repr__`, `__eq__`, `__hash__`, the
frozen `__setattr__`...) by compiling Python source text when the class is made, at import
(`dataclasses._create_fn` execs the text in its namespace): ~650 small functions for the
~140 dataclasses a build imports (bipub's and its libraries'), ~20 ms of CPU before its first
stage, every run, for the same texts. While `kept_compiles` is on, that `exec` compiles each
text once: the code objects are kept in the user's cache folder (`FILE`, marshal), and a text
met before runs from its code object, made by `compile` of that very text with the flags
`exec` would give it (the module has no `from __future__` import: `_verified`), so each
class gets the same methods, in the same namespaces.

Regular expressions are the same: `re.compile` parses a pattern and works out the code of its
matcher (`re._compiler.compile`, in Python) before the C engine makes the pattern object of it
(`_sre.compile`): ~450 patterns in a build (bipub's, Jinja's, markdown-it's, YAML's modules,
and the Pygments lexers of the code blocks), ~25 ms. Their code is kept with the dataclasses'
(`KeptCompiles.compile_pattern`), and a pattern met before goes to the engine straight away: the
same pattern object (`Pattern.__eq__` compares the code: the tests check it). Each pattern's
code is kept as the bytes of its 32-bit words (as the engine holds it): read back as one
string, not ~100,000 numbers (reading and checking those took ~5 ms of every start).

It is on only where that was checked (`VERIFIED`: the Python versions, the decorator still
compiling through the module's `exec`, `re` still compiling through `re._compiler.compile`
with the 3.11 engine); anywhere else both run as they are. A file that cannot be read, of
another Python or damaged is not used (what it would hold is compiled as without it, then
kept again); one that cannot be written is said by the `bipub` command (a `cache-not-saved`
warning). `-v` says why a file there was not used.

Nothing here is bipub's own state: a run sets the decorator's `exec` and `re`'s compiler for
the command's time and puts them back after (`kept_compiles`); forked workers inherit them and
never save.
"""

from __future__ import annotations
import __future__

import _sre  # type: ignore[import-not-found]
import builtins
import dataclasses
import marshal
import os
import re
import sys
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType
from typing import Any

VERIFIED = {(3, 11)}  # Python versions whose dataclasses and re modules this was checked against
FILE = "compiled-code-3.marshal"  # (the format of HEADER 3: files of other formats stay apart)
# texts kept at most: past it, a save keeps those of its own run only (the file holds the
# classes of every command and of every bipub it was written by: ~650 texts a build, ~1 KB each)
MAX_TEXTS = 5000
# the file's first line: what it is and the Python it was made by (marshal's format and the
# code it holds are that Python's own: another one's file is not read)
MAX_PATTERNS = 5000  # (the same for the patterns: a few hundred a build)
# a run that compiled fewer new things does not write the file again: some libraries make a
# pattern of a set's members, in another order in each process (their hash is random), and
# such a pattern is never met again (~0.2 ms each to compile, against ~5 ms to write the file)
MIN_NEW = 16
HEADER = (
    f"bipub compiled code 3 {sys.implementation.cache_tag} {_sre.MAGIC} {sys.byteorder} "
    f"{sys.version}\n"
).encode()
_RE_COMPILER: Any = getattr(re, "_compiler", None)
_RE_PARSER: Any = getattr(re, "_parser", None)
_STOCK_RE_COMPILE = getattr(_RE_COMPILER, "compile", None)
# _sre.compile's arguments after the pattern, its code as the bytes of 32-bit words (`_WORDS`)
Made = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]
_WORDS = "I"  # (an array type of 4-byte unsigned words: the engine's SRE_CODE; `_verified`)
PatternKey = tuple[str | bytes, int]
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
        and _RE_COMPILER is not None
        and _RE_PARSER is not None
        and _sre.MAGIC == 20220615  # (the matcher code of Python 3.11)
        and getattr(_RE_COMPILER, "_code", None) is not None
        and getattr(_RE_PARSER, "parse", None) is not None
        and _RE_COMPILER.compile is _STOCK_RE_COMPILE
        and getattr(_STOCK_RE_COMPILE, "__module__", "") == "re._compiler"
        and array(_WORDS).itemsize == 4
    )


class KeptCompiles:
    """The code objects of the texts compiled (`codes`) and the matcher code of the regular
    expressions (`patterns`), read from and saved to `path`."""

    def __init__(
        self,
        path: Path,
        codes: dict[str, CodeType] | None = None,
        patterns: dict[PatternKey, Made] | None = None,
    ) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = codes if codes is not None else {}
        self.patterns: dict[PatternKey, Made] = patterns if patterns is not None else {}
        self.compiled = 0  # texts and patterns compiled by this process (not in the file read)
        self.used: set[str] = set()  # the texts this process ran
        self.used_patterns: set[PatternKey] = set()  # the patterns it compiled
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
            found = marshal.loads(memoryview(data)[len(HEADER) :])  # noqa: S302
        except (EOFError, ValueError, TypeError) as exc:
            kept.note = f"{path} is damaged ({exc}): not used"
            return kept
        if not _well_formed(found):
            kept.note = f"{path} is damaged (not texts and patterns with their code): not used"
            return kept
        return cls(path, found[0], found[1])

    def exec(
        self,
        source: Any,
        globals: dict[str, Any] | None = None,
        locals: dict[str, Any] | None = None,
    ) -> None:
        """The builtin exec of `source` in `globals`/`locals`, a text from its kept code object."""
        if type(source) is str:
            self.used.add(source)
            code = self.codes.get(source)
            if code is None and len(self.codes) >= 2 * MAX_TEXTS:  # (as for the patterns)
                builtins.exec(source, globals, locals)  # noqa: S102 - (as the decorator does)
                return
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.codes[source] = code
                self.compiled += 1
            source = code
        builtins.exec(source, globals, locals)  # noqa: S102 - (the decorator's own exec)

    def compile_pattern(self, pattern: Any, flags: int = 0) -> re.Pattern[Any]:
        """`re._compiler.compile(pattern, flags)` (what `re.compile` calls for a pattern not
        in its own cache), its matcher code from `patterns` or worked out as it does."""
        if type(pattern) not in (str, bytes) or type(flags) is not int or flags & re.DEBUG:
            return _STOCK_RE_COMPILE(pattern, flags)  # type: ignore[no-any-return,misc]
        if len(self.patterns) >= 2 * MAX_PATTERNS and (pattern, flags) not in self.patterns:
            # (a long `bipub serve` compiling patterns made of its content: not kept past this)
            return _STOCK_RE_COMPILE(pattern, flags)  # type: ignore[no-any-return,misc]
        key = (pattern, flags)
        self.used_patterns.add(key)
        made = self.patterns.get(key)
        if made is not None:
            flags, words, groups, groupindex, indexgroup = made
            code = array(_WORDS, words).tolist()
            kept: re.Pattern[Any] = _sre.compile(
                pattern, flags, code, groups, groupindex, indexgroup
            )
            return kept
        # (re._compiler.compile's steps, their results kept)
        parsed = _RE_PARSER.parse(pattern, flags)
        code = [int(op) for op in _RE_COMPILER._code(parsed, flags)]
        groupindex = dict(parsed.state.groupdict)
        named: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            named[i] = name
        groups = parsed.state.groups - 1
        flags |= parsed.state.flags
        made = (flags, array(_WORDS, code).tobytes(), groups, groupindex, tuple(named))
        self.patterns[key] = made
        self.compiled += 1
        new: re.Pattern[Any] = _sre.compile(pattern, flags, code, groups, groupindex, made[4])
        return new

    def save(self) -> None:
        """Write the file again if this process compiled `MIN_NEW` texts or patterns it did
        not hold (atomically: a temporary file, then a rename). Raises OSError."""
        if self.compiled < MIN_NEW:
            return
        if len(self.codes) > MAX_TEXTS:
            self.codes = {text: c for text, c in self.codes.items() if text in self.used}
        if len(self.patterns) > MAX_PATTERNS:
            used = self.used_patterns
            self.patterns = {key: made for key, made in self.patterns.items() if key in used}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(HEADER)
                f.write(marshal.dumps((self.codes, self.patterns)))
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self.compiled = 0


def _well_formed(found: object) -> bool:
    """Whether `found` (read back from the file) is what `save` writes."""
    if not (isinstance(found, tuple) and len(found) == 2):
        return False
    codes, patterns = found
    return (
        isinstance(codes, dict)
        and all(isinstance(k, str) and isinstance(v, CodeType) for k, v in codes.items())
        and isinstance(patterns, dict)
        and all(_pattern_entry(k, v) for k, v in patterns.items())
    )


def _pattern_entry(key: object, made: object) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and isinstance(key[0], str | bytes)
        and type(key[1]) is int
        and isinstance(made, tuple)
        and len(made) == 5
        and type(made[0]) is int
        and type(made[1]) is bytes
        and len(made[1]) % 4 == 0
        and type(made[2]) is int
        and isinstance(made[3], dict)
        and isinstance(made[4], tuple)
    )


@contextmanager
def kept_compiles(folder: Path) -> Iterator[KeptCompiles | None]:
    """The dataclass decorator and `re.compile` compiling through what is kept in `folder`
    (`FILE`) while in the block; None (and both as they are) on a Python not `VERIFIED`. The
    caller saves what was compiled (`KeptCompiles.save`) and says when it cannot."""
    if not _verified():
        yield None
        return
    kept = KeptCompiles.read(folder / FILE)
    dataclasses.exec = kept.exec  # type: ignore[attr-defined]
    _RE_COMPILER.compile = kept.compile_pattern
    try:
        yield kept
    finally:
        _RE_COMPILER.compile = _STOCK_RE_COMPILE
        del dataclasses.exec  # type: ignore[attr-defined]  # (the builtin again)
