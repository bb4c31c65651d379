"""A sweep as the views show it: its points (jobs of one ``submit --sweep``, in point
order), their states counted, and the GPU-hours they used."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import STATES
from automodel_launch.jobs.status import JobError, JobStatus


@dataclass(frozen=True)
class Sweep:
    id: str
    points: tuple[Manifest, ...]
    """In point order; never empty."""

    @property
    def name(self) -> str:
        return self.points[0].name

    @property
    def launcher(self) -> str:
        return self.points[0].launcher

    def point(self, index: int) -> Manifest:
        """The point whose index is ``index``; a :class:`JobError` listing those there are."""
        for manifest in self.points:
            if manifest.point == index:
                return manifest
        raise JobError(f"sweep {self.id} has no point {index}: its points are {self.indexes}")

    @property
    def indexes(self) -> str:
        """``0 to 3``, or the indexes there are (a point whose record is lost is missing)."""
        indexes = sorted(m.point for m in self.points if m.point is not None)
        if indexes == list(range(len(indexes))):
            return f"0 to {indexes[-1]}"
        return ", ".join(str(i) for i in indexes[:20]) + (" ..." if len(indexes) > 20 else "")


@dataclass(frozen=True)
class SweepStatus:
    """A sweep's points with their statuses, as ``jobs`` and ``status`` show them."""

    id: str
    points: tuple[JobStatus, ...]

    @property
    def first(self) -> Manifest:
        return self.points[0].manifest

    @property
    def submitted_at(self) -> str:
        return min(s.manifest.submitted_at for s in self.points)

    @property
    def counts(self) -> dict[str, int]:
        """How many points are in each state: the most first, then in :data:`STATES` order."""
        counted = Counter(s.state for s in self.points)
        return dict(sorted(counted.items(), key=lambda item: (-item[1], STATES.index(item[0]))))

    @property
    def summary(self) -> str:
        """``4 points: 2 RUNNING, 1 PENDING, 1 COMPLETED``."""
        count = len(self.points)
        states = ", ".join(f"{n} {state}" for state, n in self.counts.items())
        return f"{count} point{'s' if count != 1 else ''}: {states}"

    @property
    def gpu_hours(self) -> float | None:
        """The points' GPU-hours summed; None when any point's are unknown."""
        hours = [s.gpu_hours for s in self.points]
        return None if any(h is None for h in hours) else sum(h or 0.0 for h in hours)

    @property
    def array_id(self) -> str | None:
        """The Slurm job array the points are tasks of (``1234`` of ``1234_0``...), if every
        point is a task of one; a sweep of several arrays (its points need different
        scripts: ``--sweep slurm.nodes=1,2``) has them all, in the order of their first
        points, joined by commas: ``1234,1240``."""
        ids = [s.manifest.scheduler_id or "" for s in self.points]
        if not all("_" in job_id for job_id in ids):
            return None
        return ",".join(dict.fromkeys(job_id.partition("_")[0] for job_id in ids))

    @property
    def job_dir(self) -> str:
        """The directory that holds every point's job directory."""
        return os.path.commonpath([s.manifest.job_dir for s in self.points])

    def to_json(self, sort: str | None = None) -> dict[str, Any]:
        """The SWEEP object of docs/json-output.md (``order``: the points by ``sort``)."""
        from automodel_launch.progress.compare import best, default_sort, ranked, scaling

        first = self.first
        hours = self.gpu_hours
        top = best(self.points)
        scaled = scaling(self.points)
        return {
            "sweep": self.id,
            "name": first.name,
            "launcher": first.launcher,
            "scheduler_id": self.array_id,
            "submitted_at": self.submitted_at,
            "job_dir": self.job_dir,
            "states": self.counts,
            "gpu_hours": None if hours is None else round(hours, 3),
            "keys": list(dict.fromkeys(k for s in self.points for k in s.manifest.values)),
            "points": [s.to_json() for s in self.points],
            "sort": sort or default_sort(self.points),
            "order": [
                s.manifest.point for s in ranked(self.points, sort or default_sort(self.points))
            ],
            "best_point": None if top is None else top.manifest.point,
            "scaling": None if scaled is None else [row.to_json() for row in scaled],
        }


Row = JobStatus | SweepStatus


def rows(statuses: Sequence[JobStatus]) -> list[Row]:
    """One row a single job, one a sweep (where its newest point was), the order kept."""
    order: list[JobStatus | str] = []
    sweeps: dict[str, list[JobStatus]] = {}
    for status in statuses:
        sweep = status.manifest.sweep
        if sweep is None:
            order.append(status)
            continue
        if sweep not in sweeps:
            order.append(sweep)  # its place
        sweeps.setdefault(sweep, []).append(status)
    return [
        SweepStatus(row, tuple(sorted(sweeps[row], key=_point))) if isinstance(row, str) else row
        for row in order
    ]


def sweep_status(sweep: Sweep, statuses: Sequence[JobStatus]) -> SweepStatus:
    return SweepStatus(sweep.id, tuple(statuses))


def _point(status: JobStatus) -> int:
    return status.manifest.point or 0
