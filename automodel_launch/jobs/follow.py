"""Printing a job's log file, and following it until the job ends.

``--rank N`` keeps the lines of rank N, without their tag: torchrun tags each line
``[rankN]:`` in Slurm jobs and detached local runs (``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``
with ``PET_TEE=3``). Lines of the launcher itself carry no tag and are left out.

The log is read through the job directory's reader (:mod:`automodel_launch.jobs.files`):
at most :data:`CHUNK_BYTES` a read, never blocking; a log that is a link, a named pipe or
a device is refused with one line. A line longer than :data:`MAX_LINE_CHARS` is printed
in pieces, so memory stays bounded whatever the file holds.
"""

from __future__ import annotations

import codecs
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from automodel_launch.jobs.files import Unreadable, read_job_chunk
from automodel_launch.jobs.status import JobError, JobStatus

POLL_SECONDS = 0.5
CHUNK_BYTES = 1 << 20
MAX_LINE_CHARS = 1 << 20


def rank_filter(rank: int | None) -> Callable[[str], str | None]:
    """The line to show (untagged, for one rank), or None to leave it out."""
    if rank is None:
        return lambda line: line
    tag = f"[rank{rank}]:"
    return lambda line: line[len(tag) :] if line.startswith(tag) else None


def follow_file(
    path: Path,
    poll: Callable[[], JobStatus],
    *,
    follow: bool,
    rank: int | None = None,
    out: TextIO | None = None,
) -> JobStatus:
    """Print ``path`` (what is there; with ``follow``, what comes until the job ends);
    the job's last status. :class:`JobError` when the log is no file to read."""
    out = out or sys.stdout
    keep = rank_filter(rank)
    log = _Log(path)
    pending = ""
    status = poll()
    while True:
        chunk = log.read()
        pending += chunk
        *lines, pending = pending.split("\n")
        if len(pending) > MAX_LINE_CHARS:
            lines.append(pending)
            pending = ""
        for line in lines:
            shown = keep(line)
            if shown is not None:
                out.write(shown + "\n")
        out.flush()
        if log.more:
            continue  # a full read: read on before waiting
        if not follow:
            break
        if status.finished and not chunk:
            break  # nothing more after the end: a final read came up empty
        time.sleep(POLL_SECONDS)
        status = poll() if not status.finished else status
    last = keep(pending) if pending else None
    if last is not None:
        out.write(last + "\n")
    return status


class _Log:
    """A log read from where the last read ended; a missing file is one not written yet."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.more = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self) -> str:
        try:
            data = read_job_chunk(self.path.parent, self.path.name, self.offset, CHUNK_BYTES)
        except Unreadable as exc:
            raise JobError(f"cannot read the log {self.path}: {exc.reason}") from None
        data = data or b""
        self.offset += len(data)
        self.more = len(data) == CHUNK_BYTES
        return self._decoder.decode(data)
