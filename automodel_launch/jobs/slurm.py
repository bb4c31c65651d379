"""Slurm jobs: ``squeue --json`` for what the controller knows, ``sacct`` where accounting
exists, and what the job left in its directory where neither knows it any more.

``squeue --json`` (22.05) lists every job the controller keeps, finished ones
included for MinJobAge seconds, whatever filter is given: one call answers for
all jobs asked about. Every command goes through :func:`automodel_launch.cluster.commands.run`
(bounded output, a timeout, no standard input); what it says is read by
:mod:`automodel_launch.jobs.slurm_output`, and a job id reaches a command line only after
:func:`automodel_launch.jobs.ids.is_scheduler_id` said it is one, after ``--`` or ``=``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from automodel_launch.cluster.commands import Answer, NoSlurm, Unanswered, find, run
from automodel_launch.jobs.follow import follow_file
from automodel_launch.jobs.ids import is_scheduler_id
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.slurm_output import (
    SACCT_FIELDS,
    SqueueJob,
    Unreadable,
    decode_json,
    epoch,
    read_job,
    read_sacct,
    squeue_jobs,
    time_limit,
    wait_status,
)
from automodel_launch.jobs.states import FINISHED, SLURM, state_of
from automodel_launch.jobs.status import (
    JobError,
    JobStatus,
    exit_code_for,
    format_minutes,
    left_behind,
    mark_cancelled,
    read_exit_code,
)
from automodel_launch.layout import slurm_log
from automodel_launch.secrets import display

TIMEOUT = 30.0
"""Seconds squeue, sacct and scancel may take (a busy controller answers in a few)."""
TIMEOUT_VARIABLE = "AUTOMODEL_LAUNCH_SLURM_TIMEOUT"
"""Overrides the timeouts of Slurm's commands (seconds, at most an hour): a slow controller."""
NO_ACCOUNTING = "Slurm no longer knows the job (no accounting) and it left no exit status"


class SlurmUnavailable(JobError):
    """Slurm cannot be asked (no squeue, no answer) or refused."""


def timeout(default: float = TIMEOUT) -> float:
    """The timeout of one command: ``default``, unless :data:`TIMEOUT_VARIABLE` says."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, default))
    except ValueError:
        return default
    return value if 0 < value <= 3600 else default


def statuses(manifests: list[Manifest]) -> list[JobStatus]:
    try:
        live = ask_squeue()
        problem = None
    except SlurmUnavailable as exc:
        live, problem = {}, str(exc)
    return [_status(manifest, live, problem) for manifest in manifests]


def _status(manifest: Manifest, live: dict[str, Any], problem: str | None) -> JobStatus:
    try:
        job_id = checked_id(manifest)
        raw = live.get(job_id)
        if raw is not None:
            return from_squeue(manifest, read_job(raw))
        status = from_sacct(manifest) if problem is None else None
    except (SlurmUnavailable, Unreadable) as exc:
        return from_job_dir(manifest, str(exc))
    return status or from_job_dir(manifest, problem)


def ask_squeue() -> dict[str, Any]:
    """squeue's jobs by id; :class:`SlurmUnavailable` says why there are none to be had."""
    if find("squeue") is None:
        raise SlurmUnavailable("squeue is not on PATH")
    answer = _run("squeue", "--json")
    if answer.returncode != 0:
        raise SlurmUnavailable(f"squeue failed: {display(answer.said)}")
    try:
        return squeue_jobs(decode_json(answer.stdout, "squeue --json"))
    except Unreadable as exc:
        raise SlurmUnavailable(str(exc)) from None


def from_squeue(manifest: Manifest, job: SqueueJob) -> JobStatus:
    scheduler_state = job.state
    state = state_of(SLURM, scheduler_state)
    # a pending job's start_time is the scheduler's estimate, not a start
    start = None if state == "PENDING" else epoch(job.start_time)
    finished = state in FINISHED or state == "PREEMPTED"
    exit_code = None
    if finished:
        exit_code = read_exit_code(Path(manifest.job_dir))
        if exit_code is None:
            exit_code = wait_status(job.exit_code)
    # "None" explains a pending job (just submitted); of any other it says nothing
    silent = job.state_reason == "None" and state != "PENDING"
    limit = time_limit(job.time_limit)
    return JobStatus(
        manifest,
        state,
        scheduler_state=scheduler_state,
        reason=None if silent else _text(job.state_reason),
        nodes=_text(job.nodes),
        started_at=start,
        ended_at=epoch(job.end_time) if finished else None,
        time_limit=format_minutes(limit) if isinstance(limit, int) else limit or _limit(manifest),
        exit_code=exit_code,
        log_path=log_path(manifest),
        cluster=_text(job.cluster),
    )


