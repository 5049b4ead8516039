"""render/pdf/fonts.py `FontsAhead`: the `fc-list` runs `choose_fonts` asks first, started
before it asks (by the social cards at the start of the render stage) and read when it asks.
Its answer, warnings and errors are those of `choose_fonts` without it; each run is read once
and none is left behind. A fake `fc-list` on PATH stands for fontconfig."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from bipub.config import PdfOptions
from bipub.diagnostics import DiagnosticError
from bipub.render.pdf import fonts as pdf_fonts
from bipub.render.pdf.fonts import FontsAhead, choose_fonts

FAKE_FC_LIST = r"""#!/bin/sh
# fc-list -f FORMAT :family=NAME
echo "$3" >> "$FAKE_FC_LOG"
case "$3" in
  ":family=Regular Only") printf 'Regular Only\t/fonts/r.ttf\t0\t80\t0\n' ;;
  ":family=Both")
    printf 'Both\t/fonts/b-bold.ttf\t0\t200\t0\nBoth\t/fonts/b.ttf\t0\t80\t0\n'
    printf 'Both\t/fonts/b-italic.ttf\t0\t80\t100\n' ;;
  ":family=Mono") printf 'Mono\t/fonts/m.ttf\t0\t80\t0\n' ;;
  ":family=Hangs") exec /bin/sleep 60 ;;
esac
"""

VARIANTS = {
    "first family": PdfOptions(fonts=["Both", "Regular Only"], mono_fonts=["Mono"]),
    "second family, no bold": PdfOptions(fonts=["Missing", "Regular Only"], mono_fonts=["Mono"]),
    "second mono": PdfOptions(fonts=["Both"], mono_fonts=["Missing", "Mono"]),
    "no mono": PdfOptions(fonts=["Both"], mono_fonts=["Missing"]),
    "the same family twice": PdfOptions(fonts=["Both"], mono_fonts=["Both"]),
}


@pytest.fixture
def started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[str]]:
    """The fake fc-list on PATH; the processes started (in order) are listed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "fc-list"
    fake.write_text(FAKE_FC_LIST, encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_FC_LOG", str(tmp_path / "fc.log"))
    procs: list[subprocess.Popen[str]] = []
    real = subprocess.Popen

    def popen(*args: object, **kwargs: object) -> subprocess.Popen[str]:
        proc: subprocess.Popen[str] = real(*args, **kwargs)  # type: ignore[call-overload]
        procs.append(proc)
        return proc

    monkeypatch.setattr(pdf_fonts.subprocess, "Popen", popen)
    return procs


@pytest.mark.parametrize("variant", VARIANTS)
def test_fonts_ahead_answers_as_choose_fonts_alone(
    variant: str, tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    options = VARIANTS[variant]
    alone = choose_fonts(options, tmp_path)
    asked_alone = len(started)
    started.clear()
    ahead = FontsAhead(options)
    # the first text family and the first mono family, started before choose_fonts asks
    first = list(dict.fromkeys([options.fonts[0], options.mono_fonts[0]]))
    assert [proc.args[-1] for proc in started] == [f":family={f}" for f in first]  # type: ignore[index]
    assert choose_fonts(options, tmp_path, ahead) == alone
    ahead.close()
    # each family asked once, the started ones included (the same family asked for the text
    # and the mono fonts is run for each, as without FontsAhead)
    assert len(started) == asked_alone
    assert all(proc.returncode is not None for proc in started)  # (none left running)
    if variant == "second family, no bold":
        (warning,) = alone[1]
        assert "'Regular Only' has no bold face" in warning.message
    else:
        assert alone[1] == []


def test_a_font_file_starts_the_mono_run_only(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    (tmp_path / "text.ttf").write_bytes(b"not read here")
    options = PdfOptions(font_file="text.ttf", fonts=["Both"], mono_fonts=["Mono"])
    ahead = FontsAhead(options)
    assert [proc.args[-1] for proc in started] == [":family=Mono"]  # type: ignore[index]
    fonts, _ = choose_fonts(options, tmp_path, ahead)
    assert fonts.text.from_file and fonts.mono is not None and len(started) == 1


def test_runs_not_read_are_ended(started: list[subprocess.Popen[str]]) -> None:
    """A build that stops before the cards (or a family choose_fonts does not ask) leaves no
    process running and no pipe open."""
    ahead = FontsAhead(VARIANTS["first family"])
    assert len(started) == 2
    ahead.close()
    assert all(proc.returncode is not None for proc in started)
    assert all(proc.stdout is not None and proc.stdout.closed for proc in started)
    ahead.close()  # (closed twice: nothing more)


def test_a_run_not_read_is_not_waited_for_to_its_end(
    started: list[subprocess.Popen[str]],
) -> None:
    """A run nobody reads is killed, not waited for: a build that stopped before the cards
    does not hang on an fc-list that does."""
    ahead = FontsAhead(PdfOptions(fonts=["Hangs"], mono_fonts=["Mono"]))
    ahead.close()
    assert all(proc.returncode is not None for proc in started)
    # (the hanging run, `sleep 60`, ended by the kill: waited for to its end, it exits with 0)
    hung = next(proc for proc in started if "Hangs" in " ".join(map(str, proc.args)))
    assert hung.returncode == -signal.SIGKILL


def test_no_fontconfig_is_the_same_error_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without fc-list, starting the runs says nothing; choose_fonts raises what it raises
    without them, when it asks."""
    monkeypatch.setattr(pdf_fonts.shutil, "which", lambda _name: None)
    options = PdfOptions()
    with pytest.raises(DiagnosticError) as alone:
        choose_fonts(options, tmp_path)
    ahead = FontsAhead(options)
    with pytest.raises(DiagnosticError) as asked:
        choose_fonts(options, tmp_path, ahead)
    assert asked.value.diagnostics == alone.value.diagnostics
    assert "fc-list is not installed" in alone.value.diagnostics[0].message


def test_fc_list_that_cannot_start_is_the_same_error_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An fc-list that cannot be run (not executable): the OSError subprocess raises, raised
    when choose_fonts asks, as without FontsAhead."""
    fake = tmp_path / "fc-list"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o644)
    monkeypatch.setattr(pdf_fonts.shutil, "which", lambda _name: str(fake))
    with pytest.raises(PermissionError):
        choose_fonts(PdfOptions(), tmp_path)
    ahead = FontsAhead(PdfOptions())  # (says nothing yet)
    with pytest.raises(PermissionError):
        choose_fonts(PdfOptions(), tmp_path, ahead)
    ahead.close()
