"""What a command's start does not import: pydantic's plugin loader where no plugin is
installed (pydantic_plugins.py), `importlib.metadata` for the versions bipub reads
(dist_version.py). Each shortcut gives what the stock
way gives, and is not taken where it might not."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from bipub import dist_version, pydantic_plugins
from bipub.render import upstream
from tests.conftest import REPO

ENV = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}

BUILD_IMPORTS = """
import sys
from bipub.pydantic_plugins import skip_loader
reason = skip_loader()
import bipub.cli, bipub.config, bipub.load.content, bipub.render.search
import bipub.render.search_shards
from bipub.render import upstream
upstream.installed()
from bipub.load.image_refs import parser_version
parser_version()
import pydantic

class M(pydantic.BaseModel):
    x: int

assert M(x="3").x == 3
from pydantic.plugin._loader import get_plugins
print(reason, list(get_plugins()), type(sys.modules["pydantic.plugin._loader"]).__name__,
      "importlib.metadata" in sys.modules, "email" in sys.modules)
"""


def test_the_start_imports_no_importlib_metadata() -> None:
    """The configuration's models, the content loader, the search modules and the versions
    the fast paths and the document cache read: no `importlib.metadata` (nor `email`);
    pydantic's plugin loader skipped (no plugin here) and still answering no plugins,
    pydantic's models validating as ever. (pair/images.py still imports it: its cache stamp
    reads Pillow's version.)"""
    out = subprocess.run(
        [sys.executable, "-c", BUILD_IMPORTS], env=ENV, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["None", "[]", "_NoPlugins", "False", "False"]


def test_pydantic_finds_no_plugin_here_either() -> None:
    """The stock loader in this environment: no plugin, what the skipped loader answers."""
    code = "from pydantic.plugin._loader import get_plugins; print(list(get_plugins()))"
    out = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True)
    assert out.stdout.split() == ["[]"], out.stderr
    assert pydantic_plugins.stock_reason(modules={}) is None


def _dist(folder: Path, name: str, points: str | None) -> None:
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    if points is not None:
        (info / "entry_points.txt").write_text(points, encoding="utf-8")


def test_a_declared_pydantic_plugin_keeps_pydantics_loader(tmp_path: Path) -> None:
    _dist(tmp_path, "other", "[console_scripts]\nx = y:z\n")
    _dist(tmp_path, "noplugins", None)
    assert pydantic_plugins.stock_reason(path=[str(tmp_path)], meta_path=[], modules={}) is None
    _dist(tmp_path, "logfire", "[console_scripts]\nx = y:z\n\n[pydantic]\nlf = logfire:plugin\n")
    reason = pydantic_plugins.stock_reason(path=[str(tmp_path)], meta_path=[], modules={})
    assert reason is not None and "logfire-1.0.dist-info" in reason


def test_a_path_that_is_no_folder_keeps_pydantics_loader(tmp_path: Path) -> None:
    (tmp_path / "lib.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (tmp_path / "thing.egg").mkdir()
    for entry in ("lib.zip", "thing.egg"):
        reason = pydantic_plugins.stock_reason(
            path=[str(tmp_path / entry)], meta_path=[], modules={}
        )
        assert reason is not None and "not a plain folder" in reason
    assert (
        pydantic_plugins.stock_reason(path=[str(tmp_path / "none")], meta_path=[], modules={})
        is None
    )


def test_another_distribution_finder_keeps_pydantics_loader(tmp_path: Path) -> None:
    class Finder:
        def find_distributions(self, context: object = None) -> list[object]:
            return []

    reason = pydantic_plugins.stock_reason(path=[str(tmp_path)], meta_path=[Finder()], modules={})
    assert reason is not None and "import finder" in reason


def test_another_pydantic_version_keeps_pydantics_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pydantic_plugins, "VERIFIED", ("0.0.1",))
    reason = pydantic_plugins.stock_reason(path=[], meta_path=[], modules={})
    assert reason is not None and "0.0.1" in reason


def test_the_loader_is_said_at_verbose() -> None:
    code = (
        "from bipub.cli import run; import sys;"
        "sys.argv = ['bipub', '-v', '-C', '/nonexistent-bipub', 'explain', 'config']; run()"
    )
    out = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True)
    assert "pydantic's plugin loader skipped" in out.stderr


@pytest.mark.parametrize(
    ("project", "package"),
    [
        ("markdown-it-py", "markdown_it"),
        ("MarkupSafe", "markupsafe"),
        ("Jinja2", "jinja2"),
        ("pydantic", "pydantic"),
        ("PyYAML", "yaml"),
        ("pillow", "PIL"),
    ],
)
def test_a_version_from_its_dist_info_folder_is_importlib_metadatas(
    project: str, package: str
) -> None:
    assert dist_version.version(project, package) == importlib.metadata.version(project)


def test_an_uncertain_version_is_left_to_importlib_metadata(tmp_path: Path) -> None:
    assert dist_version.version("no-such-dist", "no_such_package_bipub") is None
    (tmp_path / "thing-1.0.dist-info").mkdir()
    assert dist_version.dist_info_version(str(tmp_path), "Thing") == "1.0"
    (tmp_path / "thing-2.0.dist-info").mkdir()  # two: which one Python would read is unsure
    assert dist_version.dist_info_version(str(tmp_path), "thing") is None
    assert dist_version.dist_info_version(str(tmp_path / "none"), "thing") is None


def test_the_fast_paths_versions_are_the_stock_ones() -> None:
    assert upstream.installed()["MarkupSafe"] == upstream._markupsafe_attribute()
    assert upstream.installed()["markdown-it-py"] == importlib.metadata.version("markdown-it-py")
