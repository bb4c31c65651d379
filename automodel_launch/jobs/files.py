"""What the tool reads back from a job directory and writes into it: one reader, one writer.

Reading (:func:`read_job_file`, :func:`read_job_chunk`): a file is named inside its job
directory (one name, no ``/``) and opened relative to the directory's descriptor with
``O_NOFOLLOW``: **a symbolic link in the job directory is refused, wherever it points**
(inside the directory or out of it). The tool never makes links there, and nothing it
reads needs one: a link is someone else's doing. Only regular files are read (a FIFO
would block, a device never ends), never more than a limit, never blocking; bytes are
decoded as UTF-8 with replacement. What is read is then parsed into a typed value, or
"unknown" with a note saying why (:func:`exit_status`, :func:`cancelled_marker`).

Writing (:func:`write_job_file`): a new temporary file in the directory (``O_CREAT |
O_EXCL | O_NOFOLLOW``), renamed over the name: a link at that name is replaced, never
written through, and a reader never sees half a file. The text passes
:func:`automodel_launch.written.job_file` first, as every job directory file does.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from automodel_launch.layout import CANCELLED, EXIT_CODE, RANK_LOGS
from automodel_launch.loading.files import (
    NotRegular,
    TooLarge,
    read_chunk,
    read_regular,
    read_tail,
)

T = TypeVar("T")
_Read = Callable[[int], bytes]

SMALL_FILE_BYTES = 4096
"""``exit_code`` and ``cancelled`` hold one short line."""
_EXIT_STATUS = re.compile(r"[ \t\r\n]*(-?[0-9]{1,3})[ \t\r\n]*")
"""What the job writes: ``printf "%s\\n" "$?"`` (0-255), or a local run's return code
(-N when signal N ended it); ASCII digits only."""
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


class Unreadable(Exception):
    """A job directory file that is there but cannot be read as one (the message names
    it and says why: a link, a named pipe, a device, too large, no permission)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot read {path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Reading(Generic[T]):
    """A value read back from a job directory, or None ("unknown") with the reason."""

    value: T | None
    note: str | None = None


def read_job_file(job_dir: Path, name: str, limit: int) -> str | None:
    """The text of ``job_dir/name`` (at most ``limit`` bytes, decoded with replacement);
    None when it is not there; :class:`Unreadable` when it is there but is no such file."""
    raw = read_job_bytes(job_dir, name, limit)
    return None if raw is None else raw.decode("utf-8", errors="replace")


def read_job_bytes(job_dir: Path, name: str, limit: int) -> bytes | None:
    """The bytes of ``job_dir/name`` (at most ``limit``), as :func:`read_job_file` reads them."""
    return _in_directory(job_dir, name, lambda fd: read_regular(name, limit, dir_fd=fd,
                                                                follow=False), limit)  # fmt: skip


def read_job_chunk(job_dir: Path, name: str, offset: int, limit: int) -> bytes | None:
    """At most ``limit`` bytes of ``job_dir/name`` from ``offset`` (a log being written);
    None when it is not there (yet); :class:`Unreadable` as :func:`read_job_file`."""
    return _in_directory(
        job_dir, name, lambda fd: read_chunk(name, offset, limit, dir_fd=fd, follow=False), limit
    )


def read_job_tail(job_dir: Path, name: str, limit: int) -> bytes | None:
    """The last ``limit`` bytes (at most) of ``job_dir/name``; None when it is not there;
    :class:`Unreadable` as :func:`read_job_file`."""
    return _in_directory(
        job_dir, name, lambda fd: read_tail(name, limit, dir_fd=fd, follow=False), limit
    )


def exit_status(job_dir: Path) -> Reading[int]:
    """What the job wrote to ``exit_code``: its exit status, or unknown and why."""
    return _once(job_dir, EXIT_CODE, _exit_status)


def cancelled_marker(job_dir: Path) -> Reading[bool]:
    """Whether ``cancel`` marked the job: a regular file named ``cancelled`` (what it holds,
    the time, is not needed); one that is something else is ignored, with a note."""
    return _once(job_dir, CANCELLED, _cancelled_marker)


_READ: ContextVar[dict[tuple[Path, str], Reading[Any]] | None] = ContextVar("read", default=None)


@contextlib.contextmanager
def each_read_once() -> Iterator[None]:
    """Inside, :func:`exit_status` and :func:`cancelled_marker` read a job directory's file
    once: the status of many jobs asks for each twice (the launcher's state, then the
    notes on what the directory holds), and the second answer is the first one."""
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def _once(job_dir: Path, name: str, read: Callable[[Path], Reading[T]]) -> Reading[T]:
    done = _READ.get()
    if done is None:
        return read(job_dir)
    key = (job_dir, name)
    if key not in done:
        done[key] = read(job_dir)
    found: Reading[T] = done[key]
    return found


def _exit_status(job_dir: Path) -> Reading[int]:
    try:
        text = read_job_file(job_dir, EXIT_CODE, SMALL_FILE_BYTES)
    except Unreadable as exc:
        return Reading(None, f"{EXIT_CODE} is not read: {exc.reason}")
    if text is None:
        return Reading(None)
    match = _EXIT_STATUS.fullmatch(text)
    if match is None or abs(int(match.group(1))) > 255:
        return Reading(None, f"{EXIT_CODE} holds no exit status")
    return Reading(int(match.group(1)))


def _cancelled_marker(job_dir: Path) -> Reading[bool]:
    try:
        text = read_job_file(job_dir, CANCELLED, SMALL_FILE_BYTES)
    except Unreadable as exc:
        return Reading(False, f"{CANCELLED} is not read: {exc.reason}")
    return Reading(text is not None)


def write_job_file(job_dir: Path, name: str, text: str) -> None:
    """Put ``text`` in ``job_dir/name`` whole, never through a link: written to a new file
    beside it and renamed over it; a failed or interrupted write leaves the old file and
    no temporary one. ``OSError`` when the directory cannot take it."""
    from automodel_launch.interrupts import stop_signals_raise_once
    from automodel_launch.written import job_file

    _check_name(name)
    data = job_file(name, text).encode("utf-8")
    directory = os.open(job_dir, _DIRECTORY_FLAGS)
    temporary = f".{name}.{os.getpid()}.{os.urandom(4).hex()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        with stop_signals_raise_once():
            fd = os.open(temporary, flags, 0o644, dir_fd=directory)
            try:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                finally:
                    os.close(fd)
                os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=directory)
                raise
    finally:
        os.close(directory)


