"""``automodel-launch submit CONFIG``: validate, write the job directory, hand it over."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from automodel_launch.cli.common import (
    MaxParallelOption,
    ProfileOption,
    RemoteOption,
    SetOption,
    SweepOption,
    script_value,
    sweep_axes,
)
from automodel_launch.cli.render import CommandOption, DomainOption, EntryOption, NprocOption
from automodel_launch.layout import LOCAL_LOG

if TYPE_CHECKING:
    from automodel_launch.commands.submit import Hooks, Submission
    from automodel_launch.settings import Settings
    from automodel_launch.snapshot import CodeOptions


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
    recipe_command: CommandOption = "finetune",
    domain: DomainOption = "llm",
    nproc_per_node: NprocOption = None,
    check_paths: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option("--check-paths/--no-check-paths", help="Check mount sources on this host."),
    ] = None,
    detach: Annotated[
        bool,
        typer.Option(
            "--detach",
            help=f"Local runs: start in the background, output in the job directory's {LOCAL_LOG} "
            "(Slurm and SkyPilot jobs always run detached).",
        ),
    ] = False,
    no_preflight: Annotated[
        bool,
        typer.Option(
            "--no-preflight",
            help="Do not ask the Slurm cluster about partitions, limits, GPUs and pyxis first.",
        ),
    ] = False,
    sets: SetOption = None,
    profile: ProfileOption = None,
    sweeps: SweepOption = None,
    max_parallel: MaxParallelOption = None,
    no_snapshot: Annotated[
        bool,
        typer.Option(
            "--no-snapshot",
            help="Slurm: run repo_root's live tree, not a snapshot of it taken now.",
        ),
    ] = False,
    snapshot_untracked: Annotated[
        bool,
        typer.Option(
            "--snapshot-untracked",
            help="Copy repo_root's untracked files (not ignored) into the snapshot too.",
        ),
    ] = False,
    require_clean: Annotated[
        bool,
        typer.Option(
            "--require-clean", help="Refuse to submit when repo_root has uncommitted changes."
        ),
    ] = False,
    after: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--after",
            metavar="JOB[:any]",
            help="Slurm: start only after JOB (an id, name or sweep) ended well; JOB:any: "
            "however it ended. Repeat for several.",
            show_default=False,
        ),
    ] = None,
    remote: RemoteOption = None,
) -> None:
    """Submit CONFIG to its launcher: sbatch, SkyPilot, or torchrun on this node."""
    from automodel_launch.cli.common import layers, load_settings
    from automodel_launch.commands import submit as run
    from automodel_launch.commands.plan import Request
    from automodel_launch.prepare import EntryChoice

    settings = load_settings(check_paths=check_paths, check_env=True)
    axes, given = tuple(sweep_axes(sweeps)), layers(profile, sets)
    code = _code(no_snapshot, snapshot_untracked, require_clean)  # before the file is read
    request = Request(
        config, axes, given, max_parallel, EntryChoice(entry, recipe_command, domain), job_dir,
        tuple(after or ()), settings, code, nproc_per_node,
    )  # fmt: skip
    order = run.Order(preflight=not no_preflight, remote=remote, dry_run=dry_run, detach=detach)
    said(run.submit(request, order, hooks(settings)), dry_run=dry_run)


def hooks(settings: Settings) -> Hooks:
    """What ``submit`` and ``rerun`` show while they work: the plan's diagnostics (stopping
    on a failed one), notes and the summary on stderr, a spinner, each launcher's line."""
    from automodel_launch.cli.common import report_problems
    from automodel_launch.commands.submit import Hooks

    def summaries(done: Submission) -> None:
        for line in done.summaries:
            typer.echo(line)

    return Hooks(
        problems=lambda plan: report_problems(plan.report, settings),
        say=lambda line: typer.echo(line, err=True), progress=_progress, handed=summaries,
    )  # fmt: skip


def said(done: Submission, *, dry_run: bool) -> None:
    """What became of a submit: where it is recorded, or why it could not be."""
    from automodel_launch.secrets import display

    if dry_run:
        return
    if done.warnings:
        typer.echo(f"warning: {display(done.warnings[0])}", err=True)
    elif done.sweep is not None:
        typer.echo(f"recorded {len(done.manifests)} points as sweep {done.sweep}: "
                   f"automodel-launch status {done.sweep}")  # fmt: skip
    else:
        job_id = done.manifests[0].id
        typer.echo(f"recorded as job {job_id}: automodel-launch status {job_id}")


def _code(no_snapshot: bool, untracked: bool, require_clean: bool) -> CodeOptions | None:
    from automodel_launch.errors import UsageError
    from automodel_launch.snapshot import CodeOptions

    if no_snapshot and (untracked or require_clean):
        given = "--snapshot-untracked" if untracked else "--require-clean"
        raise UsageError(f"--no-snapshot with {given}: choose one (no snapshot is taken)")
    return None if no_snapshot else CodeOptions(untracked=untracked, require_clean=require_clean)


def _progress(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr while the scheduler or SkyPilot answers (not over a local run)."""
    import contextlib

    if not text:
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(text + "...")
