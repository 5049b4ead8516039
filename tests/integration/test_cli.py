"""The command line: init, version, help, exit codes, -C."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bipub import __version__


def test_version(cli) -> None:
    result = cli("--version")
    assert result.exit_code == 0 and __version__ in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["build", "--help"],
        ["serve", "--help"],
        ["init", "--help"],
        ["i18n", "extract", "--help"],
    ],
)
def test_help_everywhere(cli, args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 0
    assert "Usage:" in result.stdout


def test_bad_invocation_exits_2(cli) -> None:
    assert cli("build", "--no-such-flag").exit_code == 2
    assert cli("no-such-command").exit_code == 2


def test_missing_config_exits_2(cli, tmp_path: Path) -> None:
    result = cli("-C", str(tmp_path), "build")
    assert result.exit_code == 2
    assert "no bipub.yaml" in result.stderr


def test_init_names_the_folder_as_the_shell_does(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bipub -C DIR init blog` creates DIR/blog: the next step names that folder, not `blog`
    (user21: it printed `bipub -C blog serve`, a folder the shell does not have)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sites").mkdir()
    result = cli("-C", "sites", "init", "blog")
    assert result.exit_code == 0, result.stderr
    assert "Next: bipub -C sites/blog serve" in result.stderr
    assert cli("init", "other").stderr.count("bipub -C other ") == 2
    away = tmp_path / "sites" / "blog"
    monkeypatch.chdir(away)
    far = cli("-C", str(tmp_path), "init", "third")
    assert f"Next: bipub -C {tmp_path / 'third'} serve" in far.stderr


def test_init_creates_a_project_that_builds(cli, tmp_path: Path) -> None:
    result = cli("-C", str(tmp_path), "init", "blog")
    assert result.exit_code == 0, result.stderr
    # the next step previews it: opened as a file, the site (root-relative links) has no style
    assert " serve   (builds it and previews it" in result.stderr
    assert "index.html" not in result.stderr
    project = tmp_path / "blog"
    for rel in (
        "bipub.yaml",
        "content/en/cv.yaml",
        "content/ko/posts/hello.md",
        "templates",
        "locales",
    ):
        assert (project / rel).exists(), rel
    built = cli("-C", str(project), "build")
    assert built.exit_code == 0, built.stderr
    assert (project / "site/ko/blog/hello/index.html").is_file()
    assert (project / "site/en/blog/hello/index.html").is_file()
    assert cli("-C", str(tmp_path), "init", "blog").exit_code == 2  # not empty


def test_python_dash_m_works(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bipub", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and __version__ in result.stdout


def test_i18n_extract_update_compile(cli, tmp_path: Path) -> None:
    assert cli("-C", str(tmp_path), "init", "p").exit_code == 0
    project = tmp_path / "p"
    (project / "templates" / "partials").mkdir(parents=True)
    (project / "templates" / "extra.html").write_text("{{ _('Hello %(name)s', name='x') }}\n")
    assert cli("-C", str(project), "i18n", "extract").exit_code == 0
    assert 'msgid "Hello %(name)s"' in (project / "locales/messages.pot").read_text()
    assert cli("-C", str(project), "i18n", "update").exit_code == 0
    po = project / "locales/ko/LC_MESSAGES/messages.po"
    text = po.read_text().replace(
        'msgid "Hello %(name)s"\nmsgstr ""', 'msgid "Hello %(name)s"\nmsgstr "안녕 %(name)s"'
    )
    po.write_text(text)
    # a catalog kept elsewhere and linked in: `update` writes the file it points to, the link stays
    kept = tmp_path / "shared-catalogs" / "ko.po"
    kept.parent.mkdir()
    po.replace(kept)
    po.symlink_to(kept)
    (project / "templates" / "extra.html").write_text(
        "{{ _('Hello %(name)s', name='x') }}{{ _('Bye') }}\n"
    )
    assert cli("-C", str(project), "i18n", "extract").exit_code == 0
    assert cli("-C", str(project), "i18n", "update").exit_code == 0
    assert po.is_symlink() and 'msgid "Bye"' in kept.read_text()
    text = kept.read_text()
    result = cli("-C", str(project), "i18n", "compile")
    assert result.exit_code == 0, result.stderr
    assert (project / "locales/ko/LC_MESSAGES/messages.mo").is_file()
    po.write_text(text.replace("안녕 %(name)s", "안녕 %(nmae)s"))
    bad = cli("-C", str(project), "i18n", "compile")
    assert bad.exit_code == 1 and "placeholders" in bad.stderr
    po.write_text(text.replace('msgstr "안녕 %(name)s"', 'msgstr "<b>안녕</b> %(name)s"'))
    bad = cli("-C", str(project), "i18n", "compile")
    assert bad.exit_code == 1 and "adds markup" in bad.stderr


def test_the_progress_bar_runs_no_thread(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """On a terminal the build shows a progress bar; it must not run a refresh thread, or the
    build would not fork its workers (parallel.can_fork) and load every document serially."""
    import threading

    from bipub.commands import ui as cli_ui
    from bipub.parallel import can_fork

    monkeypatch.setattr(cli_ui.sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("rich.console.Console.is_terminal", property(lambda self: True))
    ui = cli_ui.Ui(tmp_path, 0)
    with cli_ui.Progress(ui) as (on_start, on_pages):
        assert on_start is not None and on_pages is not None  # the bar is shown
        on_start(10)
        on_pages(3)
        assert threading.active_count() == 1 and can_fork()


@pytest.mark.parametrize("value", ["yesterday", "99999999999999"])
def test_i18n_extract_says_a_source_date_epoch_that_is_no_date(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """The catalogs' dates come from SOURCE_DATE_EPOCH (schedule.source_date_epoch, the one
    reader the build's scheduled posts and PDFs use): a value that is no date was a ValueError
    traceback here; it is a usage error naming the variable, and no catalog is written."""
    assert cli("-C", str(tmp_path), "init", "p").exit_code == 0
    project = tmp_path / "p"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    result = cli("-C", str(project), "i18n", "extract")
    assert result.exit_code == 1
    assert f"SOURCE_DATE_EPOCH={value!r} is not a number of seconds since 1970" in result.stderr
    assert not (project / "locales/messages.pot").exists()
