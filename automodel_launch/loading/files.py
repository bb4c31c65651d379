"""Read a recipe file: regular files only, never more than a limit, never blocking."""

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
    """A FIFO, device or socket (``kind`` says which)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


def read_regular(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Opened without blocking (a FIFO would wait for a writer) and checked on the open
    descriptor, so nothing can swap the file between the check and the read; at most
    ``limit + 1`` bytes are read whatever ``st_size`` says (a device reports 0).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(_kind(info.st_mode))
        if info.st_size > limit:
            raise TooLarge(info.st_size)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if len(raw) > limit:
        raise TooLarge(len(raw))
    return raw


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
