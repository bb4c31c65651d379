"""Slurm jobs: ``squeue --json`` for what the controller knows, ``sacct`` where accounting
exists, and what the job left in its directory where neither knows it any more.

``squeue --json`` (22.05) lists every job the controller keeps, finished ones
included for MinJobAge seconds, whatever filter is given: one call answers for
all jobs asked about, array tasks included (:mod:`automodel_launch.launchers.slurm.arrays`);
the jobs it does not know are asked of ``sacct`` in one more call. Every command goes
through :class:`.cluster.client.SlurmClient` (its timeouts, its errors);
what it says is read by :mod:`automodel_launch.launchers.slurm.output`, and a job id reaches a
command line only after :func:`automodel_launch.launchers.ids.is_scheduler_id` said it is one,
after ``--`` or ``=``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from automodel_launch.jobs.follow import follow_file
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import FINISHED, SLURM, state_of
from automodel_launch.jobs.status import (
    JobStatus,
    exit_code_for,
    format_minutes,
    left_behind,
    mark_cancelled,
    read_exit_code,
)
from automodel_launch.launchers.ids import is_scheduler_id
from automodel_launch.launchers.slurm.arrays import Listed
from automodel_launch.launchers.slurm.cluster.client import TIMEOUT_VARIABLE as TIMEOUT_VARIABLE
from automodel_launch.launchers.slurm.cluster.client import SlurmClient, SlurmError
from automodel_launch.launchers.slurm.cluster.client import timeout as timeout
from automodel_launch.launchers.slurm.output import (
    SqueueJob,
    Unreadable,
    decode_json,
    epoch,
    read_job,
    sacct_records,
    squeue_jobs,
    time_limit,
    wait_status,
)
from automodel_launch.layout import slurm_log
from automodel_launch.secrets import display

NO_ACCOUNTING = "Slurm no longer knows the job (no accounting) and it left no exit status"
SlurmUnavailable = SlurmError
"""Slurm cannot be asked (no squeue, no answer), refused, or must not be asked (an id
that is none)."""


def statuses(manifests: Sequence[Manifest]) -> list[JobStatus]:
    """The status of each job: one ``squeue`` call for them all, and one ``sacct`` call
    for those it does not list (a 1,000-task array is one query, or two)."""
    try:
        live, problem = ask_squeue(), None
    except SlurmError as exc:
        live, problem = Listed(), str(exc)
    found: dict[int, JobStatus] = {}
    forgotten: dict[int, str] = {}
    for index, manifest in enumerate(manifests):
        try:
            job_id = checked_id(manifest)
            raw = live.find(job_id)
            if raw is not None:
                found[index] = from_squeue(manifest, read_job(raw))
            elif problem is None:
                forgotten[index] = job_id
            else:
                found[index] = from_job_dir(manifest, problem)
        except (SlurmError, Unreadable) as exc:
            found[index] = from_job_dir(manifest, str(exc))
    if forgotten:
        found.update(_from_accounting(manifests, forgotten))
    return [found[index] for index in range(len(manifests))]


def ask_squeue() -> Listed:
    """squeue's jobs by id; :class:`SlurmError` says why there are none to be had."""
    answer = SlurmClient().squeue()
    try:
        return squeue_jobs(decode_json(answer.stdout, "squeue --json"))
    except Unreadable as exc:
        raise SlurmError(str(exc)) from None


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


def _from_accounting(
    manifests: Sequence[Manifest], forgotten: dict[int, str]
) -> dict[int, JobStatus]:
    """Accounting's record of each job the controller forgot, asked in one call; the job
    directory's word where there is none."""
    try:
        answer = SlurmClient().sacct(sorted(set(forgotten.values())))
    except SlurmError as exc:
        return {i: from_job_dir(manifests[i], str(exc)) for i in forgotten}
    records, lost = sacct_records(answer.stdout) if answer is not None else (Listed(), [])
    shown: dict[int, JobStatus] = {}
    for index, job_id in forgotten.items():
        record = records.find(job_id)
        if isinstance(record, Unreadable) or (record is None and lost):
            shown[index] = from_job_dir(manifests[index], str(record or lost[0]))
        elif record is None:
            shown[index] = from_job_dir(manifests[index], None)  # "accounting is disabled"
        else:
            manifest = manifests[index]
            shown[index] = JobStatus(
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
    return shown


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
    """Show (``follow``: and follow) the job's log; a job on a named cluster has its
    output copied back before each look."""
    from automodel_launch.remote.session import connected, for_jobs

    checked_id(manifest)
    path = str(log_path(manifest))
    with connected(for_jobs([manifest])) as session:
        job_dir = Path(manifest.job_dir)

        def now() -> JobStatus:
            if session is not None:
                session.pull(job_dir)
            return status_of(manifest)

        if session is not None:
            session.pull(job_dir)
        if not follow and not Path(path).exists():
            seen = status_of(manifest)
            why = f" ({seen.reason})" if seen.reason else ""
            raise SlurmUnavailable(
                f"no output yet: the job is {seen.state}{why}; {path} is not there"
            )
        final = follow_file(Path(path), now, follow=follow, rank=rank)
    return exit_code_for(final) if follow else 0


def cancel(manifest: Manifest, *, wait: float = 15.0) -> JobStatus:
    return cancel_all([manifest], wait=wait)[0]


def cancel_all(manifests: Sequence[Manifest], *, wait: float = 15.0) -> list[JobStatus]:
    """Cancel every job of ``manifests`` that has not ended (a sweep's points, an array's
    tasks) with one ``scancel``, then wait up to ``wait`` seconds for them to end (one
    ``squeue`` a look). Nothing is cancelled when one id is no Slurm id; a point that never
    ran (its array refused: no id, an exit status) is passed over."""
    from automodel_launch.remote.session import connected, for_jobs

    for manifest in manifests:
        if manifest.scheduler_id is None and left_behind(manifest) is not None:
            continue
        checked_id(manifest, "nothing to cancel")
    with connected(for_jobs(manifests)):
        return _cancel_all(manifests, wait)


def _cancel_all(manifests: Sequence[Manifest], wait: float) -> list[JobStatus]:
    before = statuses(manifests)
    running = [manifests[i] for i, status in enumerate(before) if not status.finished]
    if not running:
        return before
    SlurmClient().scancel([checked_id(m) for m in running])
    for manifest in running:
        mark_cancelled(manifest)
    deadline = time.monotonic() + wait
    now = statuses(manifests)
    while not all(s.finished for s in now) and time.monotonic() < deadline:
        time.sleep(0.3)
        now = statuses(manifests)
    return now


def _text(value: str | None) -> str | None:
    """Scheduler text as it may be shown: no token, no control character, not huge."""
    return display(value) if value else None


def _limit(manifest: Manifest) -> str | None:
    value = manifest.details.get("time")
    return None if value is None else display(str(value))
