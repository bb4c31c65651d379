"""``automodel-launch render CONFIG [--job-dir DIR]``: show or write what will run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from automodel_launch.cli.common import (
    MaxParallelOption,
    ProfileOption,
    RemoteOption,
    SetOption,
    SweepOption,
    entry_value,
    script_value,
)

EntryOption = Annotated[
    Optional[str],  # noqa: UP045 (typer reads the annotation at run time)
    typer.Option(
        "--entry",
        callback=entry_value,
        help="What each rank runs instead of AutoModel's entry point: '-m MODULE ARGS' or "
        "'SCRIPT ARGS'; {config} stands for the job config path.",
    ),
]
CommandOption = Annotated[
    str,
    typer.Option(
        "--command",
        callback=script_value,
        help="AutoModel 0.1.0 to 0.3.0: the command of their entry point "
        "(-m nemo_automodel._cli.app COMMAND DOMAIN -c CONFIG). Also names the job "
        "DOMAIN_COMMAND when the launcher section has no job_name.",
    ),
]
DomainOption = Annotated[
    str,
    typer.Option(
        "--domain",
        callback=script_value,
        help="AutoModel 0.1.0 to 0.3.0: the domain of their entry point (llm, vlm), as for "
        "--command. Also names the job DOMAIN_COMMAND when the launcher section has no job_name.",
    ),
]
NprocOption = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--nproc-per-node",
        min=1,
        help="Interactive: processes on this node (default: the GPUs visible here, else 1).",
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
    recipe_command: CommandOption = "finetune",
    domain: DomainOption = "llm",
    nproc_per_node: NprocOption = None,
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    sets: SetOption = None,
    profile: ProfileOption = None,
    sweeps: SweepOption = None,
    max_parallel: MaxParallelOption = None,
    remote: RemoteOption = None,
) -> None:
    """Print the SBATCH script, SkyPilot task or torchrun command for CONFIG."""
    from automodel_launch.cli.common import layers, load_settings, report_problems, sweep_axes
    from automodel_launch.commands.plan import Request
    from automodel_launch.commands.render import render
    from automodel_launch.prepare import EntryChoice

    settings = load_settings(check_paths=check_paths)
    request = Request(
        config, tuple(sweep_axes(sweeps)), layers(profile, sets), max_parallel,
        EntryChoice(entry, recipe_command, domain), job_dir, (), settings, None, nproc_per_node,
    )  # fmt: skip
    shown = render(
        request, remote=remote, problems=lambda plan: report_problems(plan.report, settings),
        points=lambda text: typer.echo(text, err=True),
    )  # fmt: skip
    if shown.job_dir is None:
        sys.stdout.write(shown.artifact)
        return
    typer.echo(f"wrote {shown.job_dir}/: " + ", ".join(shown.files), err=True)
