"""JOB on the command line: a registry id (or its unique start), a scheduler id, a job
directory or a job name. A job directory with a manifest is read directly, so a job is
found even when the registry cannot be used. Messages quote JOB as given: the command
cleans them for display (a token or control character in JOB never reaches the terminal)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from automodel_launch.jobs.manifest import Manifest, read_manifest
from automodel_launch.jobs.registry import open_registry
from automodel_launch.jobs.status import JobError
from automodel_launch.layout import MANIFEST

_SPAN = re.compile(r"^([0-9]+)([smhdw])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def find_job(text: str) -> Manifest:
    directory = _expanded(text)
    if directory.is_dir() and os.path.lexists(directory / MANIFEST):
        return read_manifest(directory.absolute())  # what it is, or why it cannot be read
    with open_registry() as registry:
        found = registry.find(text)
    if not found:
        raise JobError(
            f"no job is '{text}' (an id, scheduler id, job directory or job name); "
            "`automodel-launch jobs` lists them"
        )
    same_name = all(m.name == found[0].name for m in found) and found[0].name == text
    if len(found) > 1 and not same_name:
        choices = ", ".join(f"{m.id} ({m.launcher} {m.scheduler_id})" for m in found[:5])
        raise JobError(f"'{text}' names {len(found)} jobs: {choices}; give the id")
    return found[0]  # a name: its newest job


def since_epoch(text: str) -> float:
    """``2d``, ``12h``, ``30m``, ``1w``, ``90s``: that long before now (not before 1970:
    a span longer than that is every job)."""
    match = _SPAN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a time span like 2d, 12h, 30m, 1w")
    digits = match.group(1).lstrip("0") or "0"
    if len(digits) > 15:  # longer ago than there are times: every job
        return 0.0
    return max(0.0, time.time() - int(digits) * _UNIT[match.group(2)])


def _expanded(text: str) -> Path:
    """JOB as a path, ``~`` expanded when it can be (``~nobody`` is taken as written)."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)
