"""``automodel-launch jobs``: every recorded job, newest first, with its state now; a sweep
is one row (its points counted by state), ``--watch`` a live table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from automodel_launch.cli.jobs_list import DEFAULT_ROWS

if TYPE_CHECKING:
    from automodel_launch.jobs.listing import Listing


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
    from automodel_launch.cli import jobs_list

    wrong = jobs_list.problem(launcher, state, since, output_format)
    if wrong is not None:
        raise typer.BadParameter(wrong[1], param_hint=wrong[0])
    if reindex is not None:
        _reindex(reindex)
        return
    text = output_format == "text"
    if watch:
        if not text:
            raise typer.BadParameter("--watch shows a table: use text", param_hint="--format")
        _watch(lambda: jobs_list.listing(launcher, state, since, limit, text), interval)
        return
    jobs_list.show(jobs_list.listing(launcher, state, since, limit, text), output_format)


def _watch(listed: Callable[[], Listing], every: float) -> None:
    """Refresh the table every ``every`` seconds until Ctrl-C, which ends it with exit 0."""
    import time

    from rich.live import Live
    from rich.text import Text

    from automodel_launch.cli.jobs_list import console, empty, warn
    from automodel_launch.jobs import view

    def table() -> Any:
        found = listed()
        warn(found)
        if not found.jobs:
            return Text(empty(found))
        return view.jobs_table(found.table)

    try:
        with Live(table(), console=console(), auto_refresh=False) as live:
            while True:
                time.sleep(every)
                live.update(table(), refresh=True)
    except KeyboardInterrupt:
        return


def _reindex(directory: Path) -> None:
    """Only a registry SQLite itself calls corrupt, or whose jobs table is not this
    version's, is set aside; a damaged record is dropped, and a manifest that cannot be
    read is skipped with a warning naming it."""
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
    except CorruptRegistry as exc:
        aside = set_aside(registry_path())
        typer.echo(f"warning: the registry was {exc.said}; moved it to {display(str(aside))}",
                   err=True)  # fmt: skip
        with open_registry() as registry:
            count, problems = registry.reindex(directory)
    for problem in problems:
        typer.echo(f"warning: skipped {display(problem)}", err=True)
    root = display(str(directory.expanduser().absolute()))
    typer.echo(f"recorded {count} job(s) from {root}")
