"""A control character in YAML is an error at its line, whichever parser runs (issue 16 #13)."""

from __future__ import annotations

import pytest
import yaml

from bipub.load import yaml_strict


@pytest.mark.parametrize("loader", ["CSafeLoader", "SafeLoader"])
def test_a_nul_is_reported_at_its_line(loader: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(yaml, loader):
        pytest.skip(f"{loader} is not available")
    monkeypatch.setattr(yaml_strict, "_Loader", getattr(yaml, loader))
    # Korean before the NUL: libyaml counts UTF-8 bytes, the Python reader characters
    text = 'title: 베타 글\ndescription: "번역되지\0 않은 글"\n'
    with pytest.raises(yaml_strict.YamlError) as caught:
        yaml_strict.load_yaml(text, "content/ko/posts/beta.md", line_offset=1)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.line == 3
    assert "control character U+0000" in diagnostic.message
