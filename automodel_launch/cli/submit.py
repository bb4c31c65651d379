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
    from automodel_launch.plan.plan import JobPlan
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
    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import layers, load_settings, report_problems
    from automodel_launch.errors import UsageError
    from automodel_launch.jobdir import JobDirError
    from automodel_launch.launchers import launcher_of
    from automodel_launch.plan.after import dependency
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.plan.render import SweepScriptError, render_plan
    from automodel_launch.plan.submit import refuse_unsupported
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.remote.session import connected
    from automodel_launch.remote.target import aim, placed
    from automodel_launch.render.entry import EntryError

    settings = load_settings(check_paths=check_paths, check_env=True)
    choice = EntryChoice(entry, recipe_command, domain)
    plan = plan_jobs(
        config, settings, entry=choice, axes=sweep_axes(sweeps), max_parallel=max_parallel,
        layers=layers(profile, sets), submitting=True,
    )  # fmt: skip
    document = plan.document
    session = aim(plan, remote, job_dir) if document is not None else None
    with connected(session):
        if not no_preflight:
            ask_the_cluster(plan)
        report_problems(plan.report, settings)
        assert document is not None
        refuse_unsupported(plan, launcher_of(document).name, detach=detach, after=bool(after))
        code = _code(no_snapshot, snapshot_untracked, require_clean)
        try:
            render_plan(
                plan, entry=choice, job_dir=job_dir,
                nproc_per_node=nproc_per_node or local_gpu_count(), submitting=True,
                after=dependency(after or (), plan.remote.name if plan.remote else None), code=code,
            )  # fmt: skip
        except (JobDirError, EntryError, SweepScriptError) as exc:
            raise UsageError(str(exc), hint=exc.hint) from None
        placed(plan, session)
        hand_over(plan, dry_run=dry_run, detach=detach)


def ask_the_cluster(plan: JobPlan) -> None:
    """Preflight: the Slurm cluster's word on the plan, added to every point's report."""
    document = plan.document
    if document is None or document.slurm is None:
        return
    from automodel_launch.cli.preflight import preflight_report
    from automodel_launch.diagnostics import sort_key

    first = plan.jobs[0].report
    known = set(first.diagnostics)
    tasks = len(plan.jobs) if plan.is_sweep else 0
    preflight_report(first, tasks=tasks, max_parallel=plan.max_parallel)
    found = [d for d in first.diagnostics if d not in known]
    for job in plan.jobs[1:]:  # the cluster's word on one point is on every one
        job.report.diagnostics = sorted(job.report.diagnostics + found, key=sort_key)


def hand_over(plan: JobPlan, *, dry_run: bool, detach: bool) -> None:
    """Write, submit and record a rendered plan, and say what became of it."""
    from automodel_launch.plan.submit import raise_failed, submit_plan
    from automodel_launch.secrets import display

    done = submit_plan(
        plan, dry_run=dry_run, detach=detach, say=lambda line: typer.echo(line, err=True),
        progress=_progress, summary=_summary,
    )  # fmt: skip
    for line in done.summaries:
        typer.echo(line)
    raise_failed(done)
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


def _summary(plan: JobPlan) -> list[str]:
    from automodel_launch.snapshot.summary import code_lines
    from automodel_launch.submit.summary import summary_lines

    job = plan.jobs[0].prepared
    assert job.document is not None and plan.root is not None
    lines = summary_lines(job.document, plan.root, job.nproc_per_node)
    lines += code_lines(job.document, plan.snapshot)
    if plan.rerun_of is not None:
        lines.append(f"  {'rerun of':<13}  job {plan.rerun_of.id} ({plan.rerun_of.name})")
    checkpoints = _checkpoints(plan)
    if checkpoints is not None:
        lines.append(f"  {'checkpoints':<13}  {checkpoints}")
    if plan.is_sweep:
        limit = f", at most {plan.max_parallel} at once" if plan.max_parallel else ""
        lines.append(
            f"  sweep          {len(plan.jobs)} points over {', '.join(plan.swept)}{limit}"
        )
    return lines


def _checkpoints(plan: JobPlan) -> str | None:
    """Where a sweep's points or a rerun write their checkpoints, and what a rerun resumes
    from (its directory looked into here, unless it is on a named cluster)."""
    from automodel_launch.plan.checkpoints import Latest, latest

    if plan.checkpoints is not None:
        return plan.checkpoints.line
    rerun = plan.rerun_checkpoints
    if rerun is None:
        return None
    if rerun.own:
        found = Latest()
    elif plan.remote is not None:
        found = Latest(note=f"not looked into: on cluster {plan.remote.name}")
    else:
        found = latest(rerun.directory)
    return rerun.line(found)


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
