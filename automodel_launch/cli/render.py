"""``automodel-launch render CONFIG [--job-dir DIR]``: show or write what will run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

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

if TYPE_CHECKING:
    from automodel_launch.plan.plan import JobPlan

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
    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import layers, load_settings, report_problems, sweep_axes
    from automodel_launch.errors import LaunchError, UsageError
    from automodel_launch.jobdir import JobDirError
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.plan.render import SweepScriptError, render_plan
    from automodel_launch.prepare import EntryChoice

    settings = load_settings(check_paths=check_paths)
    choice = EntryChoice(entry, recipe_command, domain)
    plan = plan_jobs(
        config, settings, entry=choice, axes=sweep_axes(sweeps), max_parallel=max_parallel,
        layers=layers(profile, sets),
    )  # fmt: skip
    report_problems(plan.report, settings)
    if remote and job_dir is None:
        raise UsageError(
            f"--remote {remote}: give --job-dir too",
            hint="the job directory is written here; its script names its place on the cluster",
        )
    if job_dir is not None:
        from automodel_launch.remote.target import aim

        aim(plan, remote, job_dir)  # no connection: the script names the cluster's paths
    try:
        render_plan(
            plan, entry=choice, job_dir=job_dir, nproc_per_node=nproc_per_node or local_gpu_count()
        )
    except (JobDirError, SweepScriptError) as exc:  # --job-dir or a sweep cannot be used
        raise UsageError(str(exc), hint=exc.hint) from None
    if plan.is_sweep:
        typer.echo(_plan_text(plan), err=True)
    if job_dir is None:
        sys.stdout.write(plan.artifact)
        return
    from automodel_launch.jobdir import write_job_dir

    assert plan.root is not None
    try:
        write_job_dir(plan.root, plan.files)  # a JobDirError: exit 1
    except OSError as exc:
        raise LaunchError(str(exc)) from None
    typer.echo(f"wrote {plan.root}/: " + ", ".join(sorted(plan.files)), err=True)


def _plan_text(plan: JobPlan) -> str:
    """The points and their values, above the script."""
    limit = f", at most {plan.max_parallel} at once" if plan.max_parallel else ""
    lines = [f"sweep: {len(plan.jobs)} points over {', '.join(plan.swept)}{limit}"]
    checkpoints = plan.checkpoints.line if plan.checkpoints is not None else None
    if checkpoints is not None:
        lines.append(f"  checkpoints: {checkpoints}")
    lines += [f"  point {job.point.index}: {job.point.label}" for job in plan.jobs]
    return "\n".join(lines)
