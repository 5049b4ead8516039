"""An installed distribution's version without `importlib.metadata`.

`importlib.metadata.version(name)` imports `importlib.metadata` and `email` (~55 M instructions,
~4 % of a cold build's imports) and then looks through every folder of `sys.path` and parses
the distribution's METADATA (~8 M a call). Installers name a distribution's metadata folder
`<name>-<version>.dist-info` (the binary distribution format: the name with `-` replaced by
`_`), from the same metadata; so the version is in the name of that folder beside the
distribution's package. `version` reads it there, and gives None where there is not exactly one
such folder (an egg, a zip, a source checkout on `sys.path`): then the caller asks
`importlib.metadata`.
"""

from __future__ import annotations

import os
import re
from importlib.util import find_spec

_SEPARATORS = re.compile(r"[-_.]+")


def normalized(name: str) -> str:
    return _SEPARATORS.sub("_", name).lower()


def dist_info_version(folder: str, project: str) -> str | None:
    """The version in the name of the one `<project>-<version>.dist-info` folder in `folder`
    (names compared as normalized), or None."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    wanted = normalized(project)
    found = []
    for entry in names:
        stem, dot, suffix = entry.rpartition(".")
        if dot and suffix.lower() == "dist-info":
            name, _, version = stem.partition("-")
            if version and "-" not in version and normalized(name) == wanted:
                found.append(version)
    return found[0] if len(found) == 1 else None


def package_folder(package: str) -> str | None:
    """The folder holding the top-level package `package`, found without importing it."""
    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.submodule_search_locations:
        return None
    return os.path.dirname(os.path.dirname(spec.origin))


def version(project: str, package: str) -> str | None:
    """The installed version of the distribution `project` whose top-level package is
    `package`, as `importlib.metadata.version(project)` gives it, from its `.dist-info`
    folder's name; None where that is not certain (the caller asks `importlib.metadata`)."""
    folder = package_folder(package)
    return dist_info_version(folder, project) if folder is not None else None
