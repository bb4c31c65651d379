"""AutoModel's source in a directory, listed and read without running or following anything.

The tree is the ``nemo_automodel`` package of a checkout (``repo_root``,
``--automodel-source``) or of an installation. :func:`listing` walks it with
:func:`os.scandir`, never following a link: a link whose target lies outside the tree,
anything that is not a regular file or a directory (a FIFO, a device), a name that is not
text, and a tree past the bounds below make it unreadable, with the reason in one line.
:func:`read` opens each ``.py`` file without following a link and without blocking,
checks it is still the regular file of the size listed, and decodes it as UTF-8.
Nothing is imported or executed: the files are parsed by
:mod:`automodel_launch.automodel.extract`.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import NamedTuple

PACKAGE = "nemo_automodel"
MAX_FILES = 5_000
"""Python files in the package (AutoModel 0.7.0 has 803)."""
MAX_ENTRIES = 50_000
"""Names walked in the package, every kind (caches, data, docs)."""
MAX_FILE_BYTES = 4 << 20
"""One Python file (AutoModel's largest is 150 kB)."""
MAX_TOTAL_BYTES = 64 << 20
"""Every Python file together (AutoModel 0.7.0's are 13 MB)."""
MAX_SECONDS = 20.0
"""Listing and reading together, checked between files."""
SKIPPED_DIRS = frozenset({"__pycache__"})


class Unreadable(Exception):
    """The tree cannot be read; the message says why, in words for a note."""


class Listing(NamedTuple):  # a NamedTuple: a dataclass costs a cached validate ms to make
    root: Path
    """The package directory (``.../nemo_automodel``)."""
    files: tuple[tuple[str, int, int], ...]
    """``(path inside the distribution, size, mtime_ns)`` of each ``.py`` file, sorted."""
    started: float


def package_in(directory: Path) -> Path | None:
    """The ``nemo_automodel`` package in ``directory`` (a checkout, a site directory), or
    ``directory`` itself when it is that package; None when there is none."""
    for candidate in (directory / PACKAGE, directory):
        if candidate.name != PACKAGE:
            continue
        try:
            mode = os.lstat(candidate / "__init__.py").st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) and not os.path.islink(candidate):
            return candidate
    return None


def listing(package: Path, *, clock: float | None = None) -> Listing:
    """Every ``.py`` file under ``package``, with its size and modification time."""
    started = time.monotonic() if clock is None else clock
    root = os.path.realpath(package)
    base = len(os.path.dirname(root)) + 1
    files: list[tuple[str, int, int]] = []
    entries = 0
    total = 0
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            scanned = list(os.scandir(directory))
        except OSError as exc:
            raise Unreadable(f"{directory} cannot be listed ({exc.strerror or exc})") from None
        entries += len(scanned)
        if entries > MAX_ENTRIES:
            raise Unreadable(f"{root} holds more than {MAX_ENTRIES:,} names")
        _in_time(started, root)
        for entry in scanned:
            _text_name(entry.name, root)
            if entry.is_symlink():
                _link_inside(entry.path, root)
                continue  # its target is read where it lies, when that is in the tree
            if entry.is_dir(follow_symlinks=False):  # the kind from the listing: no stat
                if entry.name not in SKIPPED_DIRS:
                    pending.append(entry.path)
            elif not entry.is_file(follow_symlinks=False):
                raise Unreadable(f"{entry.path} is not a regular file or directory")
            elif entry.name.endswith(".py"):
                info = entry.stat(follow_symlinks=False)
                if info.st_size > MAX_FILE_BYTES:
                    raise Unreadable(f"{entry.path} is larger than {MAX_FILE_BYTES >> 20} MB")
                total += info.st_size
                name = entry.path[base:].replace(os.sep, "/")
                files.append((name, info.st_size, info.st_mtime_ns))
        if len(files) > MAX_FILES:
            raise Unreadable(f"{root} holds more than {MAX_FILES:,} Python files")
        if total > MAX_TOTAL_BYTES:
            raise Unreadable(f"the Python files under {root} are over {MAX_TOTAL_BYTES >> 20} MB")
    return Listing(Path(root), tuple(sorted(files)), started)


def read(found: Listing) -> dict[str, str]:
    """The text of each listed file (path inside the distribution -> text)."""
    sources: dict[str, str] = {}
    base = found.root.parent
    for name, size, _ in found.files:
        _in_time(found.started, found.root)
        path = base / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise Unreadable(f"{path} cannot be read ({exc.strerror or exc})") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size != size:
                raise Unreadable(f"{path} changed while it was read")
            data = _read_all(fd, size)
        finally:
            os.close(fd)
        if data is None:
            raise Unreadable(f"{path} changed while it was read")
        try:
            sources[name] = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unreadable(f"{path} is not UTF-8 text (byte {exc.start})") from None
    return sources


def _read_all(fd: int, size: int) -> bytes | None:
    """The file's ``size`` bytes; None when it holds another number of them."""
    chunks = []
    left = size
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return None if len(data) != size or os.read(fd, 1) else data


def _text_name(name: str, root: str) -> None:
    try:
        name.encode("utf-8")  # a byte that is not UTF-8 is a lone surrogate here
    except UnicodeEncodeError:
        raise Unreadable(f"a name under {root} is not UTF-8 text") from None
    if not name.isprintable():
        raise Unreadable(f"a name under {root} is not printable text")


def _link_inside(link: str, root: str) -> None:
    target = os.path.realpath(link)
    if target != root and not target.startswith(root + os.sep):
        raise Unreadable(f"{link} is a link out of the tree (to {target})")


def _in_time(started: float, root: Path | str) -> None:
    if time.monotonic() - started > MAX_SECONDS:
        raise Unreadable(f"reading {root} took more than {MAX_SECONDS:g} s")
