"""Which launcher answers for a job, and the commands asked of many jobs at once.

Each launcher (:class:`automodel_launch.launchers.Launcher`) answers
``statuses(manifests)`` (one scheduler query for many jobs), ``logs(manifest, follow,
rank)`` (returns the exit code to end with) and ``cancel(manifest)``; here the jobs of a
command are grouped by launcher (and by named cluster), a sweep's points not started yet
are answered by its driver, and a failed job's failure is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.jobs.files import each_read_once
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobError, JobStatus, job_dir_notes

if TYPE_CHECKING:
    from automodel_launch.launchers import Launcher


def backend(launcher: str) -> Launcher:
    """The launcher that answers for a job's ``status``, ``logs`` and ``cancel``."""
    from automodel_launch.launchers import LAUNCHERS

    if launcher not in LAUNCHERS:
        raise JobError(f"the job's launcher {launcher!r} is not one this version knows")
    return LAUNCHERS[launcher]


def statuses(manifests: list[Manifest], *, failures: bool = False) -> list[JobStatus]:
    """Each job's status, in the order given; one query per launcher; each job directory's
        files read once. With ``failures``, a failed job's says why (:func:`with_failure`) and
    each job's training progress is read (:func:`with_progress`)."""
    from automodel_launch.jobs.driven import driven, queued_status

    by_launcher: dict[tuple[str, str | None], list[Manifest]] = {}
    found: dict[str, JobStatus] = {}
    for manifest in manifests:
        if driven(manifest):  # not started yet: its sweep's driver answers, not a scheduler
            found[manifest.id] = _with_job_dir_notes(queued_status(manifest))
        else:
            where = None if manifest.remote is None else manifest.remote.name
            by_launcher.setdefault((manifest.launcher, where), []).append(manifest)
    for (launcher, where), group in by_launcher.items():
        from automodel_launch.launchers import LAUNCHERS

        if launcher not in LAUNCHERS:
            for m in group:
                found[m.id] = JobStatus(m, "UNKNOWN", note=f"unknown launcher {launcher!r}")
            continue
        if where is not None:
            from automodel_launch.remote.status import remote_statuses

            for status in remote_statuses(backend(launcher).statuses, group, fetch=failures):
                found[status.manifest.id] = _with_job_dir_notes(status)
            continue
        with each_read_once():
            for status in backend(launcher).statuses(group):
                found[status.manifest.id] = _with_job_dir_notes(status)
    shown = [found[m.id] for m in manifests]
    return [with_progress(with_failure(s)) for s in shown] if failures else shown


def with_failure(status: JobStatus) -> JobStatus:
    """``status`` with its failure diagnosed (:mod:`automodel_launch.jobs.failure`). A job
    the scheduler no longer knows whose log says Slurm stopped it (its time limit...) is
    shown as Slurm showed it then (TIMEOUT), whatever exit status it left."""
    from dataclasses import replace

    from automodel_launch.jobs.failure import diagnose, stopped_by_scheduler

    if status.scheduler_state is None and status.state in ("COMPLETED", "FAILED", "UNKNOWN"):
        stopped = stopped_by_scheduler(status)
        if stopped is not None:
            code = status.exit_code or None  # a 0 there is not how it ended
            status = replace(status, state=stopped, exit_code=code, final=True)
    failure = diagnose(status)
    return status if failure is None else replace(status, failure=failure)


def with_progress(status: JobStatus) -> JobStatus:
    """``status`` with how far its training is (:mod:`automodel_launch.progress`)."""
    from dataclasses import replace

    from automodel_launch.progress.read import progress_of

    progress = progress_of(status)
    return status if progress is None else replace(status, progress=progress)


def cancel_all(manifests: list[Manifest]) -> list[JobStatus]:
    """Cancel every job of ``manifests`` not finished yet: each launcher's backend gets its
    jobs at once when it can cancel many (Slurm: one ``scancel``), else one by one.

    A sweep fed by a driver: the driver is stopped first (it starts no more points), then
    the points it started are cancelled as any job, and those it had not are marked
    cancelled (it never starts them)."""
    from automodel_launch.jobs.driven import cancel_queued, driven, stop_driver

    manifests = _after_drivers_stopped(manifests, stop_driver)
    by_launcher: dict[str, list[Manifest]] = {}
    found: dict[str, JobStatus] = {}
    for manifest in manifests:
        if driven(manifest):
            found[manifest.id] = cancel_queued(manifest)
        else:
            by_launcher.setdefault(manifest.launcher, []).append(manifest)
    for launcher, group in by_launcher.items():
        done = backend(launcher).cancel_all(group)
        found.update((status.manifest.id, status) for status in done)
    return [found[m.id] for m in manifests]


def _after_drivers_stopped(
    manifests: list[Manifest], stop: Callable[[Path], bool]
) -> list[Manifest]:
    """``manifests`` as their job directories say once every driver among them stopped:
    a driver records the points it starts there (the registry's copy may be older)."""
    from automodel_launch.jobs.manifest import ManifestError, read_manifest
    from automodel_launch.layout import DRIVER, sweep_root

    roots = {sweep_root(Path(m.job_dir)) for m in manifests if m.sweep is not None}
    fed = [root for root in sorted(roots) if os.path.lexists(root / DRIVER)]
    for root in fed:
        stop(root)
    if not fed:
        return manifests
    fresh = []
    for manifest in manifests:
        try:
            read = read_manifest(Path(manifest.job_dir))
        except ManifestError:
            read = manifest
        fresh.append(read if read.id == manifest.id else manifest)
    return fresh


def _with_job_dir_notes(status: JobStatus) -> JobStatus:
    from dataclasses import replace

    if not Path(status.manifest.job_dir).is_dir():
        return replace(
            status,
            note=f"the job directory {status.manifest.job_dir} no longer exists; "
            "`automodel-launch jobs --reindex DIR` (its parent) drops this record",
        )
    notes = job_dir_notes(status.manifest)
    if not notes:
        return status
    return replace(status, note="; ".join([*([status.note] if status.note else []), *notes]))
