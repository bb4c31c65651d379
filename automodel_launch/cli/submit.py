"""``automodel-launch submit CONFIG``: validate, write the job directory, hand it over."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from automodel_launch.cli.render import EntryOption
from automodel_launch.submit import Submitted

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument


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
        typer.Option("--job-dir", help="Job directory (default: a new one under job_dir)."),
    ] = None,
    entry: EntryOption = None,
    recipe_command: Annotated[str, typer.Option("--command")] = "finetune",
    domain: Annotated[str, typer.Option("--domain")] = "llm",
    nproc_per_node: Annotated[Optional[int], typer.Option("--nproc-per-node", min=1)] = None,  # noqa: UP045
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
) -> None:
    """Submit CONFIG to its launcher: sbatch, SkyPilot, or torchrun on this node."""
    import os

    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import load_settings, report_problems
    from automodel_launch.jobdir import JobDirError, remove_job_dir, write_job_dir
    from automodel_launch.prepare import EntryChoice, prepare
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
    except (JobDirError, ValueError) as exc:
        typer.echo(f"error: {display(str(exc))}", err=True)
        raise typer.Exit(2) from None
    report_problems(prepared.report, settings)
    assert prepared.document is not None and prepared.job_dir is not None
    try:
        write_job_dir(prepared.job_dir, prepared.files)
    except (JobDirError, OSError) as exc:
        typer.echo(f"error: {display(str(exc))}", err=True)
        raise typer.Exit(1) from None
    try:
        submitted = _hand_over(
            prepared.document, prepared.job_dir, prepared.files, dict(os.environ), dry_run
        )
    except (SubmitError, OSError) as exc:
        remove_job_dir(prepared.job_dir)
        typer.echo(f"error: {display(str(exc))}", err=True)
        raise typer.Exit(1) from None
    if dry_run:
        remove_job_dir(prepared.job_dir)
    typer.echo(submitted.summary)


def _hand_over(
    document: LaunchDocument,
    job_dir: Path,
    files: dict[str, str],
    environ: dict[str, str],
    dry_run: bool,
) -> Submitted:
    launcher = document.launcher
    if launcher == "slurm":
        from automodel_launch.submit.slurm import submit_slurm

        return submit_slurm(job_dir, dry_run=dry_run)
    if launcher == "skypilot":
        from ruamel.yaml import YAML

        from automodel_launch.render.skypilot import secret_values
        from automodel_launch.submit.skypilot import submit_skypilot

        assert document.skypilot is not None
        task = YAML(typ="safe").load(files["task.yaml"])
        values = secret_values(document.skypilot, environ)
        return submit_skypilot(task, job_dir, values, dry_run=dry_run)
    from automodel_launch.submit.local import run_local

    if dry_run:
        return Submitted(f"would run: {files['run.sh'].splitlines()[-1]}")
    return run_local(job_dir)
