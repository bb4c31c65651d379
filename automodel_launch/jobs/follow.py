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
import re
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
    return follow_files([path], poll, follow=follow, rank=rank, out=out)


def follow_files(
    paths: list[Path],
    poll: Callable[[], JobStatus],
    *,
    follow: bool,
    rank: int | None = None,
    out: TextIO | None = None,
) -> JobStatus:
    """:func:`follow_file` over several logs written at once (a rank's ``stdout.log``
    and ``stderr.log``): each one's new lines as they come, whole lines only."""
    out = out or sys.stdout
    logs = [_Log(path) for path in paths]
    lines = [Lines(rank, out) for _ in paths]
    status = poll()
    while True:
        read = False
        for log, shown in zip(logs, lines, strict=True):
            chunk = log.read()
            read = read or bool(chunk)
            shown.write(chunk)
        out.flush()
        if any(log.more for log in logs):
            continue  # a full read: read on before waiting
        if not follow:
            break
        if status.finished and not read:
            break  # nothing more after the end: a final read came up empty
        time.sleep(POLL_SECONDS)
        status = poll() if not status.finished else status
    for shown in lines:
        shown.close()
    return status


_SKY_PREFIX = re.compile(r"(?:\x1b\[[0-9;]*m)*\([^()\n]{0,200}\)(?:\x1b\[[0-9;]*m)* ?")
"""What SkyPilot puts before each line of a task: ``(head, rank=0, pid=4242) ``,
``(worker1, rank=1, pid=77) ``, ``(task, pid=9) ``, maybe coloured."""


class Lines:
    """A text stream that prints whole lines of rank ``rank`` (all: None) to ``out``,
    untagged; a line longer than :data:`MAX_LINE_CHARS` in pieces. ``sky`` : lines may
    start with SkyPilot's ``(node, rank=N, pid=P)``, which is dropped with the tag.
    SkyPilot's SDK writes a job's log into one (``output_stream``)."""

    def __init__(self, rank: int | None, out: TextIO, *, sky: bool = False) -> None:
        self.keep = rank_filter(rank)
        self.out = out
        self.sky = sky and rank is not None
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        if len(self.pending) > MAX_LINE_CHARS:
            lines.append(self.pending)
            self.pending = ""
        for line in lines:
            self._line(line)
        return len(text)

    def _line(self, line: str) -> None:
        if self.sky:
            prefix = _SKY_PREFIX.match(line)
            line = line[prefix.end() :] if prefix else line
        shown = self.keep(line)
        if shown is not None:
            self.out.write(shown + "\n")

    def flush(self) -> None:
        self.out.flush()

    def close(self) -> None:
        """Print the last line, if it has no newline."""
        if self.pending:
            self._line(self.pending)
            self.pending = ""
        self.flush()


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
