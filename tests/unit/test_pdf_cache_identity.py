"""Issue 16 item 4 for the PDF cache: a file a cached PDF loaded (an image) that is edited in
place with the same size and its mtime set back (`touch -r`) is seen as changed (its ctime
moved), so the PDF is rendered again instead of served stale."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bipub.render.pdf.cache import RenderCache


def test_a_same_size_edit_with_its_mtime_restored_changes_the_stamp(tmp_path: Path) -> None:
    image = tmp_path / "x.png"
    image.write_bytes(b"AAAA")
    before = RenderCache._stamp(str(image))
    st = image.stat()
    time.sleep(0.01)  # (so the ctime of the edit differs on coarse clocks)
    with image.open("r+b") as f:
        f.write(b"BBBB")
    os.utime(image, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = RenderCache._stamp(str(image))
    assert before is not None and after is not None
    assert after != before
