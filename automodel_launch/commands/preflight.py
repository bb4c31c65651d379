"""Live preflight for ``validate --cluster`` and ``submit``: the cluster's view of a job.

The rules live in :mod:`automodel_launch.launchers.slurm.cluster`; this module connects them to the
commands: which reports, which script, and what "no Slurm here" does (one error line,
exit 1: a :class:`PreflightError`). The cluster asked is the one of the session in play
(:func:`automodel_launch.remote.session.connected`), else this host's Slurm.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.errors import LaunchError
from automodel_launch.layout import SLURM_SCRIPT

if TYPE_CHECKING:
    from automodel_launch.launchers.slurm.cluster.preflight import Preflight
    from automodel_launch.plan.plan import JobPlan, PlannedJob
    from automodel_launch.results import FileReport

NO_PREFLIGHT = "pass --no-preflight to submit without asking the cluster"


class PreflightError(LaunchError):
    """No cluster to ask (no Slurm, no configuration, no controller): exit 1."""


def preflight_reports(reports: list[FileReport]) -> None:
    """``validate --cluster``: every valid ``slurm:`` report, with its sbatch --test-only."""
    from automodel_launch.launchers.slurm.cluster.client import NoSlurm
    from automodel_launch.launchers.slurm.cluster.preflight import check_reports

    try:
        check_reports(reports, _script_of)
    except NoSlurm as exc:
        _unreachable(exc)
        raise PreflightError(f"--cluster: {exc}") from None


def ask_the_cluster(plan: JobPlan, preflight: Preflight | None = None) -> None:
    """``submit``'s preflight: the Slurm cluster's word on the plan, added to every point's
    report (a plan of no ``slurm:`` job asks nothing). A sweep is asked about once per
    launcher section its points have (each is a job array of its own, :mod:`.plan.render`),
    on its first point; the word on it is on each point of that section. ``preflight``:
    the one that reads the cluster (None: a new one)."""
    from automodel_launch.launchers import launcher_of

    document = plan.document
    if document is None or not launcher_of(document).preflight:
        return
    from automodel_launch.diagnostics import sort_key
    from automodel_launch.launchers.slurm.cluster.preflight import Preflight

    preflight = preflight or Preflight()
    for group in _sections(plan):
        first = group[0].report
        known = set(first.diagnostics)
        last = max(job.point.index for job in group)
        tasks = len(group) if plan.is_sweep else 0
        preflight_report(first, tasks=tasks, max_parallel=plan.max_parallel, last=last,
                         preflight=preflight)  # fmt: skip
        found = [d for d in first.diagnostics if d not in known]
        for job in group[1:]:  # the cluster's word on one point is on every one
            job.report.diagnostics = sorted(job.report.diagnostics + found, key=sort_key)


def _sections(plan: JobPlan) -> list[list[PlannedJob]]:
    """The plan's points by their launcher section, in the order of their first points."""
    groups: dict[str, list[PlannedJob]] = {}
    for job in plan.jobs:
        document = job.report.document
        section = getattr(document, document.launcher, None) if document is not None else None
        key = section.model_dump_json() if section is not None else ""
        groups.setdefault(key, []).append(job)
    return list(groups.values())


def preflight_report(
    report: FileReport,
    *,
    tasks: int = 0,
    max_parallel: int | None = None,
    last: int | None = None,
    preflight: Preflight | None = None,
) -> None:
    """``submit`` of a ``slurm:`` config: the rules only (sbatch itself decides next);
    ``tasks``: a sweep's job array of that many tasks (its largest index ``last``, at most
    ``max_parallel`` at once), checked once, on the report of its first point;
    ``preflight``: the one that read the cluster already (None: a new one)."""
    from automodel_launch.launchers.slurm.cluster.client import NoSlurm
    from automodel_launch.launchers.slurm.cluster.preflight import Preflight

    preflight = preflight or Preflight()
    try:
        preflight.check(report)
        if tasks:
            preflight.check_array(report, tasks, max_parallel, last)
    except NoSlurm as exc:
        _unreachable(exc)
        raise PreflightError(f"preflight: {exc}", hint=NO_PREFLIGHT) from None


def _unreachable(exc: Exception) -> None:
    """A named cluster that cannot be reached is said as it is: skipping the preflight
    would not help (the submit needs the same connection)."""
    from automodel_launch.remote.ssh import RemoteError

    if isinstance(exc, RemoteError):
        raise RemoteError(str(exc)) from None


def _script_of(report: FileReport, job_dir: Path) -> str | None:
    """The SBATCH script ``submit`` would write for the report, its job directory ``job_dir``."""
    from automodel_launch.jobdir import JobDirError
    from automodel_launch.prepare import EntryChoice, render_report
    from automodel_launch.render.entry import EntryError

    try:
        prepared = render_report(report, Path(report.path), entry=EntryChoice(), job_dir=job_dir)
    except (JobDirError, EntryError):
        return None
    return prepared.files.get(SLURM_SCRIPT)