def from_sacct(manifest: Manifest) -> JobStatus | None:
    """Accounting's record of a job the controller forgot; None without accounting."""
    if find("sacct") is None:
        return None
    job_id = checked_id(manifest)
    answer = _run("sacct", "-n", "-P", "-X", f"--jobs={job_id}", "-o", SACCT_FIELDS)
    lines = answer.stdout.strip().splitlines()
    if answer.returncode != 0 or not lines:
        return None  # "Slurm accounting storage is disabled"
    record = read_sacct(lines[0])
    return JobStatus(
        manifest,
        state_of(SLURM, record.state),
        scheduler_state=record.state,
        reason=record.reason,
        nodes=record.nodes,
        started_at=record.started_at,
        ended_at=record.ended_at,
        time_limit=record.time_limit or _limit(manifest),
        exit_code=record.exit_code,
        log_path=log_path(manifest),
    )


def from_job_dir(manifest: Manifest, problem: str | None) -> JobStatus:
    left = left_behind(manifest)
    if left is not None:
        state, code = left
        return JobStatus(
            manifest,
            state,
            time_limit=_limit(manifest),
            exit_code=code,
            log_path=log_path(manifest),
            note=problem,
        )
    return JobStatus(
        manifest,
        "UNKNOWN",
        time_limit=_limit(manifest),
        log_path=log_path(manifest),
        note=problem or NO_ACCOUNTING,
    )


def checked_id(manifest: Manifest, missing: str = "it was never submitted") -> str:
    """The job's Slurm id, fit for a command line; :class:`SlurmUnavailable` if it is not."""
    job_id = manifest.scheduler_id
    if not job_id:
        raise SlurmUnavailable(f"the job has no Slurm job id: {missing}")
    if not is_scheduler_id("slurm", job_id):
        raise SlurmUnavailable(
            f"the job's scheduler id {display(job_id)!r} is not a Slurm job id "
            f"(its manifest was changed?): Slurm was not asked"
        )
    return job_id


def log_path(manifest: Manifest) -> str | None:
    job_id = manifest.scheduler_id
    if not job_id or not is_scheduler_id("slurm", job_id):
        return None
    return str(Path(manifest.job_dir) / slurm_log(manifest.name, job_id))


def status_of(manifest: Manifest) -> JobStatus:
    return statuses([manifest])[0]


def logs(manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
    checked_id(manifest)
    path = str(log_path(manifest))
    if not follow and not Path(path).exists():
        now = status_of(manifest)
        why = f" ({now.reason})" if now.reason else ""
        raise SlurmUnavailable(f"no output yet: the job is {now.state}{why}; {path} is not there")
    final = follow_file(Path(path), lambda: status_of(manifest), follow=follow, rank=rank)
    return exit_code_for(final) if follow else 0


def cancel(manifest: Manifest, *, wait: float = 15.0) -> JobStatus:
    checked_id(manifest, "nothing to cancel")
    before = status_of(manifest)
    if before.finished:
        return before
    if find("scancel") is None:
        raise SlurmUnavailable("scancel is not on PATH")
    answer = _run("scancel", "--", checked_id(manifest))
    if answer.returncode != 0:
        raise SlurmUnavailable(f"scancel refused: {display(answer.said)}")
    mark_cancelled(manifest)
    deadline = time.monotonic() + wait
    status = status_of(manifest)
    while not status.finished and time.monotonic() < deadline:
        time.sleep(0.3)
        status = status_of(manifest)
    return status


def _run(*command: str) -> Answer:
    """One of Slurm's commands, its refusals and silences as :class:`SlurmUnavailable`."""
    seconds = timeout()
    try:
        answer = run(command, timeout=seconds)
    except Unanswered:
        raise SlurmUnavailable(f"{command[0]} did not answer within {seconds:g}s") from None
    except NoSlurm as exc:
        raise SlurmUnavailable(str(exc)) from None
    if answer.truncated:
        raise SlurmUnavailable(f"{command[0]} said more than this tool reads: not read")
    return answer


def _text(value: str | None) -> str | None:
    """Scheduler text as it may be shown: no token, no control character, not huge."""
    return display(value) if value else None


def _limit(manifest: Manifest) -> str | None:
    value = manifest.details.get("time")
    return None if value is None else display(str(value))
