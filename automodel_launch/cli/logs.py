"""``automodel-launch logs JOB``: the job's output; ``--follow`` until it ends, then exit
with the job's exit code. A sweep: one point's, ``--point I``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer


def command(
    job: Annotated[
        str, typer.Argument(help="Job or sweep: id, scheduler id, job directory or name.")
    ],
    follow: Annotated[
        bool,
        typer.Option("--follow", "-f", help="Stream until the job ends; exit with its exit code."),
    ] = False,
    rank: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--rank", min=0, help="Only the lines of this rank."),
    ] = None,
    point: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--point", min=0, help="Of a sweep: this point's output."),
    ] = None,
) -> None:
    """Print the job's output (of a sweep: one point's, --point I)."""
    from automodel_launch import api
    from automodel_launch.launchers.dispatch import backend

    manifest = api.job(job, point=point)
    code = backend(manifest.launcher).logs(manifest, follow=follow, rank=rank)
    raise typer.Exit(code)  # the job's own exit code (docs/jobs.md: logs --follow)
