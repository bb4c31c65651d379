"""``automodel-launch jobs``: every recorded job, newest first, with its state now."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.launcher_names import INTERACTIVE, LAUNCHED_HERE

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
    _list(LAUNCHER_NAMES.get(launcher or ""), state.upper() if state else None, after,
          output_format)  # fmt: skip


def _list(launcher: str | None, state: str | None, after: float | None, output_format: str) -> None:
    import sys

    from automodel_launch.jobs import view
    from automodel_launch.jobs.registry import open_registry
    from automodel_launch.jobs.status import statuses
    from automodel_launch.secrets import display

    with open_registry() as registry:
        manifests = registry.jobs(launcher, after)
        problems = registry.problems
    for problem in problems:  # a damaged record: the other jobs are still listed
        typer.echo(f"warning: {display(problem)}", err=True)
    shown = [s for s in statuses(manifests) if state is None or s.state == state]
    if output_format == "json":
        sys.stdout.write(view.jobs_json(shown))
        return
    if not shown:
        typer.echo("no jobs recorded" + (" that match" if manifests else ""))
        return
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=400)  # a pipe or file gets whole rows, not 80 columns
    console.print(view.jobs_table(shown))


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
