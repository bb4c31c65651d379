"""What a directory that is no git tree gives the snapshot: its files, minus excludes.

The excludes are :data:`ALWAYS` (caches, virtual environments, version-control
directories) and the patterns of the root's ``.gitignore``, read as git reads them in
this subset: a pattern without ``/`` matches a name at any depth, one with ``/`` a path
from the root, a trailing ``/`` only directories, ``*``, ``?`` and ``[...]`` as in the
shell; ``!`` (re-including) is not supported and such lines are ignored. Links are kept
as links (a linked directory is not followed); what is neither a file nor a link (a
FIFO, a socket) is left out.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import Path

from automodel_launch.loading.files import TooLarge, read_regular

ALWAYS = (".git/", ".hg/", ".svn/", "__pycache__/", "*.pyc", ".venv/", "venv/", ".nox/",
          ".tox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", "node_modules/")  # fmt: skip
IGNORE_FILE = ".gitignore"
MAX_IGNORE_BYTES = 1024 * 1024


def ignore_patterns(root: Path) -> list[str]:
    """:data:`ALWAYS` and the root's ``.gitignore`` lines (comments, blanks and ``!`` out)."""
    patterns = list(ALWAYS)
    try:
        text = read_regular(root / IGNORE_FILE, MAX_IGNORE_BYTES).decode("utf-8", "replace")
    except (OSError, TooLarge):
        return patterns
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")):
            patterns.append(line)
    return patterns


def ignored(relative: str, is_dir: bool, patterns: list[str]) -> bool:
    name = relative.rsplit("/", 1)[-1]
    for pattern in patterns:
        if pattern.endswith("/"):
            if not is_dir:
                continue
            pattern = pattern[:-1]
        if "/" in pattern.strip("/") or pattern.startswith("/"):
            if fnmatchcase(relative, pattern.lstrip("/")):
                return True
        elif fnmatchcase(name, pattern):
            return True
    return False


def walk(root: Path) -> list[str]:
    """Every entry below ``root`` that is no directory and not ignored, as paths relative
    to it, sorted (:func:`~automodel_launch.snapshot.take.take` leaves out what is neither
    a file nor a link, and names it)."""
    patterns = ignore_patterns(root)
    found: list[str] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        with os.scandir(root / relative if relative else root) as entries:
            for entry in entries:
                path = f"{relative}/{entry.name}" if relative else entry.name
                is_dir = entry.is_dir(follow_symlinks=False)
                if ignored(path, is_dir, patterns):
                    continue
                if is_dir:
                    pending.append(path)
                else:
                    found.append(path)  # what is no file or link is named as left out
    return sorted(found)
