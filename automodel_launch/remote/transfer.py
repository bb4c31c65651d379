"""Copying a job directory to a named cluster, and what the job wrote back from it.

Both copies are rsync over the session's connection (one SSH session each, no new
login). A job directory goes to a hidden staging name beside its place first and is
renamed into place only when all of it arrived, so a dropped connection leaves no job
directory there (the staging copy is removed when the connection still allows it; a later
one never names it). What comes back is the job's own output only (logs, each rank's
output, error files, its exit status): no code, no manifest (this host's is the record),
no links, devices or pipes, no file over :data:`MAX_FILE`, into the local job directory
the readers of ``status`` and ``logs`` already read with their bounds.
"""

from __future__ import annotations

import os
import posixpath
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from automodel_launch.launchers.slurm.cluster.commands import SlurmError, run
from automodel_launch.launchers.slurm.cluster.transport import Transport
from automodel_launch.layout import CODE, ERROR_FILES, EXIT_CODE, RANK_LOGS
from automodel_launch.remote.ssh import RemoteError, why

if TYPE_CHECKING:
    from automodel_launch.remote.clusters import Remote
    from automodel_launch.remote.shell import RemoteShell
    from automodel_launch.remote.ssh import Connection


class Session(Transport, Protocol):
    """What a copy needs of :class:`~automodel_launch.remote.session.RemoteSession` (a
    transport that runs commands there, and knows its cluster and paths), whose ``push``
    and ``pull`` call this module (said here, so it imports nothing of it)."""

    remote: Remote
    connection: Connection | None

    def open(self) -> RemoteShell: ...

    def where(self, local: str) -> str: ...


COPY_TIMEOUT = 1800.0
"""Seconds a copy may take (a code snapshot over a slow link)."""
PULL_TIMEOUT = 120.0
MAX_FILE = "1g"
"""rsync's ``--max-size`` of a file copied back."""
_BACK = (
    f"--exclude=/{CODE}/", "--include=*/", "--include=*.out", f"--include={EXIT_CODE}",
    f"--include={RANK_LOGS}/**", f"--include={ERROR_FILES}/**", "--exclude=*",
)  # fmt: skip


def push(session: Session, local: Path) -> str:
    """Copy ``local`` whole to its place on the cluster; the path there."""
    connection = _connection(session)
    there = session.where(str(local))
    parent, name = posixpath.split(there)
    staging = f"{parent}/.incoming-{name}-{os.urandom(4).hex()}"
    made = session.run(["mkdir", "-p", "--", parent], timeout=30, cwd=None, limit=65536,
                       name="mkdir")  # fmt: skip
    if made.returncode != 0:
        raise RemoteError(f"cannot make {parent} on {session.remote.shown}: {made.said}")
    copied = run(
        ["rsync", "-rlpt", "-s", "-e", connection.rsync_shell(), "--",
         f"{local}/", f"{session.remote.host}:{staging}/"],
        timeout=COPY_TIMEOUT, limit=1 << 20, name="rsync",
    )  # fmt: skip
    if copied.returncode != 0:
        _remove(session, staging)
        raise RemoteError(why(session.remote, copied.stderr, "copying the job directory"))
    moved = session.run(
        ["sh", "-c", '[ ! -e "$2" ] && mv -- "$1" "$2"', "sh", staging, there],
        timeout=30, cwd=None, limit=65536, name="mv",
    )  # fmt: skip
    if moved.returncode != 0:
        _remove(session, staging)
        raise RemoteError(f"{there} is on {session.remote.shown} already: it is not replaced")
    return there


def pull(session: Session, local: Path) -> None:
    """Copy the job's output from its place there into ``local``."""
    connection = _connection(session)
    there = session.where(str(local))
    copied = run(
        ["rsync", "-rt", "-s", "--inplace", "--no-specials", "--no-devices", "-m",
         f"--max-size={MAX_FILE}", *_BACK, "-e", connection.rsync_shell(), "--",
         f"{session.remote.host}:{there}/", f"{local}/"],
        timeout=PULL_TIMEOUT, limit=1 << 20, name="rsync",
    )  # fmt: skip
    if copied.returncode not in (0, 24):  # 24: a file vanished (a rank's log rotated)
        said = copied.stderr.strip().splitlines()
        raise SlurmError(
            f"the job's output could not be copied from {session.remote.shown}: "
            + (said[-1] if said else f"rsync exit status {copied.returncode}")
        )


def _connection(session: Session) -> Connection:
    if shutil.which("rsync") is None:
        raise RemoteError("rsync is not on PATH: install it to copy job directories")
    session.open()
    assert session.connection is not None
    return session.connection


def _remove(session: Session, staging: str) -> None:
    """The staging copy, when the connection still allows it."""
    try:
        session.run(["rm", "-rf", "--", staging], timeout=60, cwd=None, limit=65536, name="rm")
    except SlurmError:
        return
