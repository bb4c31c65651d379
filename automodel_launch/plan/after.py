"""``--after JOB[:any]``: a Slurm dependency on jobs the registry knows.

JOB is what ``status`` accepts (an id, a scheduler id, a job directory, a name), or a
sweep (its points' array: after all of them). ``afterok`` by default: the new job starts
once the other ended well, and never if it failed; ``:any`` starts it however the other
ended. The ids come from manifests, outside this process: each is checked against
Slurm's grammar before it is written into the script.
"""

from __future__ import annotations

from collections.abc import Sequence

from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.jobs.ids import is_scheduler_id

MODES = {"": "afterok", "ok": "afterok", "any": "afterany"}


class AfterError(UsageError):
    """An ``--after`` that names no Slurm job this tool can wait for."""


def dependency(targets: Sequence[str]) -> str | None:
    """``#SBATCH --dependency`` for every ``--after`` (all must hold), None for none."""
    parts = []
    for text in targets:
        job, mode = _split(text)
        parts.append(f"{MODES[mode]}:{':'.join(_scheduler_ids(job, text))}")
    return ",".join(parts) or None


def _split(text: str) -> tuple[str, str]:
    head, colon, tail = text.rpartition(":")
    if colon and tail in ("any", "ok") and head:
        return head, tail
    return text, ""


def _scheduler_ids(job: str, given: str) -> list[str]:
    from automodel_launch.jobs.lookup import find_job
    from automodel_launch.jobs.registry import open_registry

    with open_registry() as registry:
        kind, sweeps = registry.sweep_ids(job)
        points = registry.sweep_points(sweeps[0]) if kind in ("id", "name") and sweeps else []
    try:
        manifests = points or [find_job(job)]
    except LaunchError as exc:  # no such job, or one that cannot be read
        raise AfterError(f"--after {given}: {exc}", hint=exc.hint) from None
    from automodel_launch.launchers import LAUNCHERS

    found = []
    for manifest in manifests:
        if not LAUNCHERS[manifest.launcher].dependencies:
            raise AfterError(
                f"--after {given}: job {manifest.id} ran with {manifest.launcher}; only a Slurm "
                "job can wait for another, and only for a Slurm job",
                hint="submit it when that job has ended",
            )
        scheduler_id = manifest.scheduler_id
        if scheduler_id is None or not is_scheduler_id("slurm", scheduler_id):
            raise AfterError(f"--after {given}: job {manifest.id} has no Slurm job id to wait for")
        # a point of a sweep: its whole array (the id before "_")
        found.append(scheduler_id.split("_", 1)[0] if manifest.sweep else scheduler_id)
    return list(dict.fromkeys(found))