MAX_ENTRIES = 4096
"""Entries of one folder under ``torchrun/`` looked at: more is no torchrun's doing."""
_ATTEMPT = re.compile(r"attempt_([0-9]{1,6})")


def rank_logs(job_dir: Path, rank: int) -> list[Path] | None:
    """Rank ``rank``'s ``stdout.log`` and ``stderr.log`` as torchrun keeps them on one node
    (``torchrun/RUN_ID_XXXX/attempt_N/LOCAL_RANK/``; on one node the local rank is the
    rank): of the newest run, its last attempt. None when there are none; only folders
    that are folders (no link) are walked, and each file is read as any job file."""
    runs = _folders(job_dir / RANK_LOGS)
    if not runs:
        return None
    run = max(runs, key=lambda path: (path.stat().st_mtime, path.name))
    attempts = [a for a in _folders(run) if _ATTEMPT.fullmatch(a.name)]
    if not attempts:
        return None
    last = max(attempts, key=lambda path: int(path.name.removeprefix("attempt_")))
    folder = last / str(rank)
    if folder not in _folders(last):
        return None
    return [folder / "stdout.log", folder / "stderr.log"]


def _folders(path: Path) -> list[Path]:
    """The folders in ``path`` (not links, at most :data:`MAX_ENTRIES` entries looked at);
    none when ``path`` is no folder, or a link."""
    if path.is_symlink() or not path.is_dir():
        return []
    try:
        with os.scandir(path) as entries:
            found = []
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:
                    break
                if entry.is_dir(follow_symlinks=False):
                    found.append(Path(entry.path))
            return found
    except OSError:
        return []


def _in_directory(job_dir: Path, name: str, read: _Read, limit: int) -> bytes | None:
    _check_name(name)
    path = job_dir / name
    try:
        directory = os.open(job_dir, _DIRECTORY_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise Unreadable(path, f"its directory cannot be opened ({exc.strerror})") from None
    try:
        return read(directory)
    except FileNotFoundError:
        return None
    except NotRegular as exc:
        raise Unreadable(path, f"it is {exc.kind}, not a file") from None
    except TooLarge as exc:
        raise Unreadable(path, f"{exc.size} bytes is more than the {limit} it may hold") from None
    except IsADirectoryError:
        raise Unreadable(path, "it is a directory, not a file") from None
    except OSError as exc:
        reason = exc.strerror or errno.errorcode.get(exc.errno or 0, "error")
        raise Unreadable(path, reason) from None
    finally:
        os.close(directory)


def _check_name(name: str) -> None:
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"{name!r} is not a file name in a job directory")
