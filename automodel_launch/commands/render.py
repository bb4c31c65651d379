"""``render CONFIG [--job-dir DIR]``: what will run, shown or written as a job directory.

No connection is made: with ``--remote`` (or a profile's ``remote:``) and a job
directory, the scripts name the cluster's paths, the files are written here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.commands.plan import Problems, Request, plan_of, render_of

if TYPE_CHECKING:
    from automodel_launch.plan.plan import JobPlan


@dataclass(frozen=True)
class Rendered:
    """What ``render`` shows: ``artifact`` (the script, task or command line, on standard
    output), ``points`` (a sweep's points and values, above it), and where it was
    written (``job_dir``: the plan's root, with its ``files``; None: shown only)."""

    plan: JobPlan
    points: str | None
    written: bool = False

    @property
    def artifact(self) -> str:
        return self.plan.artifact

    @property
    def job_dir(self) -> Path | None:
        return self.plan.root if self.written else None

    @property
    def files(self) -> list[str]:
        return sorted(self.plan.files)


def render(
    request: Request,
    *,
    remote: str | None,
    problems: Problems,
    points: Callable[[str], None] = lambda text: None,
) -> Rendered:
    """The request's plan, rendered (``problems``: its diagnostics, before); with a job
    directory, written there whole. ``points``: a sweep's points, once rendered, before
    anything is written."""
    from automodel_launch.errors import LaunchError, UsageError
    from automodel_launch.jobdir import JobDirError

    plan = plan_of(request, submitting=False)
    problems(plan)
    job_dir = request.job_dir
    if remote and job_dir is None:
        raise UsageError(
            f"--remote {remote}: give --job-dir too",
            hint="the job directory is written here; its script names its place on the cluster",
        )
    if job_dir is not None:
        from automodel_launch.remote.target import aim

        aim(plan, remote, job_dir)  # no connection: the script names the cluster's paths
    try:
        render_of(plan, request, submitting=False)
    except JobDirError as exc:  # --job-dir cannot be used
        raise UsageError(str(exc), hint=exc.hint) from None
    shown = Rendered(plan, sweep_text(plan) if plan.is_sweep else None, job_dir is not None)
    if shown.points is not None:
        points(shown.points)
    if job_dir is None:
        return shown
    from automodel_launch.jobdir import write_job_dir

    assert plan.root is not None
    try:
        write_job_dir(plan.root, plan.files)  # a JobDirError: exit 1
    except OSError as exc:
        raise LaunchError(str(exc)) from None
    return shown


def sweep_text(plan: JobPlan) -> str:
    """The points and their values, above the script; a sweep of several job arrays,
    which points each runs."""
    limit = f", at most {plan.max_parallel} at once" if plan.max_parallel else ""
    lines = [f"sweep: {len(plan.jobs)} points over {', '.join(plan.swept)}{limit}"]
    checkpoints = plan.checkpoints.line if plan.checkpoints is not None else None
    if checkpoints is not None:
        lines.append(f"  checkpoints: {checkpoints}")
    lines += [f"  point {job.point.index}: {job.point.label}" for job in plan.jobs]
    if len(plan.arrays) > 1:
        lines += [f"  array {a.number} ({a.script}): {a.listed}" for a in plan.arrays]
    return "\n".join(lines)
