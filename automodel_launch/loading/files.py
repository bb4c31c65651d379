"""Read a file the tool did not write: regular files only, never more than a limit, never
blocking. Recipes are read by path; a job directory's files by name inside the directory
(``dir_fd``), without following a symbolic link (``follow=False``)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class TooLarge(Exception):
    """Larger than the limit (``size`` is what was seen)."""

    def __init__(self, size: int) -> None:
        self.size = size


class NotRegular(Exception):
    """A FIFO, device, socket or (``follow=False``) symbolic link (``kind`` says which)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


def read_regular(
    path: str | Path, limit: int, *, dir_fd: int | None = None, follow: bool = True
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Opened without blocking (a FIFO would wait for a writer) and checked on the open
    descriptor, so nothing can swap the file between the check and the read; at most
    ``limit + 1`` bytes are read whatever ``st_size`` says (a device reports 0).
    """
    fd = open_regular(path, dir_fd=dir_fd, follow=follow)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise TooLarge(size)
        raw = _read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise TooLarge(len(raw))
    return raw


def read_chunk(
    path: str | Path, offset: int, limit: int, *, dir_fd: int | None = None, follow: bool = True
) -> bytes:
    """At most ``limit`` bytes of a regular file from ``offset`` (a file that grows: a log)."""
    fd = open_regular(path, dir_fd=dir_fd, follow=follow)
    try:
        os.lseek(fd, offset, os.SEEK_SET)
        return _read(fd, limit)
    finally:
        os.close(fd)


def read_tail(
    path: str | Path, limit: int, *, dir_fd: int | None = None, follow: bool = True
) -> bytes:
    """The last ``limit`` bytes (at most) of a regular file: the end of a log of any size."""
    fd = open_regular(path, dir_fd=dir_fd, follow=follow)
    try:
        size = os.fstat(fd).st_size
        os.lseek(fd, max(0, size - limit), os.SEEK_SET)
        return _read(fd, limit)
    finally:
        os.close(fd)


def open_regular(path: str | Path, *, dir_fd: int | None = None, follow: bool = True) -> int:
    """A descriptor open for reading on a regular file; :class:`NotRegular` for anything
    else (with ``follow=False``, a symbolic link too), ``IsADirectoryError`` for a folder."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise NotRegular("a symbolic link") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise NotRegular(_kind(mode))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read(fd: int, most: int) -> bytes:
    chunks: list[bytes] = []
    left = most
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
