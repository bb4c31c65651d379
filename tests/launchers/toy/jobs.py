"""Toy jobs after submit: ``toy-queue`` answers for them all at once, ``toy-cancel``
stops them, and the log is the file the scheduler writes in the job directory."""

from __future__ import annotations

import subprocess
from pathlib import Path

from automodel_launch.jobs.follow import follow_file
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import State
from automodel_launch.jobs.status import JobError, JobStatus, exit_code_for, mark_cancelled
from tests.launchers.toy.submit import JOB_ID

STATES: dict[str, State] = {"RUNNING": "RUNNING", "CANCELLED": "CANCELLED", "LOST": "UNKNOWN"}


def _toy(command: str, ids: list[str]) -> str:
    for job_id in ids:  # an id reaches the command line only when it is one
        if not JOB_ID.fullmatch(job_id):
            raise JobError(f"{job_id!r} is no toy job id")
    try:
        done = subprocess.run(
            [f"toy-{command}", *ids], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise JobError(f"cannot run toy-{command}: {exc}") from None
    if done.returncode != 0:
        raise JobError(f"toy-{command} failed: {done.stderr.strip()}")
    return done.stdout


def log_path(manifest: Manifest) -> Path:
    return Path(manifest.job_dir) / f"toy-{manifest.scheduler_id}.log"


def statuses(manifests: list[Manifest]) -> list[JobStatus]:
    ids = [m.scheduler_id for m in manifests if m.scheduler_id is not None]
    answer = _toy("queue", sorted(set(ids))) if ids else ""
    known = {}
    for line in answer.splitlines():
        job_id, state, code = line.split()
        known[job_id] = (state, None if code == "-" else int(code))
    return [_status(m, known.get(m.scheduler_id or "", ("NONE", None))) for m in manifests]


def _status(manifest: Manifest, answer: tuple[str, int | None]) -> JobStatus:
    said, code = answer
    if said == "DONE":
        state: State = "COMPLETED" if code == 0 else "FAILED"
    else:
        state = STATES.get(said, "UNKNOWN")
    return JobStatus(
        manifest, state, scheduler_state=said, exit_code=code, log_path=str(log_path(manifest)),
        final=state == "UNKNOWN",
    )  # fmt: skip


def status_of(manifest: Manifest) -> JobStatus:
    return statuses([manifest])[0]


def logs(manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
    if manifest.scheduler_id is None:
        raise JobError("the job was never handed to the toy scheduler: it has no output")
    final = follow_file(log_path(manifest), lambda: status_of(manifest), follow=follow, rank=rank)
    return exit_code_for(final) if follow else 0


def cancel_all(manifests: list[Manifest]) -> list[JobStatus]:
    """One ``toy-cancel`` for every job not ended yet; their states afterwards."""
    before = statuses(manifests)
    running = [s.manifest for s in before if not s.finished and s.manifest.scheduler_id]
    if running:
        _toy("cancel", [m.scheduler_id for m in running if m.scheduler_id is not None])
        for manifest in running:
            mark_cancelled(manifest)
    return statuses(manifests)
