"""The ``nemo-automodel`` distribution installed beside this tool, found without importing.

``importlib.metadata`` costs more to import than validating a file does (validate runs on
every save), so the search is the import system's own, done by hand: the entries of
``sys.path`` in order, each listed once with :func:`os.scandir`, for a
``nemo_automodel-VERSION.dist-info`` (or ``.egg-info``) and the ``nemo_automodel``
package. The version is the first distribution's; the package is the first directory
holding ``nemo_automodel/__init__.py``, which is what ``import nemo_automodel`` would load.
When the package does not sit beside its distribution's metadata (an editable install of
a checkout), the version the metadata states is not the code's (a checkout of main says
0.5.0): it is read as the checkout it is.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "nemo_automodel"
_PREFIXES = ("nemo_automodel-", "nemo-automodel-")
_SUFFIXES = (".dist-info", ".egg-info")


@dataclass(frozen=True)
class Installed:
    version: str
    """As the distribution's metadata names it (``0.7.0``, ``0.8.0rc1``)."""
    package: Path | None
    """The ``nemo_automodel`` directory Python would import, None when none is found."""
    editable: bool
    """The package does not sit beside the metadata (``pip install -e``)."""


def _skipped() -> set[str]:
    """The standard library's own directories: no distribution is installed there."""
    stdlib = os.path.dirname(os.__file__)
    return {stdlib, os.path.join(stdlib, "lib-dynload")}


def _version(name: str) -> str | None:
    for prefix in _PREFIXES:
        for suffix in _SUFFIXES:
            if name.startswith(prefix) and name.endswith(suffix):
                middle = name[len(prefix) : -len(suffix)]
                return middle.split("-", 1)[0] or None  # an egg-info may add -pyX.Y
    return None


def find(path: list[str] | None = None) -> Installed | None:
    """The installed distribution (None: none on ``path``, by default ``sys.path``)."""
    version: str | None = None
    meta_dir: str | None = None
    package: str | None = None
    skipped = _skipped()
    for entry in sys.path if path is None else path:
        entry = entry or os.getcwd()
        if entry in skipped or (version is not None and package is not None):
            continue
        try:
            names = [e.name for e in os.scandir(entry)]
        except OSError:
            continue  # a zip, a file, or a folder that is not there
        init = os.path.join(entry, PACKAGE, "__init__.py")
        if package is None and PACKAGE in names and os.path.isfile(init):
            package = os.path.join(entry, PACKAGE)
        if version is None:
            for name in names:
                found = _version(name)
                if found is not None:
                    version, meta_dir = found, entry
                    break
    if version is None:
        return None
    beside = package is not None and os.path.dirname(package) == meta_dir
    return Installed(version, Path(package) if package else None, editable=not beside)
