"""``automodel-launch submit CONFIG``: validate, write the job directory, hand it over."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from automodel_launch.cli.common import (
    MaxParallelOption,
    ProfileOption,
    SetOption,
    SweepOption,
    script_value,
    sweep_axes,
)
from automodel_launch.cli.render import EntryOption

if TYPE_CHECKING:
    from automodel_launch.jobdir import Written
    from automodel_launch.jobs.record import Recorder
    from automodel_launch.launchers import Launcher
    from automodel_launch.plan.plan import JobPlan, PlannedJob
    from automodel_launch.submit import Submitted


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
    detach: Annotated[
        bool,
        typer.Option(
            "--detach",
            help="Local runs: start in the background, output in the job directory's output.log "
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
) -> None:
    """Submit CONFIG to its launcher: sbatch, SkyPilot, or torchrun on this node."""

    from automodel_launch.checks import local_gpu_count
    from automodel_launch.cli.common import layers, load_settings, report_problems
    from automodel_launch.errors import UsageError
    from automodel_launch.jobdir import JobDirError, remove_job_dir, write_job_dir
    from automodel_launch.launchers import launcher_of
    from automodel_launch.plan.plan import ARRAY_LAUNCHERS, plan_jobs
    from automodel_launch.plan.render import SweepScriptError, render_plan
    from automodel_launch.prepare import EntryChoice, release
    from automodel_launch.render.entry import EntryError
    from automodel_launch.secrets import display

    settings = load_settings(check_paths=check_paths, check_env=True)
    choice = EntryChoice(entry, recipe_command, domain)
    plan = plan_jobs(
        config, settings, entry=choice, axes=sweep_axes(sweeps), max_parallel=max_parallel,
        layers=layers(profile, sets), submitting=True,
    )  # fmt: skip
    document = plan.document
    if not no_preflight and document is not None and document.slurm is not None:
        from automodel_launch.cli.preflight import preflight_report

        preflight_report(plan.jobs[0].report)
    report_problems(plan.report, settings)
    assert document is not None
    launcher = launcher_of(document)
    _refuse_unsupported(plan, launcher.name, detach=detach, after=bool(after))
    from automodel_launch.plan.after import dependency

    waits = dependency(after or ())
    try:
        render_plan(
            plan, entry=choice, job_dir=job_dir, nproc_per_node=nproc_per_node or local_gpu_count(),
            submitting=True, after=waits,
        )  # fmt: skip
    except (JobDirError, EntryError, SweepScriptError) as exc:
        raise UsageError(str(exc), hint=exc.hint) from None
    assert plan.root is not None
    recorders = _recorders(config, plan, launcher.name)
    files = dict(plan.files)
    for job, recorder in zip(plan.jobs, recorders, strict=True):
        name, content = recorder.file
        files[_inside(plan, job, name)] = content
    try:
        written = write_job_dir(plan.root, files, plan.claimed)
    except OSError as exc:
        release(plan.claimed)
        raise JobDirError(str(exc)) from None
    except BaseException:
        release(plan.claimed)
        raise
    if detach and launcher.detached:
        typer.echo(f"note: {launcher.name} jobs always run detached; --detach changes nothing",
                   err=True)  # fmt: skip
    heading = "checking:" if dry_run else "submitting:"
    typer.echo("\n".join([heading, *_summary(plan)]), err=True)
    if plan.is_sweep and launcher.name not in ARRAY_LAUNCHERS:
        _run_points(plan, recorders, launcher, dry_run=dry_run, written=written)
        return
    submitted = _hand_over(plan, launcher, recorders[0], written, dry_run=dry_run, detach=detach)
    if dry_run:
        remove_job_dir(written)
        typer.echo(submitted.summary)
        return
    _record_all(plan, recorders, submitted)
    typer.echo(submitted.summary)
    warnings = [r.warning for r in recorders if r.warning]
    if warnings:
        typer.echo(f"warning: {display(warnings[0])}", err=True)
    elif plan.is_sweep:
        sweep = _sweep_id(recorders)
        typer.echo(f"recorded {len(recorders)} points as sweep {sweep}: "
                   f"automodel-launch status {sweep}")  # fmt: skip
    else:
        job_id = recorders[0].manifest.id
        typer.echo(f"recorded as job {job_id}: automodel-launch status {job_id}")


def _refuse_unsupported(plan: JobPlan, launcher: str, *, detach: bool, after: bool) -> None:
    from automodel_launch.errors import UsageError
    from automodel_launch.plan.plan import ARRAY_LAUNCHERS

    if after and launcher != "slurm":
        raise UsageError(
            f"--after: {launcher} jobs cannot wait for another job; only Slurm's can",
            hint="submit this one when the other has ended",
        )
    if not plan.is_sweep:
        return
    if launcher == "skypilot":
        raise UsageError(
            "--sweep with skypilot: not supported yet; submit each value on its own "
            "(--set KEY=VALUE)"
        )
    if launcher not in ARRAY_LAUNCHERS and detach:
        raise UsageError(
            "--sweep --detach on this node: not supported yet; the points run one after "
            "another in the foreground without --detach"
        )


def _inside(plan: JobPlan, job: PlannedJob, name: str) -> str:
    """A file of ``job`` as a path inside the plan's job directory."""
    assert plan.root is not None
    relative = plan.job_dir(job).relative_to(plan.root)
    return name if relative == Path() else f"{relative.as_posix()}/{name}"


