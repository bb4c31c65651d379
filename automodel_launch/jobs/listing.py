"""What ``jobs`` lists: the rows asked for (a sweep is one row), their jobs with their
states now, and the registry's records that hold no manifest."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from automodel_launch.jobs.registry import open_registry
from automodel_launch.jobs.status import JobStatus, statuses
from automodel_launch.jobs.sweeps import Row, SweepStatus, rows


@dataclass(frozen=True)
class Listing:
    jobs: list[JobStatus]
    """Newest first; every point of a sweep is a job."""
    rows: int
    """Rows there are (a sweep is one): more than :attr:`table` has when a limit left some
    out."""
    recorded: bool
    """The registry holds jobs of the launcher and time asked for (``state`` aside)."""
    problems: list[str]
    """Records left out because they hold no manifest (``jobs`` warns of each)."""

    @cached_property
    def table(self) -> list[Row]:
        """One row a single job, one a sweep."""
        return rows(self.jobs)

    @property
    def left_out(self) -> int:
        """Older rows not listed (the limit)."""
        return self.rows - len(self.table)


def list_jobs(
    *,
    launcher: str | None = None,
    state: str | None = None,
    after: float | None = None,
    limit: int = 0,
    sweep: str | None = None,
) -> Listing:
    """The jobs of the newest ``limit`` rows (0: every row), with their states now (one
    scheduler query a launcher). Without ``state`` or ``sweep``, one query of the registry
    gives only the jobs of those rows; with one, every job it could be is asked about
    first. ``sweep``: only the points of the sweep it names (its id, array id or name)."""
    if sweep is not None:
        from automodel_launch.jobs.lookup import named as reference

        reference(sweep)  # an empty SWEEP names none: a usage error, as for every JOB
    total: int | None = None  # the registry counts the rows when it picks them
    with open_registry() as registry:
        if sweep is not None:
            _, named = registry.sweep_ids(sweep)
            manifests = registry.sweep_points(named[0]) if named else []
        elif limit and state is None:
            manifests, total = registry.newest_rows(limit, launcher, after)
        else:
            manifests = registry.jobs(launcher, after)
        problems = list(registry.problems)
    found = [s for s in statuses(manifests) if state is None or s.state == state]
    if total is None:
        grouped = rows(found)
        total = len(grouped)
        if limit:
            keep = {id(s) for row in grouped[:limit] for s in _points(row)}
            found = [s for s in found if id(s) in keep]
    return Listing(found, total, bool(manifests), problems)


def _points(row: Row) -> tuple[JobStatus, ...]:
    return row.points if isinstance(row, SweepStatus) else (row,)
