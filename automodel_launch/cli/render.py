"""``automodel-launch render CONFIG [--job-dir DIR]``: show or write what will run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.cli.common import ProfileOption, SetOption, entry_value, script_value

EntryOption = Annotated[
    Optional[str],  # noqa: UP045 (typer reads the annotation at run time)
    typer.Option(
        "--entry",
        callback=entry_value,
        help="What each rank runs instead of AutoModel's entry point: '-m MODULE ARGS' or "
        "'SCRIPT ARGS'; {config} stands for the job config path.",
    ),
]


def command(
    config: Annotated[Path, typer.Argument(help="Recipe YAML.")],
    job_dir: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--job-dir", callback=script_value, help="Write the complete job directory here."
        ),
    ] = None,
    entry: EntryOption = None,
    recipe_command: Annotated[
        str,
        typer.Option("--command", callback=script_value, help="AutoModel command (2025 CLI form)."),
    ] = "finetune",
    domain: Annotated[
        str,
        typer.Option("--domain", callback=script_value, help="AutoModel domain (2025 CLI form)."),
    ] = "llm",
    nproc_per_node: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--nproc-per-node",
            min=1,
            help="Interactive: processes on this node (default: the GPUs visible here, else 1).",
        ),
    ] = None,
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    sets: SetOption = None,
    profile: ProfileOption = None,
) -> None:
    """Print the SBATCH script, SkyPilot task or torchrun command for CONFIG."""
    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import layers, load_settings, report_problems
    from automodel_launch.errors import LaunchError, UsageError
    from automodel_launch.jobdir import JobDirError
    from automodel_launch.prepare import EntryChoice, prepare

    settings = load_settings(check_paths=check_paths)
    choice = EntryChoice(entry, recipe_command, domain)
    try:
        prepared = prepare(
            config,
            settings,
            entry=choice,
            job_dir=job_dir,
            nproc_per_node=nproc_per_node or local_gpu_count(),
            layers=layers(profile, sets),
        )
    except JobDirError as exc:  # --job-dir, as given, cannot be used: a usage error
        raise UsageError(str(exc), hint=exc.hint) from None
    report_problems(prepared.report, settings)
    if job_dir is None:
        sys.stdout.write(prepared.artifact)
        return
    from automodel_launch.jobdir import write_job_dir

    assert prepared.job_dir is not None
    try:
        write_job_dir(prepared.job_dir, prepared.files)  # a JobDirError: exit 1
    except OSError as exc:
        raise LaunchError(str(exc)) from None
    typer.echo(f"wrote {prepared.job_dir}/: " + ", ".join(sorted(prepared.files)), err=True)
