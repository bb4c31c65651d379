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
    from automodel_launch.cli.status import load_job
    from automodel_launch.jobs.driven import cancel_queued, driven
    from automodel_launch.jobs.status import backend, cancel_all
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus

    target = load_job(job)
    if isinstance(target, Sweep):
        shown = SweepStatus(target.id, tuple(cancel_all(list(target.points))))
        typer.echo(f"cancelled sweep {target.id} ({target.launcher} {shown.array_id or '-'})")
        typer.echo(f"state: {shown.summary}")
        return
    manifest = target
    if driven(manifest):  # a sweep's point its driver has not started: it never will
        status = cancel_queued(manifest)
    else:
        status = backend(manifest.launcher).cancel(manifest)
    if status.state == "CANCELLED":
        started = manifest.scheduler_id or "not started"
        typer.echo(f"cancelled job {manifest.id} ({manifest.launcher} {started})")
    elif status.finished:
        typer.echo(f"job {manifest.id} had already ended: {status.state}")
    else:
        typer.echo(f"asked to cancel job {manifest.id}; it is {status.state} for now")
    typer.echo(f"state: {status.state}")
