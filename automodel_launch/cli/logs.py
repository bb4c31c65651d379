"""``automodel-launch logs JOB``: the job's output; ``--follow`` until it ends, then exit
with the job's exit code."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def command(
    job: Annotated[str, typer.Argument(help="Job id, scheduler id, job directory or job name.")],
    follow: Annotated[
        bool,
        typer.Option("--follow", "-f", help="Stream until the job ends; exit with its exit code."),
    ] = False,
    rank: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--rank", min=0, help="Only the lines of this rank."),
    ] = None,
) -> None:
    """Print the job's output."""
    from automodel_launch.cli.status import load_job
    from automodel_launch.jobs.status import backend

    manifest = load_job(job)
    code = backend(manifest.launcher).logs(manifest, follow=follow, rank=rank)
    raise typer.Exit(code)  # the job's own exit code (README: logs --follow)
