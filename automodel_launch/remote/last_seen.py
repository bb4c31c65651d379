"""The last state a named cluster gave of a job, kept in its local job directory.

``status`` of a job on a cluster that cannot be reached says so and shows this state
(``last seen RUNNING at 2026-12-02 10:04 UTC``) instead of UNKNOWN. The file comes back
from a directory anyone could write to: it is read bounded and parsed into a model, and
what does not fit is ignored (the job is UNKNOWN then, as without it).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from automodel_launch.jobs.files import Unreadable, read_job_file, write_job_file
from automodel_launch.jobs.states import State
from automodel_launch.jobs.status import JobStatus

LAST_SEEN = "last_seen.json"


class LastSeen(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    state: State
    at: Annotated[int, Field(ge=0, le=2**40)]


def keep(status: JobStatus) -> None:
    """Remember a state the cluster gave (nothing when the job directory is not writable)."""
    if status.state == "UNKNOWN" or status.note:
        return
    seen = LastSeen(state=status.state, at=int(time.time()))
    try:
        write_job_file(Path(status.manifest.job_dir), LAST_SEEN, seen.model_dump_json())
    except OSError:
        return


def recalled(status: JobStatus) -> JobStatus:
    """``status`` of a job the cluster could not be asked about, with the state last seen."""
    if status.state != "UNKNOWN":
        return status
    try:
        text = read_job_file(Path(status.manifest.job_dir), LAST_SEEN, 4096)
        if text is None:
            return status
        seen = LastSeen.model_validate_json(text)
    except (Unreadable, ValidationError):
        return status
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seen.at))
    note = f"{status.note}; last seen {seen.state} at {when}" if status.note else None
    return replace(status, state=seen.state, note=note or f"last seen {seen.state} at {when}")
