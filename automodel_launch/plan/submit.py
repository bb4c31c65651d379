"""Submitting a rendered plan: its files written whole, handed over, each point recorded.

A single job is one handover of the plan's job directory; a Slurm sweep is one per job
array (one ``sbatch`` each: an array's tasks are its points, ``ARRAYID_INDEX``; one
array unless the points need different scripts, :mod:`automodel_launch.plan.render`;
``--max-parallel`` caps each array). A sweep on a launcher
that runs no arrays hands its points over one by one: on this node in the foreground one
after another, one failing not stopping the rest; otherwise (SkyPilot, ``--detach``)
through the point feeder (:mod:`automodel_launch.plan.driver`), at most
``--max-parallel`` in flight. Nothing here prints: ``say`` receives the lines a command
shows while it works, and the result says what happened.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.errors import LaunchError, UsageError
from automodel_launch.layout import DRIVER_LOG
from automodel_launch.plan.plan import JobPlan, PlannedJob, values_of

if TYPE_CHECKING:
    from automodel_launch.jobdir import Written
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.record import Recorder
    from automodel_launch.launchers import Launcher

Say = Callable[[str], None]
Progress = Callable[[str], contextlib.AbstractContextManager[object]]


@dataclass
class Submission:
    """What a submit did: the launcher's summary line(s), each point's manifest."""

    plan: JobPlan
    summaries: list[str] = field(default_factory=list)
    manifests: list[Manifest] = field(default_factory=list)
    sweep: str | None = None
    warnings: list[str] = field(default_factory=list)
    """The registry could not record a job (it ran; its manifest is in its directory)."""
    failed: list[str] = field(default_factory=list)
    """Points that ran on this node and failed, or that could not be launched."""
    driver: int | None = None
    """The pid of the driver process that feeds the sweep's points to its launcher."""
    forecast: str | None = None
    """``rerun``: the new job's forecast against its time limit at the first one's rate."""


def refuse_unsupported(plan: JobPlan, launcher: str, *, detach: bool, after: bool) -> None:
    """What the launcher cannot do with this plan, before anything is written."""
    from automodel_launch.launchers import LAUNCHERS

    if after and not LAUNCHERS[launcher].dependencies:
        raise UsageError(
            f"--after: {launcher} jobs cannot wait for another job; only Slurm's can "
            "(sbatch --dependency)",
            hint="submit this one when the other has ended (`automodel-launch status JOB` "
            "says when)",
        )


def submit_plan(
    plan: JobPlan,
    *,
    dry_run: bool = False,
    detach: bool = False,
    environ: Mapping[str, str] | None = None,
    say: Say = lambda line: None,
    progress: Progress = lambda text: contextlib.nullcontext(),
    summary: Callable[[JobPlan], list[str]] | None = None,
) -> Submission:
    """Write, hand over and record a rendered ``plan``; ``summary`` gives the lines shown
    (through ``say``) under ``submitting:`` once the files are written."""
    from automodel_launch.jobdir import JobDirError, write_job_dir
    from automodel_launch.launchers import launcher_of
    from automodel_launch.prepare import release

    document = plan.document
    assert document is not None and plan.root is not None
    launcher = launcher_of(document)
    environ = dict(os.environ if environ is None else environ)
    recorders = _recorders(plan, launcher.name, environ)
    files = dict(plan.files)
    for job, recorder in zip(plan.jobs, recorders, strict=True):
        name, content = recorder.file
        files[_inside(plan, job, name)] = content
    try:
        fill = plan.snapshot.write_into if plan.snapshot is not None else None
        written = write_job_dir(plan.root, files, plan.claimed, fill)
    except OSError as exc:
        release(plan.claimed)
        raise JobDirError(str(exc)) from None
    except BaseException:
        release(plan.claimed)
        raise
    if detach and launcher.detached:
        say(f"note: {launcher.name} jobs always run detached; --detach changes nothing")
    foreground = plan.is_sweep and not (launcher.arrays or launcher.detached or detach)
    if foreground and plan.max_parallel and plan.max_parallel > 1:
        say("note: in the foreground the points run one after another; --max-parallel "
            "takes effect with --detach")  # fmt: skip
    if summary is not None:
        say("\n".join(["checking:" if dry_run else "submitting:", *summary(plan)]))
    done = Submission(plan, sweep=recorders[0].manifest.sweep if plan.is_sweep else None)
    if plan.is_sweep and not launcher.arrays and (dry_run or not (detach or launcher.detached)):
        _run_points(plan, recorders, launcher, done, written, environ, dry_run=dry_run, say=say)
    elif plan.is_sweep and not launcher.arrays:
        _feed(plan, recorders, launcher, done, environ, progress)
    elif plan.is_sweep:
        from automodel_launch.plan.arrays import submit_arrays

        submit_arrays(
            plan, recorders, launcher, done, written, environ, dry_run=dry_run, detach=detach,
            progress=progress,
        )  # fmt: skip
    else:
        from automodel_launch.plan.arrays import hand_over

        submitted = hand_over(
            plan, launcher, recorders[0], written, environ, dry_run=dry_run, detach=detach,
            progress=progress,
        )  # fmt: skip
        done.summaries.append(submitted.summary)
        if dry_run:
            from automodel_launch.jobdir import remove_job_dir

            remove_job_dir(written)
        else:
            recorders[0].record(submitted.job_id or recorders[0].manifest.scheduler_id,
                                submitted.details)  # fmt: skip
    if not dry_run:
        done.manifests = [r.manifest for r in recorders]
        done.warnings = [r.warning for r in recorders if r.warning]
    return done


