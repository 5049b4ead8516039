"""Which code made a cached file: bipub's version and a digest of its modules.

Every file bipub keeps between runs (.bipub-cache/, the user's cache folder, the up-to-date
record) is keyed by what made it, so that another bipub's file is not read as this one's. A
release changes `__version__`, but a source checkout, an editable install or an install from a
git branch keeps one version across commits: keyed by the version alone, such a bipub served
the bodies, PDFs and warnings an earlier commit's code had made, as if they were its own, until
`.bipub-cache` was removed by hand. `CODE` adds a digest of the name, size and modification
time of each of the package's `.py` files (~170 stats, ~2 ms at import): any change of the
code is another `CODE`, and a rebuild reads nothing the earlier code kept. What bipub writes
into a site (a PDF's producer, `bipub --version`) says `__version__`, never `CODE`: outputs
do not depend on where or when the code was installed.
"""

from __future__ import annotations

import hashlib
import os

from bipub import __version__


def digest(folder: str) -> str:
    """A digest of the `.py` files under `folder` (names relative to it, sizes, modification
    times), in a stable order; folders named `__pycache__` are not looked in."""
    h = hashlib.blake2b(digest_size=8)
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(os.path.join(folder, rel)) as found:
            entries = sorted(found, key=lambda e: e.name)
        for entry in reversed(entries):
            name = os.path.join(rel, entry.name)
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    stack.append(name)
            elif entry.name.endswith(".py"):
                st = entry.stat()
                h.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


CODE = f"{__version__}+{digest(os.path.dirname(os.path.abspath(__file__)))}"
