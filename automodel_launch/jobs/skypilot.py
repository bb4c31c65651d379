"""SkyPilot jobs through the 0.14 SDK: managed jobs (``sky.jobs.queue``,
``sky.jobs.tail_logs``, ``sky.jobs.cancel``) and jobs on a cluster launched by
``sky.launch`` (``sky.queue``, ``sky.tail_logs``, ``sky.cancel``).

Every SDK call here is asynchronous: it returns a request id that
``sky.stream_and_get`` waits on; the ``tail_logs`` calls stream and return the job's
exit code. ``sky`` is imported only here, when a SkyPilot job is asked about.
"""

from __future__ import annotations

from typing import Any

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import SKYPILOT_CLUSTER, SKYPILOT_MANAGED, state_of
from automodel_launch.jobs.status import JobError, JobStatus


def _sky() -> Any:
    try:
        import sky
    except ImportError:
        raise JobError(
            "SkyPilot is not installed: pip install 'automodel-launch[skypilot]'"
        ) from None
    return sky


def _job_id(manifest: Manifest) -> int:
    if manifest.scheduler_id is None or not manifest.scheduler_id.isdigit():
        raise JobError(f"job {manifest.id} has no SkyPilot job id: it was never launched")
    return int(manifest.scheduler_id)


def _cluster(manifest: Manifest) -> str:
    return str(manifest.details.get("cluster") or manifest.name)


def statuses(manifests: list[Manifest]) -> list[JobStatus]:
    return [status_of(m) for m in manifests]


def status_of(manifest: Manifest) -> JobStatus:
    try:
        job_id = _job_id(manifest)
        sky = _sky()
        if manifest.details.get("managed"):
            records = sky.stream_and_get(
                sky.jobs.queue(refresh=False, skip_finished=False, job_ids=[job_id])
            )
            table = SKYPILOT_MANAGED
        else:
            records = sky.stream_and_get(sky.queue(_cluster(manifest), skip_finished=False))
            table = SKYPILOT_CLUSTER
    except JobError as exc:
        return JobStatus(manifest, "UNKNOWN", note=str(exc))
    except Exception as exc:  # the SDK raises many types (cluster down, no API server...)
        note = f"SkyPilot could not say ({type(exc).__name__}: {exc})"
        return JobStatus(manifest, "UNKNOWN", note=note)
    record = next((r for r in records or [] if _get(r, "job_id") == job_id), None)
    if record is None:
        return JobStatus(manifest, "UNKNOWN", note="SkyPilot no longer lists the job")
    status = _get(record, "status")
    scheduler_state = str(getattr(status, "value", status))
    state = state_of(table, scheduler_state)
    reason = _get(record, "failure_reason") or _get(record, "details")
    return JobStatus(
        manifest,
        state,
        scheduler_state=scheduler_state,
        reason=str(reason) if reason else None,
        started_at=_get(record, "start_at"),
        ended_at=_get(record, "end_at"),
        exit_code=0 if state == "COMPLETED" else None,
        log_path=_get(record, "log_path"),
        cluster=_cluster(manifest),
    )


def logs(manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
    if rank is not None:
        raise JobError("--rank is for Slurm and local jobs; SkyPilot streams every rank together")
    job_id = _job_id(manifest)
    sky = _sky()
    try:
        if manifest.details.get("managed"):
            code = sky.jobs.tail_logs(job_id=job_id, follow=follow)
        else:
            code = sky.tail_logs(_cluster(manifest), job_id, follow)
    except Exception as exc:
        raise JobError(f"SkyPilot could not show the logs: {exc}") from None
    return int(code) if isinstance(code, int) else 0


def cancel(manifest: Manifest) -> JobStatus:
    job_id = _job_id(manifest)
    sky = _sky()
    try:
        if manifest.details.get("managed"):
            sky.stream_and_get(sky.jobs.cancel(job_ids=[job_id]))
        else:
            sky.stream_and_get(sky.cancel(_cluster(manifest), job_ids=[job_id]))
    except Exception as exc:
        raise JobError(f"SkyPilot could not cancel the job: {exc}") from None
    return status_of(manifest)


def _get(record: Any, key: str) -> Any:
    """Records are pydantic models (0.14) or dicts (older servers)."""
    return record.get(key) if isinstance(record, dict) else getattr(record, key, None)
