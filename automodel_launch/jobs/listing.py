"""What ``jobs`` lists: the rows asked for (a sweep is one row), their jobs with their
states now, and the registry's records that hold no manifest."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from automodel_launch.errors import UsageError
from automodel_launch.jobs.registry import open_registry
from automodel_launch.jobs.states import STATES, State
from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.sweeps import Row, SweepStatus, rows
from automodel_launch.launcher_names import INTERACTIVE, launched_here
from automodel_launch.launchers.dispatch import statuses


def launcher_names() -> dict[str, str]:
    """``--launcher`` -> the launcher of the jobs listed (``local`` is the interactive one),
    plugged launchers included."""
    return {**{name: name for name in launched_here()}, "local": INTERACTIVE}


class FilterError(UsageError):
    """A filter of ``jobs`` that no job can pass: :attr:`option` names it (``state``), the
    message says what to give instead."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"{option}: {reason}")
        self.option, self.reason = option, reason


class Filters(NamedTuple):
    launcher: str | None
    state: State | None
    after: float | None
    """Submitted at this time (seconds since the epoch) or later."""


def read_filters(launcher: str | None, state: str | None, since: str | None) -> Filters:
    """``jobs``' ``--launcher``, ``--state`` (any case) and ``--since`` as
    :func:`list_jobs` takes them; a :class:`FilterError` for a value none can match."""
    from automodel_launch.jobs.lookup import since_epoch

    names = launcher_names()
    if launcher is not None and launcher not in names:
        *some, last = (name for name in names if name != INTERACTIVE)
        use = f"{', '.join(some)} or {last}"
        raise FilterError("launcher", f"'{launcher}' is no launcher: use {use}")
    named = next((s for s in STATES if s == state.upper()), None) if state is not None else None
    if state is not None and named is None:
        raise FilterError("state", f"'{state}' is no job state: use one of " + ", ".join(STATES))
    try:
        after = since_epoch(since) if since is not None else None
    except ValueError as exc:
        raise FilterError("since", str(exc)) from None
    return Filters(names[launcher] if launcher else None, named, after)


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
