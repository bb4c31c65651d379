"""SkyPilot jobs through the 0.14 SDK: managed jobs (``sky.jobs.queue``,
``sky.jobs.tail_logs``, ``sky.jobs.cancel``) and jobs on a cluster launched by
``sky.launch`` (``sky.queue``, ``sky.tail_logs``, ``sky.cancel``).

Every SDK call here is asynchronous: it returns a request id that
``sky.stream_and_get`` waits on; the ``tail_logs`` calls stream and return the job's
exit code. ``sky`` is imported only here, when a SkyPilot job is asked about.
"""

from __future__ import annotations

import re
import sys
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from automodel_launch.jobs.follow import Lines
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import SKYPILOT_CLUSTER, SKYPILOT_MANAGED, State, state_of
from automodel_launch.jobs.status import JobError, JobStatus
from automodel_launch.launchers.ids import is_scheduler_id
from automodel_launch.launchers.slurm.output import MAX_EPOCH, MAX_TEXT, Text, Word, problem
from automodel_launch.secrets import display

Time = Annotated[float, Field(ge=0, le=MAX_EPOCH, allow_inf_nan=False)]


class SkyRecord(BaseModel):
    """The fields of a job record of ``sky.jobs.queue`` or ``sky.queue`` status shows."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    job_id: Annotated[int, Field(ge=0, le=9_999_999_999)]
    status: Word
    failure_reason: Text | None = None
    details: Text | None = None
    start_at: Time | None = None
    end_at: Time | None = None
    log_path: Annotated[str, StringConstraints(max_length=MAX_TEXT)] | None = None


def _sky() -> Any:
    try:
        import sky
    except ImportError:
        raise JobError(
            "SkyPilot is not installed: pip install 'automodel-launch[skypilot]'"
        ) from None
    return sky


def _job_id(manifest: Manifest) -> int:
    job_id = manifest.scheduler_id
    if not job_id:
        raise JobError(f"job {manifest.id} has no SkyPilot job id: it was never launched")
    if not is_scheduler_id("skypilot", job_id):
        raise JobError(
            f"job {manifest.id}'s scheduler id {display(job_id)!r} is not a SkyPilot job id "
            "(its manifest was changed?): SkyPilot was not asked"
        )
    return int(job_id)


CLUSTER_NAME = re.compile(r"[a-zA-Z]([-_.a-zA-Z0-9]{0,254}[a-zA-Z0-9])?")
"""SkyPilot's rule for a cluster name (``sky.utils.common_utils.check_cluster_name_is_valid``)."""


def _cluster(manifest: Manifest) -> str:
    name = str(manifest.details.get("cluster") or manifest.name)
    if CLUSTER_NAME.fullmatch(name) is None:
        raise JobError(
            f"job {manifest.id}'s cluster {display(name)!r} is not a SkyPilot cluster name "
            "(its manifest was changed?): SkyPilot was not asked"
        )
    return name


def statuses(manifests: list[Manifest]) -> list[JobStatus]:
    """Each job's status: the managed jobs with one ``sky.jobs.queue`` call for them all
    (a sweep's points), each job on a cluster with its cluster's ``sky.queue``."""
    managed: dict[int, Manifest] = {}
    found: dict[str, JobStatus] = {}
    for manifest in manifests:
        if not manifest.details.get("managed"):
            found[manifest.id] = status_of(manifest)
            continue
        try:
            managed[_job_id(manifest)] = manifest
            _cluster(manifest)
        except JobError as exc:
            found[manifest.id] = JobStatus(manifest, "UNKNOWN", note=str(exc))
    if managed:
        found.update(_managed(managed))
    return [found[m.id] for m in manifests]


def _managed(jobs: dict[int, Manifest]) -> dict[str, JobStatus]:
    """The statuses of managed jobs (SkyPilot job id -> manifest), from one queue call."""
    try:
        sky = _sky()
        records = sky.stream_and_get(
            sky.jobs.queue(refresh=False, skip_finished=False, job_ids=sorted(jobs))
        )
        found = {job_id: _find(records, job_id) for job_id in jobs}
    except Exception as exc:  # JobError, or one of the SDK's many (no API server...)
        note = str(exc) if isinstance(exc, JobError) else _could_not_say(exc)
        return {m.id: JobStatus(m, "UNKNOWN", note=note) for m in jobs.values()}
    return {
        m.id: _status(m, found[job_id], SKYPILOT_MANAGED, _cluster(m)) for job_id, m in jobs.items()
    }


