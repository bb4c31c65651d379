"""``--after JOB[:any]``: a Slurm dependency on jobs the registry knows.

JOB is what ``status`` accepts (an id, a scheduler id, a job directory, a name), or a
sweep (its id or a unique start of it, its name, its array's id: after all its points).
``afterok`` by default: the new job starts once the other ended well, and never if it
failed; ``:any`` starts it however the other ended. The ids come from manifests, outside
this process: each is checked against Slurm's grammar before it is written into the
script.

A Slurm dependency names a job of the cluster the new job is submitted to: JOB must have
run there (both on this host's Slurm, or both on the same named cluster), else the id
would name another job, or none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.launchers.ids import is_scheduler_id

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest

MODES = {"": "afterok", "ok": "afterok", "any": "afterany"}


class AfterError(UsageError):
    """An ``--after`` that names no Slurm job this tool can wait for."""


def dependency(targets: Sequence[str], cluster: str | None = None) -> str | None:
    """``#SBATCH --dependency`` for every ``--after`` (all must hold), None for none.
    ``cluster``: the named cluster the new job goes to (None: this host's Slurm)."""
    parts = []
    for text in targets:
        job, mode = _split(text)
        parts.append(f"{MODES[mode]}:{':'.join(_scheduler_ids(job, text, cluster))}")
    return ",".join(parts) or None


def _split(text: str) -> tuple[str, str]:
    head, colon, tail = text.rpartition(":")
    if colon and tail in ("any", "ok"):
        return head, tail  # ":any": an empty JOB, refused as one
    return text, ""


def _scheduler_ids(job: str, given: str, cluster: str | None) -> list[str]:
    from automodel_launch.jobs.lookup import find_job_or_sweep
    from automodel_launch.jobs.sweeps import Sweep
    from automodel_launch.launchers import LAUNCHERS

    try:
        named = find_job_or_sweep(job)  # an empty JOB is refused there, as everywhere
    except LaunchError as exc:  # no such job, an empty one, or one that cannot be read
        shown = given if job.strip() else repr(given)  # --after '', --after ':any'
        raise AfterError(f"--after {shown}: {exc}", hint=exc.hint) from None
    manifests = list(named.points) if isinstance(named, Sweep) else [named]
    found = []
    for manifest in manifests:
        if not LAUNCHERS[manifest.launcher].dependencies:
            raise AfterError(
                f"--after {given}: job {manifest.id} ran with {manifest.launcher}; only a Slurm "
                "job can wait for another, and only for a Slurm job",
                hint="submit it when that job has ended",
            )
        _same_cluster(manifest, given, cluster)
        scheduler_id = manifest.scheduler_id
        if scheduler_id is None or not is_scheduler_id("slurm", scheduler_id):
            raise AfterError(f"--after {given}: job {manifest.id} has no Slurm job id to wait for")
        # a point of a sweep: its whole array (the id before "_")
        found.append(scheduler_id.split("_", 1)[0] if manifest.sweep else scheduler_id)
    return list(dict.fromkeys(found))


def _same_cluster(manifest: Manifest, given: str, cluster: str | None) -> None:
    """JOB ran on the cluster the new job goes to, else :class:`AfterError`."""
    there = manifest.remote.name if manifest.remote is not None else None
    if there == cluster:
        return
    where = f"to cluster {there} (--remote {there})" if there else "here (without --remote)"
    raise AfterError(
        f"--after {given}: job {manifest.id} ran on {_cluster(there)}, and this job goes to "
        f"{_cluster(cluster)}; a Slurm dependency only names jobs of the same cluster",
        hint=f"submit this job {where} as well, or submit it once job {manifest.id} has ended "
        f"(`automodel-launch status {manifest.id}` says when)",
    )


def _cluster(name: str | None) -> str:
    return f"cluster {name}" if name else "this host's Slurm"
