"""A job's status as every command shows it, and what a finished job left in its
directory (``exit_code``, and ``cancelled`` when ``cancel`` stopped it), which answers when
the scheduler no longer knows it. Which launcher answers for a job:
:mod:`automodel_launch.launchers.dispatch`.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.errors import LaunchError
from automodel_launch.jobs.files import (
    cancelled_marker,
    exit_status,
    write_job_file,
)
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import FINISHED, Reason, State, explain
from automodel_launch.layout import CANCELLED

if TYPE_CHECKING:
    from automodel_launch.jobs.failure import Failure
    from automodel_launch.progress.read import Progress


class JobError(LaunchError):
    """A job command that cannot be done; the message says why."""


@dataclass(frozen=True)
class JobStatus:
    manifest: Manifest
    state: State
    scheduler_state: str | None = None
    reason: str | None = None
    nodes: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    time_limit: str | None = None
    exit_code: int | None = None
    log_path: str | None = None
    cluster: str | None = None
    """The scheduler's cluster name, when it says (else the manifest's)."""
    note: str | None = None
    """What else the user should know (a deleted job directory, an unreachable scheduler)."""
    final: bool = False
    """The state will not change although it is no end state: a local run that is gone
    without an exit status stays UNKNOWN, so watching and following stop there."""
    failure: Failure | None = None
    """Which rank failed first and why (``status`` only: :func:`with_failure`)."""
    progress: Progress | None = None
    """How far the training is (``status`` only); None before it started."""

    @property
    def explained(self) -> Reason | None:
        return explain(self.reason) if self.state == "PENDING" and self.reason else None

    @property
    def finished(self) -> bool:
        return self.state in FINISHED or self.final

    @property
    def elapsed(self) -> float | None:
        if self.started_at is None:
            return None
        end = self.ended_at if self.ended_at is not None else time.time()
        return max(0.0, end - self.started_at)

    @property
    def gpu_hours(self) -> float | None:
        """Elapsed hours x nodes x GPUs per node (the manifest's ``details``): None when
        any of them is unknown, never a guess."""
        return gpu_hours(self.elapsed, self.manifest.details)

    def to_json(self) -> dict[str, Any]:
        """The JOB object of docs/json-output.md."""
        m = self.manifest
        explained = self.explained
        return {
            "id": m.id,
            "name": m.name,
            "launcher": m.launcher,
            "scheduler_id": m.scheduler_id,
            "cluster": self.cluster or m.cluster,
            "state": self.state,
            "scheduler_state": self.scheduler_state,
            "reason": self.reason,
            "reason_explained": explained.text if explained else None,
            "never_starts": explained.never_starts if explained else False,
            "fix_field": explained.field if explained else None,
            "nodes": self.nodes,
            "elapsed_seconds": None if self.elapsed is None else round(self.elapsed),
            "time_limit": self.time_limit,
            "exit_code": self.exit_code,
            "log_path": self.log_path,
            "job_dir": m.job_dir,
            "submitted_at": m.submitted_at,
            "config_path": m.config_path,
            "note": self.note,
            "sweep": m.sweep,
            "point": m.point,
            "values": dict(m.values),
            "gpu_hours": None if self.gpu_hours is None else round(self.gpu_hours, 3),
            "code": None if m.code is None else m.code.model_dump(mode="json"),
            "tool_version": m.tool_version,
            "automodel_version": m.automodel_version,
            "profile": None if m.profile is None else m.profile.model_dump(mode="json"),
            "overrides": [o.model_dump(mode="json") for o in m.overrides],
            "more_overrides": m.more_overrides,
            "origins": dict(m.origins),
            "more_origins": m.more_origins,
            "image": m.image,
            "rerun_of": m.rerun_of,
            "remote": None if m.remote is None else m.remote.model_dump(mode="json"),
            "failure": None if self.failure is None else self.failure.model_dump(mode="json"),
            "progress": None if self.progress is None else self.progress.to_json(),
        }


def gpu_hours(elapsed: float | None, details: dict[str, Any]) -> float | None:
    nodes, gpus = details.get("nodes"), details.get("gpus_per_node")
    if elapsed is None or type(nodes) is not int or type(gpus) is not int:
        return None
    if nodes < 1 or gpus < 0:
        return None
    return elapsed / 3600 * nodes * gpus


def left_behind(manifest: Manifest) -> tuple[State, int | None] | None:
    """What a finished job left in its directory: CANCELLED, or its exit status."""
    job_dir = Path(manifest.job_dir)
    code = exit_status(job_dir).value
    if cancelled_marker(job_dir).value:
        return "CANCELLED", code
    if code is not None:
        return ("COMPLETED" if code == 0 else "FAILED"), code
    return None


def job_dir_notes(manifest: Manifest) -> list[str]:
    """What the job directory holds that cannot be used: an ``exit_code`` that is no exit
    status, a ``cancelled`` that is a link or a pipe..."""
    job_dir = Path(manifest.job_dir)
    readings = (exit_status(job_dir), cancelled_marker(job_dir))
    return [reading.note for reading in readings if reading.note is not None]


def read_exit_code(job_dir: Path) -> int | None:
    return exit_status(job_dir).value


def mark_cancelled(manifest: Manifest) -> None:
    """Best effort: a job directory that is gone or read-only only loses the marker."""
    with contextlib.suppress(OSError):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ\n", time.gmtime())
        write_job_file(Path(manifest.job_dir), CANCELLED, stamp)


def exit_code_for(status: JobStatus) -> int:
    """What ``logs --follow`` ends with: the job's own exit code when known."""
    if status.exit_code is not None:
        return status.exit_code
    return {"COMPLETED": 0, "CANCELLED": 130, "TIMEOUT": 124}.get(status.state, 1)


def format_minutes(minutes: int | None) -> str | None:
    if minutes is None:
        return None
    days, rest = divmod(minutes, 24 * 60)
    text = f"{rest // 60}:{rest % 60:02d}:00"
    return f"{days}-{text}" if days else text
