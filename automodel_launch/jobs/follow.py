"""Printing a job's log file, and following it until the job ends.

``--rank N`` keeps the lines of rank N: lines torchrun prefixes (``[rankN]:``, set by
the rendered scripts through ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE``; or
torchrun's default ``[defaultN]:``), and lines that start with ``rank=N``.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from automodel_launch.jobs.status import JobStatus

POLL_SECONDS = 0.5


def rank_filter(rank: int | None) -> Callable[[str], bool]:
    if rank is None:
        return lambda line: True
    pattern = re.compile(rf"^(\[(rank|default){rank}\]:|rank={rank}\b)")
    return lambda line: pattern.match(line) is not None


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
            if keep(line):
                out.write(line + "\n")
        out.flush()
        if not follow:
            break
        if status.finished and not chunk:
            break  # nothing more after the end: a final read came up empty
        time.sleep(POLL_SECONDS)
        status = poll() if not status.finished else status
    if pending and keep(pending):
        out.write(pending + "\n")
    return status


def _read_from(path: Path, offset: int) -> tuple[str, int]:
    try:
        with path.open("rb") as stream:
            stream.seek(offset)
            data = stream.read()
    except FileNotFoundError:
        return "", offset
    return data.decode("utf-8", errors="replace"), offset + len(data)
