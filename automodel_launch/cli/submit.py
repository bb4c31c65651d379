"""``automodel-launch submit CONFIG``: validate, write the job directory, hand it over."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.cli.common import script_value
from automodel_launch.cli.render import EntryOption


def command(
    config: Annotated[Path, typer.Argument(help="Recipe YAML.")],
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Check with the scheduler (sbatch --test-only, SkyPilot's "
            "parser) without starting anything.",
        ),
    ] = False,
    job_dir: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--job-dir",
            callback=script_value,
            help="Job directory (default: a new one under job_dir).",
        ),
    ] = None,
    entry: EntryOption = None,
    recipe_command: Annotated[str, typer.Option("--command", callback=script_value)] = "finetune",
    domain: Annotated[str, typer.Option("--domain", callback=script_value)] = "llm",
    nproc_per_node: Annotated[Optional[int], typer.Option("--nproc-per-node", min=1)] = None,  # noqa: UP045
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    no_preflight: Annotated[
        bool,
        typer.Option(
            "--no-preflight",
            help="Do not ask the Slurm cluster about partitions, limits, GPUs and pyxis first.",
        ),
    ] = False,
) -> None:
    """Submit CONFIG to its launcher: sbatch, SkyPilot, or torchrun on this node."""
    import os

    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import load_settings, report_problems
    from automodel_launch.jobdir import JobDirError, remove_job_dir, write_job_dir
    from automodel_launch.launchers import Handover, launcher_of
    from automodel_launch.prepare import EntryChoice, prepare
    from automodel_launch.render.entry import EntryError
    from automodel_launch.secrets import display
    from automodel_launch.submit import SubmitError

    settings = load_settings(check_paths=check_paths, check_env=True)
    try:
        prepared = prepare(
            config,
            settings,
            entry=EntryChoice(entry, recipe_command, domain),
            job_dir=job_dir,
            nproc_per_node=nproc_per_node or local_gpu_count(),
            submitting=True,
        )
    except (JobDirError, EntryError) as exc:
        typer.echo(f"error: {display(str(exc))}", err=True)
        raise typer.Exit(2) from None
    if not no_preflight and prepared.document is not None and prepared.document.slurm is not None:
        from automodel_launch.cli.preflight import preflight_report

        preflight_report(prepared.report)
    report_problems(prepared.report, settings)
    assert prepared.document is not None and prepared.job_dir is not None
    try:
        written = write_job_dir(prepared.job_dir, prepared.files)
    except (JobDirError, OSError) as exc:
        typer.echo(f"error: {display(str(exc))}", err=True)
        raise typer.Exit(1) from None
    try:
        submitted = launcher_of(prepared.document).submit(
            Handover(prepared.document, prepared.job_dir, prepared.files, dict(os.environ), dry_run)
        )
    except (SubmitError, OSError) as exc:
        if not (isinstance(exc, SubmitError) and exc.started):
            remove_job_dir(written)  # refused before anything ran in it
        typer.echo(f"error: {display(str(exc))}", err=True)
        raise typer.Exit(1) from None
    if dry_run:
        remove_job_dir(written)
    typer.echo(submitted.summary)
