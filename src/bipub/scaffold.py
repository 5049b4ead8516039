"""`bipub init DIR`: copy the starter project (bipub/skeleton/) into a new or empty folder."""

from __future__ import annotations

import shutil
from pathlib import Path

SKELETON = Path(__file__).resolve().parent / "skeleton"


def create_project(target: Path) -> list[Path]:
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} is not empty; bipub init only writes into a new folder")
    written: list[Path] = []
    for src in sorted(SKELETON.rglob("*")):
        if "__pycache__" in src.parts:
            continue
        dest = target / src.relative_to(SKELETON)
        if src.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        written.append(dest)
    return written
