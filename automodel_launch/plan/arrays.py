"""Handing a rendered plan over whole: a single job, or each job array of a Slurm sweep.

A Slurm sweep is one array unless its points need different scripts
(:mod:`automodel_launch.plan.render`): then one ``sbatch`` an array, in the order of their
first points, each point recorded as its array's task of its own index.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automodel_launch.handover import Submitted
    from automodel_launch.jobdir import Written
    from automodel_launch.jobs.record import Recorder
    from automodel_launch.launchers import Launcher
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.plan.submit import Progress, Submission


def hand_over(
    plan: JobPlan,
    launcher: Launcher,
    recorder: Recorder,
    written: Written,
    environ: dict[str, str],
    *,
    dry_run: bool,
    detach: bool,
    progress: Progress,
    script: str | None = None,
    keep: bool = False,
) -> Submitted:
    """One handover: a single job, or one Slurm array of a sweep (``script``: its script,
    one of several; None: the launcher's one). ``keep``: another array of the sweep runs
    already, so the job directory stays whatever happens."""
    from automodel_launch.handover import Handover, SubmitError
    from automodel_launch.jobdir import remove_job_dir

    assert plan.document is not None and plan.root is not None
    handover = Handover(
        plan.document, plan.root, plan.files, environ, dry_run=dry_run, detach=detach,
        started=None if dry_run or plan.is_sweep else recorder.record, script=script,
        again=keep,
    )  # fmt: skip
    try:
        with progress(launcher.progress):
            return launcher.submit(handover)
    except (SubmitError, OSError) as exc:
        if not keep and not (isinstance(exc, SubmitError) and exc.started):
            remove_job_dir(written)  # refused before anything ran in it
        if isinstance(exc, SubmitError):
            raise
        raise SubmitError(str(exc)) from None


def submit_arrays(
    plan: JobPlan,
    recorders: list[Recorder],
    launcher: Launcher,
    done: Submission,
    written: Written,
    environ: dict[str, str],
    *,
    dry_run: bool,
    detach: bool,
    progress: Progress,
) -> None:
    """Each job array of the sweep handed over in turn, its points recorded as its tasks
    (``ARRAY_INDEX``). The first refused: nothing ran, the error is raised (as for one
    array). A later one refused: the arrays handed over run on; its points never run, and
    are recorded FAILED and named in :attr:`Submission.failed`."""
    from automodel_launch.handover import SubmitError
    from automodel_launch.jobdir import remove_job_dir

    recorder_of = {job.point.index: r for job, r in zip(plan.jobs, recorders, strict=True)}
    several = len(plan.arrays) > 1
    running = False
    for array in plan.arrays:
        try:
            submitted = hand_over(
                plan, launcher, recorder_of[array.points[0]], written, environ,
                dry_run=dry_run, detach=detach, progress=progress,
                script=array.script if several else None, keep=running,
            )  # fmt: skip
        except SubmitError as exc:
            if not running or dry_run:
                raise
            for index in array.points:
                _never_ran(recorder_of[index], exc.started)
                done.failed.append(f"point {index} (array {array.number}): {exc}")
            continue
        running = not dry_run
        done.summaries.append(
            f"array {array.number} ({array.listed}): {submitted.summary}" if several
            else submitted.summary
        )  # fmt: skip
        for index in array.points if not dry_run else ():
            recorder = recorder_of[index]
            job_id = submitted.job_id or recorder.manifest.scheduler_id
            recorder.record(f"{job_id}_{index}" if job_id else None, submitted.details)
    if dry_run:
        remove_job_dir(written)


def _never_ran(recorder: Recorder, started: bool) -> None:
    """A point whose array was refused: recorded without an id, and FAILED by its
    ``exit_code`` unless sbatch may have started it (its answer unread)."""
    from automodel_launch.jobs.files import write_job_file
    from automodel_launch.layout import EXIT_CODE

    if not started:
        with contextlib.suppress(OSError):
            write_job_file(Path(recorder.manifest.job_dir), EXIT_CODE, "1\n")
    recorder.record(None, {})
