"""Slurm jobs: ``squeue --json`` for what the controller knows, ``sacct`` where accounting
exists, and what the job left in its directory where neither knows it any more.

``squeue --json`` (22.05) lists every job the controller keeps, finished ones
included for MinJobAge seconds, whatever filter is given: one call answers for
all jobs asked about. Its ``exit_code`` is the wait status (``768`` is exit 3).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from automodel_launch.jobs.follow import follow_file
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import SLURM, state_of
from automodel_launch.jobs.status import (
    JobError,
    JobStatus,
    exit_code_for,
    format_minutes,
    left_behind,
    mark_cancelled,
    read_exit_code,
)

TIMEOUT = 30.0


class SlurmUnavailable(JobError):
    """Slurm cannot be asked (no squeue, no answer) or refused."""


def statuses(manifests: list[Manifest]) -> list[JobStatus]:
    try:
        live = squeue_jobs()
        problem = None
    except SlurmUnavailable as exc:
        live, problem = {}, str(exc)
    result = []
    for manifest in manifests:
        job = live.get(manifest.scheduler_id or "")
        if job is not None:
            result.append(from_squeue(manifest, job))
            continue
        status = from_sacct(manifest) if problem is None else None
        result.append(status or from_job_dir(manifest, problem))
    return result


def squeue_jobs() -> dict[str, dict[str, Any]]:
    if shutil.which("squeue") is None:
        raise SlurmUnavailable("squeue is not on PATH")
    try:
        done = subprocess.run(["squeue", "--json"], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SlurmUnavailable(f"squeue did not answer within {TIMEOUT:.0f}s") from None
    if done.returncode != 0:
        raise SlurmUnavailable(f"squeue failed: {done.stderr.strip()}")
    try:
        jobs = json.loads(done.stdout)["jobs"]
    except (ValueError, KeyError, TypeError) as exc:
        raise SlurmUnavailable(f"squeue --json gave no job list ({exc})") from None
    return {str(job.get("job_id")): job for job in jobs if isinstance(job, dict)}


def from_squeue(manifest: Manifest, job: dict[str, Any]) -> JobStatus:
    raw_state = job.get("job_state")
    scheduler_state = str(raw_state[0] if isinstance(raw_state, list) else raw_state)
    state = state_of(SLURM, scheduler_state)
    # a pending job's start_time is the scheduler's estimate, not a start
    start = None if state == "PENDING" else _epoch(job.get("start_time"))
    end = _epoch(job.get("end_time"))
    finished = state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED")
    exit_code = None
    if finished:
        exit_code = read_exit_code(Path(manifest.job_dir))
        if exit_code is None:
            exit_code = _wait_status(job.get("exit_code"))
    reason = job.get("state_reason")
    limit = job.get("time_limit")
    return JobStatus(
        manifest,
        state,
        scheduler_state=scheduler_state,
        reason=None if reason in (None, "", "None") and state != "PENDING" else reason,
        nodes=job.get("nodes") or None,
        started_at=start,
        ended_at=end if finished else None,
        time_limit=format_minutes(limit) if isinstance(limit, int) else _limit(manifest),
        exit_code=exit_code,
        log_path=log_path(manifest),
        cluster=job.get("cluster") or None,
    )


def from_sacct(manifest: Manifest) -> JobStatus | None:
    """Accounting's record of a job the controller forgot; None without accounting."""
    if not manifest.scheduler_id or shutil.which("sacct") is None:
        return None
    fields = "State,ExitCode,Start,End,NodeList,Timelimit,Reason"
    try:
        done = subprocess.run(
            ["sacct", "-n", "-P", "-X", "-j", manifest.scheduler_id, "-o", fields],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return None  # "Slurm accounting storage is disabled"
    state_text, code, start, end, nodes, limit, reason = (lines[0].split("|") + [""] * 7)[:7]
    scheduler_state = state_text.split()[0] if state_text else "UNKNOWN"
    exit_text, _, signal_text = code.partition(":")  # "CODE:SIGNAL"
    if signal_text.isdigit() and int(signal_text):
        exit_text = str(128 + int(signal_text))
    return JobStatus(
        manifest,
        state_of(SLURM, scheduler_state),
        scheduler_state=scheduler_state,
        reason=reason if reason not in ("", "None") else None,
        nodes=nodes if nodes not in ("", "None assigned") else None,
        started_at=_iso(start),
        ended_at=_iso(end),
        time_limit=limit or _limit(manifest),
        exit_code=int(exit_text) if exit_text.isdigit() else None,
        log_path=log_path(manifest),
    )


def from_job_dir(manifest: Manifest, problem: str | None) -> JobStatus:
    left = left_behind(manifest)
    if left is not None:
        state, code = left
        return JobStatus(
            manifest,
            state,
            scheduler_state=None,
            time_limit=_limit(manifest),
            exit_code=code,
            log_path=log_path(manifest),
            note=problem,
        )
    why = problem or "Slurm no longer knows the job (no accounting) and it left no exit status"
    return JobStatus(
        manifest, "UNKNOWN", time_limit=_limit(manifest), log_path=log_path(manifest), note=why
    )


def log_path(manifest: Manifest) -> str | None:
    if not manifest.scheduler_id:
        return None
    return str(Path(manifest.job_dir) / f"{manifest.name}_{manifest.scheduler_id}.out")


def status_of(manifest: Manifest) -> JobStatus:
    return statuses([manifest])[0]


def logs(manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
    path = log_path(manifest)
    if path is None:
        raise SlurmUnavailable("the job has no Slurm job id: it was never submitted")
    if not follow and not Path(path).exists():
        now = status_of(manifest)
        why = f" ({now.reason})" if now.reason else ""
        raise SlurmUnavailable(f"no output yet: the job is {now.state}{why}; {path} is not there")
    final = follow_file(Path(path), lambda: status_of(manifest), follow=follow, rank=rank)
    return exit_code_for(final) if follow else 0


def cancel(manifest: Manifest, *, wait: float = 15.0) -> JobStatus:
    if not manifest.scheduler_id:
        raise SlurmUnavailable("the job has no Slurm job id: nothing to cancel")
    before = status_of(manifest)
    if before.finished:
        return before
    if shutil.which("scancel") is None:
        raise SlurmUnavailable("scancel is not on PATH")
    done = subprocess.run(
        ["scancel", manifest.scheduler_id], capture_output=True, text=True, timeout=TIMEOUT
    )
    if done.returncode != 0:
        raise SlurmUnavailable(f"scancel refused: {done.stderr.strip()}")
    mark_cancelled(manifest)
    deadline = time.monotonic() + wait
    status = status_of(manifest)
    while not status.finished and time.monotonic() < deadline:
        time.sleep(0.3)
        status = status_of(manifest)
    return status


def _wait_status(value: Any) -> int | None:
    if isinstance(value, dict):  # newer Slurm: {"status": ..., "return_code": N}
        code = value.get("return_code")
        return code if isinstance(code, int) else None
    if not isinstance(value, int):
        return None
    signal = value & 0x7F
    return 128 + signal if signal else value >> 8


def _epoch(value: Any) -> float | None:
    if isinstance(value, dict):
        value = value.get("number") if value.get("set", True) else None
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _iso(text: str) -> float | None:
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def _limit(manifest: Manifest) -> str | None:
    value = manifest.details.get("time")
    return str(value) if value is not None else None
