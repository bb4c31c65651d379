"""``automodel-launch cancel JOB``: scancel, SkyPilot's cancel, or the local run's process
group; then the job's state. A sweep: every point not finished (one scancel on Slurm)."""

from __future__ import annotations

from typing import Annotated

import typer


def command(
    job: Annotated[
        str, typer.Argument(help="Job or sweep: id, scheduler id, job directory or name.")
    ],
) -> None:
    """Cancel the job (or every point of a sweep) and show its state."""
    from automodel_launch import api
    from automodel_launch.jobs.sweeps import SweepStatus

    done = api.cancel(job)
    if isinstance(done, SweepStatus):
        typer.echo(f"cancelled sweep {done.id} ({done.first.launcher} {done.array_id or '-'})")
        typer.echo(f"state: {done.summary}")
        return
    manifest = done.manifest
    if done.state == "CANCELLED":
        started = manifest.scheduler_id or "not started"
        typer.echo(f"cancelled job {manifest.id} ({manifest.launcher} {started})")
    elif done.finished:
        typer.echo(f"job {manifest.id} had already ended: {done.state}")
    else:
        typer.echo(f"asked to cancel job {manifest.id}; it is {done.state} for now")
    if done.note:
        typer.echo(f"note: {done.note}")
    typer.echo(f"state: {done.state}")
