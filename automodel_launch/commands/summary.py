"""The few lines ``submit`` shows before it hands a job over: what will run, where,
for how long, with what. Credentials appear by name only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.config.document import LaunchDocument

if TYPE_CHECKING:
    from automodel_launch.plan.plan import JobPlan


def plan_summary(plan: JobPlan) -> list[str]:
    """A rendered plan's lines: its first point's job, its code, what it runs again,
    where its checkpoints go, its sweep."""
    from automodel_launch.snapshot.summary import code_lines

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


def summary_lines(document: LaunchDocument, job_dir: Path, nproc_per_node: int) -> list[str]:
    from automodel_launch.launchers import launcher_of

    lines = launcher_of(document).summary(document, nproc_per_node)
    lines.append(("job directory", str(job_dir)))
    width = max(len(key) for key, _ in lines)
    return [f"  {key:<{width}}  {value}" for key, value in lines]
