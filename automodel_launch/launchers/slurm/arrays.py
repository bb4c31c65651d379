"""Job array tasks in Slurm's answers, found by the ids a user holds.

A task is ``ARRAY_TASK`` (``1234_7``). ``squeue --json`` (22.05) lists every job whatever
filter it is given (``--array`` and ``--jobs`` included): a started task is a record of
its own (its own job id, ``array_job_id`` and ``array_task_id``; the last task to start
takes over the array's job id), and the tasks still pending share one record whose
``array_task_string`` is their ranges (``2-5%2``); ``sacct`` prints the same pending
tasks as one line, ``1234_[2-5%2]``. :class:`Listed` finds a task in either form
without expanding the ranges, so a 1,000-task array is read from one answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

MAX_RANGES = 1024
"""Pieces of one ranges text (``1,3,5-9:2``): Slurm prints a few."""
_RANGE = re.compile(r"([0-9]{1,10})(?:-([0-9]{1,10})(?::([0-9]{1,10}))?)?")
_PENDING = re.compile(r"([1-9][0-9]{0,9})_\[([0-9,:%-]{1,4096})\]")
"""``1234_[2-5%2]``: an array's pending tasks as squeue and sacct print them."""
_TASK = re.compile(r"([1-9][0-9]{0,9})_([0-9]{1,10})")
"""``1234_7``: an array's task."""


def in_ranges(ranges: str, index: int) -> bool:
    """``index`` is one of ``ranges`` (``0-5%2``, ``1,3,7-9``, ``0-10:2``; the ``%N`` cap
    is ignored); a text that is no ranges holds no index."""
    pieces = ranges.partition("%")[0].split(",")
    if len(pieces) > MAX_RANGES:
        return False
    for piece in pieces:
        match = _RANGE.fullmatch(piece)
        if match is None:
            return False
        first = int(match.group(1))
        last = int(match.group(2) or first)
        step = int(match.group(3) or 1)
        if step > 0 and first <= index <= last and (index - first) % step == 0:
            return True
    return False


def task_ranges(indexes: Sequence[int]) -> str:
    """``--array``'s text for tasks ``indexes`` (ascending, distinct): ``0-3`` for 0 to 3,
    ``1-7:2`` for 1, 3, 5, 7, ``0,5`` for two apart, pieces joined by commas; what
    :func:`in_ranges` reads back. An array of a split sweep holds the indexes of its points."""
    pieces = []
    at = 0
    while at < len(indexes):
        first, end = indexes[at], at
        step = indexes[at + 1] - first if at + 1 < len(indexes) else 0
        while end + 1 < len(indexes) and indexes[end + 1] - indexes[end] == step:
            end += 1
        if step != 1 and end - at < 2:
            end = at  # two apart read better as two numbers: 0,5
        last = indexes[end]
        if end == at:
            pieces.append(str(first))
        else:
            pieces.append(f"{first}-{last}" + (f":{step}" if step != 1 else ""))
        at = end + 1
    return ",".join(pieces)


def pending_ranges(job_id: str) -> tuple[str, str] | None:
    """``1234_[2-5%2]`` -> ``("1234", "2-5%2")``; None for any other id."""
    match = _PENDING.fullmatch(job_id)
    return None if match is None else (match.group(1), match.group(2))


def whole(value: Any) -> int | None:
    """A non-negative integer as squeue gives it: a number (22.05), or 23.02's
    ``{"set": true, "number": N}``; None when unset or of another type."""
    if isinstance(value, dict) and value.get("set") is True and not value.get("infinite"):
        value = value.get("number")
    return value if type(value) is int and 0 <= value <= 2**32 else None


class Listed(dict[str, Any]):
    """Jobs of an answer by id: a job by its id, an array's started task by ``ARRAY_TASK``
    and by its own job id, and an array's pending tasks by ``ARRAY_[RANGES]``;
    :meth:`find` also finds a pending task by ``ARRAY_TASK``."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, tuple[str, Any]] = {}
        """Array id -> the ranges of its pending tasks and their shared record."""

    def add(self, job_id: str, record: Any) -> None:
        """A record under an id as squeue or sacct prints it; the first one of an id stays."""
        ranges = pending_ranges(job_id)
        if ranges is not None:
            self.pending.setdefault(ranges[0], (ranges[1], record))
        self.setdefault(job_id, record)

    def add_squeue(self, job: dict[str, Any]) -> None:
        """One job of ``squeue --json`` (a job without a readable id is passed over)."""
        job_id = job.get("job_id")
        if type(job_id) is not int or not 0 < job_id <= 2**32:
            return
        array = whole(job.get("array_job_id"))
        if not array:
            self.add(str(job_id), job)
            return
        task = whole(job.get("array_task_id"))
        ranges = job.get("array_task_string")
        if task is not None:
            self.add(f"{array}_{task}", job)
            if job_id != array:
                self.add(str(job_id), job)
        elif isinstance(ranges, str) and ranges:
            self.add(f"{array}_[{ranges}]", job)

    def find(self, job_id: str) -> Any | None:
        """The record of ``job_id``; a pending task (``1234_7``) is its array's pending record."""
        found = self.get(job_id)
        task = _TASK.fullmatch(job_id)
        if found is not None or task is None:
            return found
        pending = self.pending.get(task.group(1))
        if pending is not None and in_ranges(pending[0], int(task.group(2))):
            return pending[1]
        return None

    def tasks(self, array: str) -> dict[str, Any]:
        """The listed records of an array's tasks by their ids (``1234_0``, ``1234_[2-5]``)."""
        prefix = f"{array}_"
        return {key: value for key, value in self.items() if key.startswith(prefix)}
