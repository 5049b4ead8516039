"""Fonts for the PDFs: found through fontconfig (or configured files), checked for coverage.

* The text font is the first of `pdf.fonts` (default "Noto Sans CJK KR", "NanumGothic") that
  fontconfig knows, or `pdf.font_file` / `pdf.bold_font_file` (a .ttf/.otf in the project).
  Bold must be a real face (fontconfig weight ≥ semibold); without one a warning says that
  bold text would be synthesized. Code uses the first of `pdf.mono_fonts` that exists.
* Coverage: every character of a document is checked against the cmaps of those faces
  (read with fontTools; Noto CJK ships as a .ttc collection, so the face index matters). A
  character no face covers would be drawn as a box (.notdef): the build fails instead.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from bipub.config import PdfOptions
from bipub.diagnostics import Diagnostic, DiagnosticError, Severity

FC_WEIGHT_REGULAR = 80
FC_WEIGHT_SEMIBOLD = 180
FC_WEIGHT_BOLD = 200
_FORMAT = "%{family[0]}\t%{file}\t%{index}\t%{weight}\t%{slant}\n"


@dataclass(frozen=True)
class Face:
    family: str
    path: str
    index: int
    weight: int  # fontconfig weight (80 regular, 200 bold)


@dataclass(frozen=True)
class FontChoice:
    css_family: str  # the family name the print CSS uses
    regular: Face
    bold: Face | None
    from_file: bool = False

    @property
    def faces(self) -> tuple[Face, ...]:
        return (self.regular,) if self.bold is None else (self.regular, self.bold)


@dataclass(frozen=True)
class Fonts:
    text: FontChoice
    mono: FontChoice | None

    @property
    def faces(self) -> tuple[Face, ...]:
        return self.text.faces + (self.mono.faces if self.mono else ())

    @property
    def names(self) -> str:
        names = [self.text.css_family] + ([self.mono.css_family] if self.mono else [])
        return ", ".join(names)

    def css(self) -> str:
        """@font-face rules (configured files) and the font-family declarations."""
        rules: list[str] = []
        text = self.text
        if text.from_file:
            for face, weight in ((text.regular, 400), (text.bold, 700)):
                if face is not None:
                    rules.append(
                        f"@font-face {{ font-family: {css_string(text.css_family)}; "
                        f"src: url({css_string(Path(face.path).as_uri())}); "
                        f"font-weight: {weight}; font-style: normal; }}"
                    )
        family = css_string(text.css_family)
        mono = f"{css_string(self.mono.css_family)}, {family}" if self.mono else family
        rules.append(f"html {{ font-family: {family}; }}")
        rules.append(f"pre, code, kbd, samp {{ font-family: {mono}; }}")
        return "\n".join(rules)


def css_string(value: str) -> str:
    """A CSS string literal: quotes, backslashes, newlines and '<' escaped."""
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return '"' + out.replace("<", "\\3c ") + '"'


def _fc_escape(name: str) -> str:
    return "".join("\\" + ch if ch in "\\-:,=" else ch for ch in name)


def fc_faces(family: str) -> list[Face]:
    """Upright faces of `family` known to fontconfig (empty when it has none)."""
    return FcQuery(family).faces()


class FcQuery:
    """One `fc-list` run for the faces of `family`: started when made, its answer read by
    `faces` (with `FontsAhead`, the build's thread goes on meanwhile). No fontconfig: `faces`
    raises the DiagnosticError that says so."""

    def __init__(self, family: str) -> None:
        self.family = family
        exe = shutil.which("fc-list")
        self._proc: subprocess.Popen[str] | None = None
        self._failed: OSError | None = None  # (fc-list could not be started: said by `faces`)
        if exe is not None:
            try:
                self._proc = subprocess.Popen(
                    [exe, "-f", _FORMAT, f":family={_fc_escape(family)}"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            except OSError as exc:
                self._failed = exc

    def faces(self) -> list[Face]:
        """Its answer: the upright faces, sorted (waits for the run: `subprocess.run`'s
        timeout, kill and errors)."""
        proc = self._proc
        if self._failed is not None:
            raise self._failed
        if proc is None:
            raise DiagnosticError(
                [
                    Diagnostic(
                        "bipub.yaml",
                        None,
                        "pdf-font",
                        "fontconfig's fc-list is not installed, so no font can be found for the "
                        "PDFs (Debian: apt-get install fontconfig fonts-noto-cjk)",
                    )
                ]
            )
        with proc:  # (as subprocess.run: the pipes closed and the process waited for)
            try:
                stdout, _stderr = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise
            except BaseException:
                proc.kill()
                raise
        return _faces_of(stdout)

    def close(self) -> None:
        """A run whose answer is not read: ended (killed if it still runs: nobody reads it)
        and waited for, its pipes closed (no process or pipe left behind)."""
        if self._proc is not None:
            with self._proc:
                self._proc.kill()
                self._proc.communicate()


def _faces_of(stdout: str) -> list[Face]:
    faces = []
    for line in stdout.splitlines():
        parts = line.split("\t")
        if len(parts) != 5 or not parts[1]:
            continue
        name, path, index, weight, slant = parts
        if slant not in ("", "0"):
            continue
        try:
            faces.append(Face(name, path, int(index or 0), int(float(weight or 80))))
        except ValueError:
            continue
    return sorted(faces, key=lambda f: (f.weight, f.path, f.index))


class FontsAhead:
    """The `fc-list` runs `choose_fonts` asks first (the first of `pdf.fonts` unless
    `pdf.font_file` is set, and the first of `pdf.mono_fonts`), started before it asks: by the
    social cards at the start of the render stage (render/cards.py `Cards.start`), so that the
    build's thread does not wait for them when the cards are made. Each run is read once, by
    the build that started it (no answer is kept from build to build: a font installed or
    removed since is seen); another family `choose_fonts` asks for is run then."""

    def __init__(self, options: PdfOptions) -> None:
        families = [*([] if options.font_file else options.fonts[:1]), *options.mono_fonts[:1]]
        self._started = {family: FcQuery(family) for family in dict.fromkeys(families)}

    def faces(self, family: str) -> list[Face]:
        """`fc_faces(family)`: the started run's answer, or a run of its own."""
        started = self._started.pop(family, None)
        return (started if started is not None else FcQuery(family)).faces()

    def close(self) -> None:
        """The runs not read (a build that stopped before the cards, or a family not asked):
        ended (`FcQuery.close`)."""
        while self._started:
            self._started.popitem()[1].close()


def _pick(faces: list[Face], css_family: str) -> FontChoice:
    regular = min(faces, key=lambda f: (abs(f.weight - FC_WEIGHT_REGULAR), f.path, f.index))
    bolds = [f for f in faces if f.weight >= FC_WEIGHT_SEMIBOLD]
    bold = (
        min(bolds, key=lambda f: (abs(f.weight - FC_WEIGHT_BOLD), f.path, f.index))
        if bolds
        else None
    )
    return FontChoice(css_family, regular, bold)


def choose_fonts(
    options: PdfOptions, root: Path, ahead: FontsAhead | None = None
) -> tuple[Fonts, list[Diagnostic]]:
    """The fonts of the PDFs, and warnings. No usable text font raises DiagnosticError.
    `ahead`: fontconfig's answers started before (`FontsAhead`), read here."""
    faces_of = ahead.faces if ahead is not None else fc_faces
    warnings: list[Diagnostic] = []
    text: FontChoice | None = None
    if options.font_file:
        text = _from_files(options, root)
    else:
        for family in options.fonts:
            faces = faces_of(family)
            if faces:
                text = _pick(faces, family)
                break
    if text is None:
        raise DiagnosticError(
            [
                Diagnostic(
                    "bipub.yaml",
                    None,
                    "pdf-font",
                    "no font for the PDFs: fontconfig knows none of pdf.fonts "
                    f"({', '.join(options.fonts)}); install one (Debian: apt-get install "
                    "fonts-noto-cjk) or set pdf.font_file",
                )
            ]
        )
    if text.bold is None:
        warnings.append(
            Diagnostic(
                "bipub.yaml",
                None,
                "pdf-font",
                f"font {text.css_family!r} has no bold face; bold text in the PDFs will be "
                "synthesized (install the bold face or set pdf.bold_font_file)",
                Severity.WARNING,
            )
        )
    mono = None
    for family in options.mono_fonts:
        faces = faces_of(family)
        if faces:
            mono = _pick(faces, family)
            break
    return Fonts(text, mono), warnings


def _from_files(options: PdfOptions, root: Path) -> FontChoice:
    faces: list[Face] = []
    for key, rel, weight in (
        ("font_file", options.font_file, FC_WEIGHT_REGULAR),
        ("bold_font_file", options.bold_font_file, FC_WEIGHT_BOLD),
    ):
        if rel is None:
            continue
        path = (root / rel).resolve()
        problem = None
        if not path.is_relative_to(root.resolve()):
            problem = "is outside the project"
        elif not path.is_file():
            problem = "does not exist"
        elif path.suffix.lower() not in (".ttf", ".otf"):
            problem = "must be a .ttf or .otf file (a .ttc collection cannot be chosen by index)"
        if problem:
            raise DiagnosticError(
                [Diagnostic("bipub.yaml", None, "pdf-font", f"pdf.{key} {rel!r} {problem}")]
            )
        faces.append(Face("bipub text", str(path), 0, weight))
    bold = faces[1] if len(faces) > 1 else None
    return FontChoice("bipub text", faces[0], bold, from_file=True)


_MEMORY: dict[tuple[str, int, int, int], frozenset[int]] = {}


def _cmap(path: str, index: int, size: int, mtime_ns: int, cache: str | None) -> frozenset[int]:
    """The code points a face maps. Reading a CJK cmap (~45,000 entries) takes ~0.3 s, so the
    result is kept in memory and on disk (`cache`: ~/.cache/bipub/fonts/), keyed by file, face,
    size and mtime."""
    identity = (path, index, size, mtime_ns)
    hit = _MEMORY.get(identity)
    if hit is None:
        hit = _MEMORY[identity] = _read_cmap(path, index, size, mtime_ns, cache)
    return hit


def _read_cmap(
    path: str, index: int, size: int, mtime_ns: int, cache: str | None
) -> frozenset[int]:
    key = hashlib.sha256(f"{path}\0{index}\0{size}\0{mtime_ns}".encode()).hexdigest()[:32]
    stored = Path(cache, f"cmap-{key}.txt") if cache else None
    if stored is not None and stored.is_file():
        try:
            return _parse_ranges(stored.read_text(encoding="ascii"))
        except (OSError, ValueError):
            pass
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    font = TTFont(path, fontNumber=index, lazy=True)
    try:
        codes = frozenset(font.getBestCmap() or {})
    finally:
        font.close()
    if stored is not None:
        try:
            stored.parent.mkdir(parents=True, exist_ok=True)
            tmp = stored.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(_format_ranges(codes), encoding="ascii")
            tmp.replace(stored)
        except OSError:
            pass  # a read-only project: no cache, same result
    return codes


def _format_ranges(codes: frozenset[int]) -> str:
    out: list[str] = []
    start = prev = -2
    for code in sorted(codes):
        if code != prev + 1:
            if start >= 0:
                out.append(f"{start:x}-{prev:x}")
            start = code
        prev = code
    if start >= 0:
        out.append(f"{start:x}-{prev:x}")
    return "\n".join(out) + "\n"


def _parse_ranges(text: str) -> frozenset[int]:
    codes: set[int] = set()
    for line in text.split():
        a, _, b = line.partition("-")
        codes.update(range(int(a, 16), int(b, 16) + 1))
    return frozenset(codes)


def cmap(face: Face, cache: Path | None = None) -> frozenset[int]:
    st = Path(face.path).stat()
    return _cmap(face.path, face.index, st.st_size, st.st_mtime_ns, str(cache) if cache else None)


def covered(fonts: Fonts, cache: Path | None = None) -> frozenset[int]:
    """Code points covered by any face of `fonts` (cmaps cached in `cache` when given)."""
    out: frozenset[int] = frozenset()
    for face in fonts.faces:
        out |= cmap(face, cache)
    return out


def ignorable(ch: str) -> bool:
    """Characters that are never drawn: controls, format characters, variation selectors."""
    if ch in " \t\n\r\f":
        return True
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cf", "Zl", "Zp"):
        return True
    code = ord(ch)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def uncovered(text: str, cover: frozenset[int]) -> list[str]:
    """The distinct characters of `text` that no face covers, in order of appearance."""
    seen: dict[str, None] = {}
    for ch in text:
        if ch not in seen and ord(ch) not in cover and not ignorable(ch):
            seen[ch] = None
    return list(seen)


def describe(ch: str) -> str:
    name = unicodedata.name(ch, "")
    shown = ch if unicodedata.category(ch)[0] not in ("C", "Z") else ""
    label = f"U+{ord(ch):04X}"
    if shown:
        label += f" '{shown}'"
    return f"{label} {name}".rstrip() if name else label
