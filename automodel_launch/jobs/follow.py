"""Printing a job's log file, and following it until the job ends.

``--rank N`` keeps the lines of rank N, without their tag: torchrun tags each line
``[rankN]:`` in Slurm jobs and detached local runs (``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``
with ``PET_TEE=3``). Lines of the launcher itself carry no tag and are left out.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from automodel_launch.jobs.status import JobStatus

POLL_SECONDS = 0.5


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
    the job's last status."""
    out = out or sys.stdout
    keep = rank_filter(rank)
    offset = 0
    pending = ""
    status = poll()
    while True:
        chunk, offset = _read_from(path, offset)
        pending += chunk
        *lines, pending = pending.split("\n")
        for line in lines:
            shown = keep(line)
            if shown is not None:
                out.write(shown + "\n")
        out.flush()
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


def _read_from(path: Path, offset: int) -> tuple[str, int]:
    try:
        with path.open("rb") as stream:
            stream.seek(offset)
            data = stream.read()
    except FileNotFoundError:
        return "", offset
    return data.decode("utf-8", errors="replace"), offset + len(data)
