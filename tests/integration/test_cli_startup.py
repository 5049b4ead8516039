"""The command line's start-up: what `bipub build` imports, and how the process ends.

A build with nothing to do is answered from the prescan (uptodate.py) before the pipeline is
imported: none of the stages' libraries (pydantic, Jinja2, markdown-it, Babel) are loaded. The
program (`python -m bipub`) ends with os._exit once its streams are flushed (cli.run).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bipub import __version__, uptodate
from bipub.pipeline import build
from bipub.project import Project
from tests.conftest import subprocess_env

# what only the stages import: none of it may be loaded by a build that has nothing to do
STAGES = ("bipub.pipeline", "bipub.render", "pydantic", "jinja2", "markdown_it", "babel")

# the command line in a subprocess (not `python -m bipub`: it ends with os._exit), then which
# of STAGES it had imported
PROBE = """
import json, sys
from bipub.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit as exc:
    print("exit", exc.code, file=sys.stderr)
print(json.dumps(sorted(m for m in sys.modules if m in STAGES)))
"""

# what only a build that makes PDFs loads (render/pdf/__init__.py): the HTML pages and llms.txt
# link the PDFs through render/pdf/links.py alone
PDF_MAKING = (
    "bipub.render.pdf.documents",
    "bipub.render.pdf.engine",
    "bipub.render.pdf.pool",
    "bipub.render.pdf.coverage",
    "bipub.render.pdf.breaks",
    "weasyprint",
)


def _probe(project: Path, *args: str, modules: tuple[str, ...] = STAGES) -> tuple[list[str], str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.replace("STAGES", repr(modules)), "-C", str(project), *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1]), result.stderr


def test_a_build_with_nothing_to_do_imports_no_stage(make_project) -> None:
    project = make_project("minimal")
    build(project)
    loaded, stderr = _probe(project, "build")
    assert "Up to date" in stderr, stderr
    assert loaded == [], f"a build with nothing to do imported {loaded}"
    # the same probe sees the stages when there is something to build (other options: --only)
    loaded, stderr = _probe(project, "build", "--only", "json")
    assert "Built" in stderr and "bipub.pipeline" in loaded, (loaded, stderr)


def test_a_build_without_pdfs_does_not_load_what_makes_them(make_project) -> None:
    """A build that makes no PDF (none wanted, or `--only` without pdf) imports none of the
    PDF machinery (~20 ms of each build); the pages still link the PDFs the site has, through
    render/pdf/links.py."""
    project = make_project("side_by_side")  # (its paired post asks for a PDF: `pdf: true`)
    loaded, stderr = _probe(project, "build", "--no-cache", "--only", "html", modules=PDF_MAKING)
    assert "Built" in stderr and loaded == [], (loaded, stderr)
    page = (project / "site/ko/blog/paired/index.html").read_text(encoding="utf-8")
    assert "paired.pdf" in page  # the post's PDF, linked
    post = project / "content/ko/posts/paired.md"
    post.write_text(post.read_text(encoding="utf-8").replace("pdf: true\n", ""), "utf-8")
    loaded, stderr = _probe(project, "build", "--no-cache", modules=PDF_MAKING)  # every kind
    assert "Built" in stderr, stderr
    assert loaded == [], f"a build without PDFs imported {loaded}"


def test_a_site_without_a_cv_does_not_load_the_cv_models(make_project) -> None:
    """Pairing imports the CV's models (model/cv.py, pair/cv_merge.py: ~4 ms of a cold build's
    start) only for a site that has a CV."""
    cv_models = ("bipub.model.cv", "bipub.pair.cv_merge")
    project = make_project("side_by_side")  # (no cv.yaml)
    loaded, stderr = _probe(project, "build", "--no-cache", "--only", "html", modules=cv_models)
    assert "Built" in stderr and loaded == [], (loaded, stderr)
    project = make_project("minimal")  # (a CV in each language)
    loaded, stderr = _probe(project, "build", "--no-cache", "--only", "html", modules=cv_models)
    assert "Built" in stderr and loaded == sorted(cv_models), (loaded, stderr)


def test_a_strict_build_with_nothing_to_do_fails_on_the_last_warnings(make_project) -> None:
    """--strict on an up-to-date output fails as the build that made it would have: the early
    answer repeats the recorded warnings, as errors."""
    project = make_project("minimal")
    post = next((project / "content" / "en").rglob("*.md"))
    post.write_text(post.read_text(encoding="utf-8") + "\n[dead](#no-such-anchor)\n")
    first = build(project)
    assert first.warnings, "the sample needs a warning for this test"
    loaded, stderr = _probe(project, "build", "--strict")
    assert "(--strict)" in stderr and "exit 1" in stderr, stderr
    assert loaded == []


def _program(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bipub", *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        check=False,
    )


def test_the_program_flushes_its_output_and_keeps_its_exit_status(make_project) -> None:
    """`python -m bipub` ends with os._exit: what it printed into a pipe (stdout is buffered
    there) still arrives, and its status is the command's (0 built, 1 errors in the content,
    2 a bad configuration or invocation)."""
    version = _program("--version")
    assert version.returncode == 0 and __version__ in version.stdout, version
    project = make_project("minimal")
    ok = _program("-C", str(project), "build", "--only", "json")
    assert ok.returncode == 0 and "Built" in ok.stderr, ok.stderr
    post = next((project / "content" / "en").rglob("*.md"))
    post.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    errors = _program("-C", str(project), "build", "--only", "json")
    assert errors.returncode == 1 and "nothing was written" in errors.stderr, errors.stderr
    (project / "bipub.yaml").write_text("languages: [\n", encoding="utf-8")
    config = _program("-C", str(project), "build", "--only", "json")
    assert config.returncode == 2 and "bipub.yaml" in config.stderr, config.stderr
    usage = _program("build", "--no-such-option")
    assert usage.returncode == 2 and "no-such-option" in usage.stderr


def test_the_prescans_first_answer_is_whether_the_inputs_are_the_last_builds(
    make_project,
) -> None:
    """`same_inputs` (the child's first answer, before the scan: a build with work to do
    imports the pipeline without waiting for more) is the in-process answer, child or not."""
    project = make_project("minimal")
    build(project)
    target, key = uptodate.build_key(Project(project), None, None, None)

    def answers() -> list[bool]:
        found = []
        for fork in (True, False):
            with uptodate.Prescan(project, target, key, fork=fork) as prescan:
                found.append(prescan.same_inputs())
                assert (prescan.unchanged() is not None) == found[-1]  # (the output is intact)
        return found

    assert answers() == [True, True]
    post = next((project / "content" / "en").rglob("*.md"))
    post.write_text(post.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    assert answers() == [False, False]
    build(project)
    assert answers() == [True, True]
    _, other = uptodate.build_key(Project(project), None, None, {"json"})
    with uptodate.Prescan(project, target, other) as prescan:
        assert not prescan.same_inputs()  # other options