def _could_not_say(exc: Exception) -> str:
    return f"SkyPilot could not say ({type(exc).__name__}: {display(str(exc))})"


def status_of(manifest: Manifest) -> JobStatus:
    try:
        job_id = _job_id(manifest)
        cluster = _cluster(manifest)
        sky = _sky()
        if manifest.details.get("managed"):
            records = sky.stream_and_get(
                sky.jobs.queue(refresh=False, skip_finished=False, job_ids=[job_id])
            )
            table = SKYPILOT_MANAGED
        else:
            records = sky.stream_and_get(sky.queue(cluster, skip_finished=False))
            table = SKYPILOT_CLUSTER
        record = _find(records, job_id)
    except JobError as exc:
        return JobStatus(manifest, "UNKNOWN", note=str(exc))
    except Exception as exc:  # the SDK raises many types (cluster down, no API server...)
        return JobStatus(manifest, "UNKNOWN", note=_could_not_say(exc))
    return _status(manifest, record, table, cluster)


def _status(
    manifest: Manifest, record: SkyRecord | None, table: dict[str, State], cluster: str
) -> JobStatus:
    if record is None:  # it will not come back: a sweep's driver stops waiting for it
        note = "SkyPilot no longer lists the job"
        return JobStatus(manifest, "UNKNOWN", note=note, cluster=cluster, final=True)
    state = state_of(table, record.status)
    reason = record.failure_reason or record.details
    return JobStatus(
        manifest,
        state,
        scheduler_state=record.status,
        reason=display(reason) if reason else None,
        started_at=record.start_at,
        ended_at=record.end_at,
        exit_code=0 if state == "COMPLETED" else None,
        log_path=display(record.log_path) if record.log_path else None,
        cluster=cluster,
    )


def _find(records: Any, job_id: int) -> SkyRecord | None:
    """The record of ``job_id`` in the SDK's answer, read into :class:`SkyRecord`."""
    if records is None:
        return None
    if not isinstance(records, list):
        raise JobError(f"SkyPilot's queue gave {type(records).__name__}, not a list of jobs")
    for record in records:
        if _get(record, "job_id") != job_id or isinstance(_get(record, "job_id"), bool):
            continue
        status = _get(record, "status")
        fields = {name: _get(record, name) for name in SkyRecord.model_fields}
        fields["status"] = getattr(status, "value", status)
        try:
            return SkyRecord.model_validate(fields)
        except ValidationError as exc:
            raise JobError(
                f"SkyPilot's queue gave a job this version cannot read ({problem(exc)})"
            ) from None
    return None


def logs(manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
    job_id = _job_id(manifest)
    sky = _sky()
    # --rank: SkyPilot writes the log into a stream that keeps rank N's lines (the task's
    # torchrun tags each line [rankN]:, render/skypilot.py); else it prints it itself
    lines = Lines(rank, sys.stdout, sky=True) if rank is not None else None
    stream = {"output_stream": lines} if lines is not None else {}
    try:
        if manifest.details.get("managed"):
            code = sky.jobs.tail_logs(job_id=job_id, follow=follow, **stream)
        else:
            code = sky.tail_logs(_cluster(manifest), job_id, follow, **stream)
    except Exception as exc:
        raise JobError(f"SkyPilot could not show the logs: {display(str(exc))}") from None
    finally:
        if lines is not None:
            lines.close()
    if type(code) is not int:
        return 0
    return code if 0 <= code <= 255 else 1


def cancel(manifest: Manifest) -> JobStatus:
    job_id = _job_id(manifest)
    sky = _sky()
    try:
        if manifest.details.get("managed"):
            sky.stream_and_get(sky.jobs.cancel(job_ids=[job_id]))
        else:
            sky.stream_and_get(sky.cancel(_cluster(manifest), job_ids=[job_id]))
    except Exception as exc:
        raise JobError(f"SkyPilot could not cancel the job: {display(str(exc))}") from None
    return status_of(manifest)


def _get(record: Any, key: str) -> Any:
    """Records are pydantic models (0.14) or dicts (older servers)."""
    return record.get(key) if isinstance(record, dict) else getattr(record, key, None)