def _hand_over(
    plan: JobPlan,
    launcher: Launcher,
    recorder: Recorder,
    written: Written,
    *,
    dry_run: bool,
    detach: bool,
) -> Submitted:
    """One handover for the whole plan: a single job, or a Slurm array."""
    import os

    from automodel_launch.jobdir import remove_job_dir
    from automodel_launch.launchers import Handover
    from automodel_launch.secrets import display
    from automodel_launch.submit import SubmitError

    assert plan.document is not None and plan.root is not None
    handover = Handover(
        plan.document,
        plan.root,
        plan.files,
        dict(os.environ),
        dry_run=dry_run,
        detach=detach,
        started=None if dry_run or plan.is_sweep else recorder.record,
    )
    try:
        with _progress(launcher.progress):
            return launcher.submit(handover)
    except (SubmitError, OSError) as exc:
        if not (isinstance(exc, SubmitError) and exc.started):
            remove_job_dir(written)  # refused before anything ran in it
        if recorder.warning:
            typer.echo(f"warning: {display(recorder.warning)}", err=True)
        if isinstance(exc, SubmitError):
            raise
        raise SubmitError(str(exc)) from None


def _record_all(plan: JobPlan, recorders: list[Recorder], submitted: Submitted) -> None:
    """Each point's id: a single job's, or ``ARRAY_TASK`` for a point of an array."""
    for job, recorder in zip(plan.jobs, recorders, strict=True):
        job_id = submitted.job_id or recorder.manifest.scheduler_id
        if plan.is_sweep and job_id is not None:
            job_id = f"{job_id}_{job.point.index}"
        recorder.record(job_id, submitted.details)


def _run_points(
    plan: JobPlan, recorders: list[Recorder], launcher: Launcher, *, dry_run: bool,
    written: Written,
) -> None:  # fmt: skip
    """Points run one after another on this node; one failing does not stop the rest."""
    import os

    from automodel_launch.errors import LaunchError
    from automodel_launch.jobdir import remove_job_dir
    from automodel_launch.launchers import Handover
    from automodel_launch.submit import SubmitError

    failed = []
    for job, recorder in zip(plan.jobs, recorders, strict=True):
        assert job.prepared.document is not None
        typer.echo(f"point {job.point.index}: {job.point.label}", err=True)
        handover = Handover(
            job.prepared.document, plan.job_dir(job), job.prepared.files, dict(os.environ),
            dry_run=dry_run, started=None if dry_run else recorder.record,
        )  # fmt: skip
        try:
            submitted = launcher.submit(handover)
        except SubmitError as exc:
            failed.append(f"point {job.point.index}: {exc}")
            continue
        if not dry_run:
            recorder.record(submitted.job_id or recorder.manifest.scheduler_id, submitted.details)
        typer.echo(submitted.summary)
    if dry_run:
        remove_job_dir(written)
    if failed:
        raise LaunchError(f"{len(failed)} of {len(plan.jobs)} points failed: " + "; ".join(failed))


def _recorders(config: Path, plan: JobPlan, launcher: str) -> list[Recorder]:
    """A manifest per point (a sweep's name its points' id, values and index)."""
    import os

    from automodel_launch.jobs.record import Recorder
    from automodel_launch.plan.plan import values_of

    document = plan.document
    assert document is not None
    details: dict[str, object] = {}
    if document.slurm is not None:
        cfg = document.slurm
        details = {"time": str(cfg.time), "nodes": cfg.nodes, "partition": cfg.partition}
        if cfg.gpus_per_node:
            details["gpus_per_node"] = cfg.gpus_per_node
    sweep = os.urandom(6).hex() if plan.is_sweep else None
    recorders = []
    for job in plan.jobs:
        recorder = Recorder.for_job(
            name=job.prepared.name,
            launcher=launcher,
            job_dir=plan.job_dir(job),
            config=config,
            files=job.prepared.files,
            environ=os.environ,
            details=details,
        )
        if sweep is not None:
            recorder.in_sweep(sweep, job.point.index, values_of(job))
        recorders.append(recorder)
    return recorders


def _sweep_id(recorders: list[Recorder]) -> str:
    return str(getattr(recorders[0].manifest, "sweep", None) or recorders[0].manifest.id)


def _summary(plan: JobPlan) -> list[str]:
    from automodel_launch.submit.summary import summary_lines

    job = plan.jobs[0].prepared
    assert job.document is not None and plan.root is not None
    lines = summary_lines(job.document, plan.root, job.nproc_per_node)
    if plan.is_sweep:
        limit = f", at most {plan.max_parallel} at once" if plan.max_parallel else ""
        lines.append(
            f"  sweep          {len(plan.jobs)} points over {', '.join(plan.swept)}{limit}"
        )
    return lines


def _progress(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr while the scheduler or SkyPilot answers (not over a local run)."""
    import contextlib

    if not text:
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(text + "...")
