"""``automodel-launch rerun JOB``: submit what job JOB ran again, as a new job.

The same config (JOB's ``launch.yaml``: its recipe and launcher sections with the profile
and ``--set`` values it ran with) and the same code (JOB's snapshot), with ``--set``
values on top; checked and submitted as ``submit`` does
(:func:`automodel_launch.commands.submit.rerun`). Its summary says where it writes its
checkpoints and what it resumes from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from automodel_launch.cli.common import SetOption, script_value

if TYPE_CHECKING:
    from automodel_launch.commands.submit import Mode
    from automodel_launch.jobs.manifest import Manifest


def command(
    job: Annotated[str, typer.Argument(help="Job: id, scheduler id, job directory or name.")],
    point: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--point", min=0, help="Of a sweep: run this point again."),
    ] = None,
    sets: SetOption = None,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="Train from step 0 in a checkpoint directory of its own (the default when "
            "--set changes a recipe value).",
        ),
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Resume from JOB's latest checkpoint (the default when no recipe value changes).",
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Check with the scheduler without starting anything."),
    ] = False,
    job_dir: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--job-dir", callback=script_value, help="Job directory (default: a new one)."
        ),
    ] = None,
    detach: Annotated[
        bool, typer.Option("--detach", help="Local runs: start in the background.")
    ] = False,
    no_preflight: Annotated[
        bool,
        typer.Option("--no-preflight", help="Do not ask the Slurm cluster first."),
    ] = False,
    remote: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--remote",
            metavar="NAME",
            help="Submit to this named cluster over SSH (default: JOB's cluster, if any).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Submit the config and code job JOB ran again, as a new job (--set on top)."""
    from automodel_launch.cli.common import layers, load_settings
    from automodel_launch.cli.submit import hooks, said
    from automodel_launch.commands import submit as run
    from automodel_launch.errors import UsageError

    if fresh and resume:
        raise UsageError("--fresh and --resume: choose one")
    first = _first(job, point)
    settings = load_settings(check_paths=None, check_env=True)
    given = layers(None, sets)
    mode: Mode = "fresh" if fresh else "resume" if resume else "auto"
    overrides = given.overrides if given is not None else ()
    order = run.Order(preflight=not no_preflight, remote=remote, dry_run=dry_run, detach=detach)
    done = run.rerun(first, settings, overrides, mode, job_dir, order, hooks(settings))
    said(done, dry_run=dry_run)
    if done.forecast is not None:
        from automodel_launch.secrets import display

        typer.echo(f"forecast: {display(done.forecast)}")


def _first(job: str, point: int | None) -> Manifest:
    """The job run again; ``--point`` of anything but a sweep is a usage error."""
    from automodel_launch import api
    from automodel_launch.errors import UsageError
    from automodel_launch.jobs.sweeps import Sweep

    found = api.find(job)
    if isinstance(found, Sweep):
        return api.job(job, point=point)
    if point is not None:
        what = f"job {found.id}"
        hint = f"automodel-launch rerun {found.id}, without --point"
        if found.sweep is not None:
            what += f", point {found.point} of sweep {found.sweep}"
            hint = f"automodel-launch rerun {found.sweep} --point {point}"
        raise UsageError(f"--point {point}: '{job}' is {what}, not a sweep", hint=hint)
    return found
