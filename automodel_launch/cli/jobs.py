"""``automodel-launch jobs``: every recorded job, newest first, with its state now; a sweep
is one row (its points counted by state), ``--watch`` a live table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, Optional

import typer

if TYPE_CHECKING:
    from automodel_launch.jobs.status import JobStatus

from automodel_launch.launcher_names import INTERACTIVE, LAUNCHED_HERE

DEFAULT_ROWS = 50
"""Rows of the table by default: the newest, which is what a glance at ``jobs`` is for; a
registry of 10,000 jobs is still listed at once (``--limit 0`` lists every one)."""
LAUNCHER_NAMES: dict[str, str] = {**{name: name for name in LAUNCHED_HERE}, "local": INTERACTIVE}
"""--launcher -> the launcher of the jobs shown (``local`` is the interactive one)."""


def command(
    launcher: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--launcher", help="Only this launcher: slurm, skypilot or local."),
    ] = None,
    state: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--state", help="Only jobs in this state (PENDING, RUNNING, FAILED, ...)."),
    ] = None,
    since: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--since", help="Only jobs submitted this long ago or later: 2d, 12h, 30m."),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", help='text (a table) or json ({"jobs": [JOB, ...]}).')
    ] = "text",
    limit: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--limit",
            min=0,
            help=f"Show the newest N rows (a sweep is one row); 0: every one. Default: "
            f"{DEFAULT_ROWS} in the table, every job in JSON.",
        ),
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="A live table, refreshed until Ctrl-C.")
    ] = False,
    interval: Annotated[
        float,
        typer.Option("--interval", min=1.0, max=3600.0, help="Seconds between refreshes."),
    ] = 5.0,
    reindex: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--reindex",
            help="Rebuild the registry's records of the job directories under DIR from their "
            "manifests (a corrupt registry is set aside first).",
            metavar="DIR",
        ),
    ] = None,
) -> None:
    """List recorded jobs, newest first, with their state now."""
    from automodel_launch.jobs.lookup import since_epoch
    from automodel_launch.jobs.states import STATES

    if output_format not in ("text", "json"):
        raise typer.BadParameter("use text or json", param_hint="--format")
    if launcher is not None and launcher not in LAUNCHER_NAMES:
        raise typer.BadParameter("use slurm, skypilot or local", param_hint="--launcher")
    if state is not None and state.upper() not in STATES:
        raise typer.BadParameter("use one of " + ", ".join(STATES), param_hint="--state")
    try:
        after = since_epoch(since) if since is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--since") from None
    if reindex is not None:
        _reindex(reindex)
        return
    if limit is None:
        limit = DEFAULT_ROWS if output_format == "text" else 0
    wanted = Wanted(LAUNCHER_NAMES.get(launcher or ""), state.upper() if state else None, after,
                    limit)  # fmt: skip
    if watch:
        if output_format != "text":
            raise typer.BadParameter("--watch shows a table: use text", param_hint="--format")
        _watch(wanted, interval)
        return
    _list(wanted, output_format)


class Wanted(NamedTuple):
    launcher: str | None
    state: str | None
    after: float | None
    limit: int
    """Rows (a sweep is one); 0: every one."""


class Shown(NamedTuple):
    jobs: list[JobStatus]
    rows: int
    """Rows there are (a sweep is one): more than shown when the limit left some out."""
    recorded: bool


def _shown(wanted: Wanted) -> Shown:
    """The jobs to show with their states now (one scheduler query a launcher); warnings
    for the records that hold no manifest. Without ``--state``, one query of the registry
    gives only the jobs of the rows shown; with it, every job is asked about first."""
    from automodel_launch.jobs.registry import open_registry
    from automodel_launch.jobs.status import statuses
    from automodel_launch.jobs.sweeps import rows
    from automodel_launch.secrets import display

    launcher, state, after, limit = wanted
    with open_registry() as registry:
        if limit and state is None:
            manifests, total = registry.newest_rows(limit, launcher, after)
        else:
            manifests = registry.jobs(launcher, after)
            total = -1
        problems = registry.problems
    for problem in problems:  # a damaged record: the other jobs are still listed
        typer.echo(f"warning: {display(problem)}", err=True)
    found = [s for s in statuses(manifests) if state is None or s.state == state]
    if total < 0:
        grouped = rows(found)
        total = len(grouped)
        if limit:
            keep = {id(s) for row in grouped[:limit] for s in _points(row)}
            found = [s for s in found if id(s) in keep]
    return Shown(found, total, bool(manifests))


def _points(row: Any) -> tuple[JobStatus, ...]:
    from automodel_launch.jobs.sweeps import SweepStatus

    return tuple(row.points) if isinstance(row, SweepStatus) else (row,)


def _list(wanted: Wanted, output_format: str) -> None:
    import sys

    from automodel_launch.jobs import view
    from automodel_launch.jobs.sweeps import rows

    shown = _shown(wanted)
    if output_format == "json":
        sys.stdout.write(view.jobs_json(shown.jobs))  # every point of a sweep is a job
        return
    if not shown.jobs:
        typer.echo("no jobs recorded" + (" that match" if shown.recorded else ""))
        return
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=400)  # a pipe or file gets whole rows, not 80 columns
    table = rows(shown.jobs)
    console.print(view.jobs_table(table))
    left = shown.rows - len(table)
    if left > 0:
        typer.echo(
            f"({left} older row{'s' if left > 1 else ''} not shown: --limit 0 shows every one)"
        )


def _watch(wanted: Wanted, every: float) -> None:
    """Refresh the table every ``every`` seconds until Ctrl-C, which ends it with exit 0."""
    import time

    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    from automodel_launch.jobs import view
    from automodel_launch.jobs.sweeps import rows

    def table() -> Any:
        shown = _shown(wanted)
        if not shown.jobs:
            return Text("no jobs recorded" + (" that match" if shown.recorded else ""))
        return view.jobs_table(rows(shown.jobs))

    console = Console()
    if not console.is_terminal:
        console = Console(width=400)  # as the table without --watch
    try:
        with Live(table(), console=console, auto_refresh=False) as live:
            while True:
                time.sleep(every)
                live.update(table(), refresh=True)
    except KeyboardInterrupt:
        return


def _reindex(directory: Path) -> None:
    """Only a registry SQLite itself calls corrupt is set aside; a damaged record is
    dropped, and a manifest that cannot be read is skipped with a warning naming it."""
    from automodel_launch.jobs.registry import (
        CorruptRegistry,
        open_registry,
        registry_path,
        set_aside,
    )
    from automodel_launch.secrets import display

    if not directory.is_dir():
        raise typer.BadParameter(f"{directory} is not a directory", param_hint="--reindex")
    try:
        with open_registry() as registry:
            count, problems = registry.reindex(directory)
    except CorruptRegistry:
        aside = set_aside(registry_path())
        typer.echo(f"warning: the registry was corrupt; moved it to {display(str(aside))}",
                   err=True)  # fmt: skip
        with open_registry() as registry:
            count, problems = registry.reindex(directory)
    for problem in problems:
        typer.echo(f"warning: skipped {display(problem)}", err=True)
    root = display(str(directory.expanduser().absolute()))
    typer.echo(f"recorded {count} job(s) from {root}")