def _recorders(plan: JobPlan, launcher: str, environ: Mapping[str, str]) -> list[Recorder]:
    """A manifest per point (a sweep's points name its id, their index and values; each
    its own launcher details: a swept ``slurm.nodes`` is the point's)."""
    from automodel_launch.jobs.origins import rerun_settings, run_settings
    from automodel_launch.jobs.record import Recorder
    from automodel_launch.launchers import launcher_of

    document = plan.document
    assert document is not None
    runner = launcher_of(document)
    sweep = (plan.sweep_id or os.urandom(6).hex()) if plan.is_sweep else None
    assert plan.root is not None
    code = plan.snapshot.record(plan.root, environ) if plan.snapshot is not None else None
    entry = plan.entry
    launch = {
        "entry": {
            "text": entry.text,
            "command": entry.command,
            "domain": entry.domain,
            "nproc_per_node": plan.nproc_per_node,
        }
        if entry is not None
        else None,
        "rerun_of": plan.rerun_of.id if plan.rerun_of is not None else None,
    }
    recorders = []
    for job in plan.jobs:
        settings = run_settings(job.report, environ)
        if plan.rerun_of is not None:
            own = plan.rerun_checkpoints
            replaced = ("checkpoint.checkpoint_dir",) if own is not None and own.own else ()
            settings = rerun_settings(plan.rerun_of, settings, replaced)
        if plan.remote is not None and plan.placement is not None:
            settings["remote"] = {
                "name": plan.remote.name, "host": plan.remote.host, "port": plan.remote.port,
                "job_dir": plan.placement.remote(plan.job_dir(job)),
            }  # fmt: skip
        recorder = Recorder.for_job(
            name=job.prepared.name,
            launcher=launcher,
            job_dir=plan.job_dir(job),
            config=plan.path,
            files=job.prepared.files,
            environ=environ,
            details=runner.record_details(job.report.document or document),
            sweep=sweep,
            point=job.point.index if sweep is not None else None,
            values=values_of(job) if sweep is not None else None,
            job_id=plan.job_id if sweep is None else None,
            code=code,
            automodel_version=job.report.automodel_version,
            settings={**settings, **launch},
        )
        recorders.append(recorder)
    return recorders


def _inside(plan: JobPlan, job: PlannedJob, name: str) -> str:
    """A file of ``job`` as a path inside the plan's job directory."""
    assert plan.root is not None
    relative = plan.job_dir(job).relative_to(plan.root)
    return name if relative == Path() else f"{relative.as_posix()}/{name}"


def _run_points(
    plan: JobPlan,
    recorders: list[Recorder],
    launcher: Launcher,
    done: Submission,
    written: Written,
    environ: dict[str, str],
    *,
    dry_run: bool,
    say: Say,
) -> None:
    """Points run one after another on this node; one failing does not stop the rest."""
    from automodel_launch.handover import Handover, SubmitError
    from automodel_launch.jobdir import remove_job_dir

    for job, recorder in zip(plan.jobs, recorders, strict=True):
        assert job.prepared.document is not None
        say(f"point {job.point.index}: {job.point.label}")
        handover = Handover(
            job.prepared.document, plan.job_dir(job), job.prepared.files, environ,
            dry_run=dry_run, started=None if dry_run else recorder.record, sweep_point=True,
        )  # fmt: skip
        try:
            submitted = launcher.submit(handover)
        except SubmitError as exc:
            done.failed.append(f"point {job.point.index}: {exc}")
            continue
        if not dry_run:
            recorder.record(submitted.job_id or recorder.manifest.scheduler_id, submitted.details)
        done.summaries.append(submitted.summary)
    if dry_run:
        remove_job_dir(written)


def _feed(
    plan: JobPlan,
    recorders: list[Recorder],
    launcher: Launcher,
    done: Submission,
    environ: dict[str, str],
    progress: Progress,
) -> None:
    """Points handed over one by one, at most ``max_parallel`` in flight: here at once when
    the cap lets all start (a scheduler's jobs), else by a driver process (a local run is
    started by it too: ``submit --detach`` returns at once)."""
    from automodel_launch.handover import Handover
    from automodel_launch.plan.driver import Fed, Feeder, Order, start_driver

    assert plan.root is not None
    limit = plan.max_parallel or (len(plan.jobs) if launcher.detached else 1)
    points = []
    for job, recorder in zip(plan.jobs, recorders, strict=True):
        assert job.prepared.document is not None
        handover = Handover(
            job.prepared.document, plan.job_dir(job), job.prepared.files, environ,
            detach=True, sweep_point=True,
        )  # fmt: skip
        recorder.record(None, {})  # listed (PENDING) before any point starts
        points.append(Fed(job.point.index, handover, recorder))
    if limit >= len(points) and launcher.detached:
        feeder = Feeder(launcher, points, limit)
        with progress(launcher.progress):
            feeder.start_ready()
        done.summaries += feeder.summaries
        done.failed += feeder.failed
        return
    driver = start_driver(plan.root, Order(launcher.name, tuple(points), limit))
    done.driver = driver.pid
    done.summaries.append(
        f"started the sweep's driver (pid {driver.pid}): it runs the {len(points)} points, "
        f"at most {limit} at once; its output in {plan.root / DRIVER_LOG}"
    )


def raise_failed(done: Submission) -> None:
    """The points that failed on this node, as the command's one error."""
    if done.failed:
        count = len(done.plan.jobs)
        hint = None
        if done.sweep is not None and done.manifests:
            hint = (f"every point is recorded as sweep {done.sweep}: "
                    f"automodel-launch status {done.sweep}")  # fmt: skip
        raise LaunchError(
            f"{len(done.failed)} of {count} points failed: " + "; ".join(done.failed), hint=hint
        )
