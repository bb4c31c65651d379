"""``automodel-launch cancel JOB``: scancel, SkyPilot's cancel, or the local run's process
group; then the job's state."""

from __future__ import annotations

from typing import Annotated

import typer


def command(
    job: Annotated[str, typer.Argument(help="Job id, scheduler id, job directory or job name.")],
) -> None:
    """Cancel the job and show its state."""
    from automodel_launch.cli.status import load_job
    from automodel_launch.jobs.status import backend

    manifest = load_job(job)
    status = backend(manifest.launcher).cancel(manifest)
    if status.state == "CANCELLED":
        typer.echo(f"cancelled job {manifest.id} ({manifest.launcher} {manifest.scheduler_id})")
    elif status.finished:
        typer.echo(f"job {manifest.id} had already ended: {status.state}")
    else:
        typer.echo(f"asked to cancel job {manifest.id}; it is {status.state} for now")
    typer.echo(f"state: {status.state}")
