"""``automodel-launch status JOB``: state, reason, nodes, elapsed, exit code, log path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest

WATCH_SECONDS = 2.0


def command(
    job: Annotated[str, typer.Argument(help="Job id, scheduler id, job directory or job name.")],
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep showing the status until the job ends.")
    ] = False,
    output_format: Annotated[
        str,
        typer.Option("--format", help="text or json (one JOB object; with --watch, one a line)."),
    ] = "text",
) -> None:
    """Show one job's status; pending reasons are explained, with the field to fix."""
    import json
    import sys
    import time

    from automodel_launch.jobs import view
    from automodel_launch.jobs.status import statuses

    if output_format not in ("text", "json"):
        raise typer.BadParameter("use text or json", param_hint="--format")
    manifest = load_job(job)
    status = statuses([manifest])[0]
    if not watch:
        if output_format == "json":
            sys.stdout.write(view.status_json(status))
        else:
            typer.echo("\n".join(view.status_lines(status)))
        return
    if output_format == "json":
        last = None
        while True:
            line = json.dumps(status.to_json())
            if (status.state, status.reason) != last:
                typer.echo(line)
                last = (status.state, status.reason)
            if status.finished:
                return
            time.sleep(WATCH_SECONDS)
            status = statuses([manifest])[0]
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console()
    with Live(Text("\n".join(view.status_lines(status))), console=console) as live:
        while not status.finished:
            time.sleep(WATCH_SECONDS)
            status = statuses([manifest])[0]
            live.update(Text("\n".join(view.status_lines(status))))


def load_job(text: str) -> Manifest:
    """The job JOB names; a JobError, ManifestError or RegistryError (exit 1) when none or
    several, its manifest cannot be read, or the registry fails."""
    from automodel_launch.jobs.lookup import find_job

    return find_job(text)
