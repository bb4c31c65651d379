"""Live preflight for ``validate --cluster`` and ``submit``: the cluster's view of a job.

The rules live in :mod:`automodel_launch.cluster`; this module connects them to the
commands: which reports, which script, and what "no Slurm here" does (one error line,
exit 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from automodel_launch.results import FileReport

NO_PREFLIGHT = "pass --no-preflight to submit without asking the cluster"


def preflight_reports(reports: list[FileReport]) -> None:
    """``validate --cluster``: every valid ``slurm:`` report, with its sbatch --test-only."""
    from automodel_launch.cluster.commands import NoSlurm
    from automodel_launch.cluster.preflight import check_reports

    try:
        check_reports(reports, _script_of)
    except NoSlurm as exc:
        _no_slurm(str(exc), "--cluster")


def preflight_report(report: FileReport) -> None:
    """``submit`` of a ``slurm:`` config: the rules only (sbatch itself decides next)."""
    from automodel_launch.cluster.commands import NoSlurm
    from automodel_launch.cluster.preflight import check_reports

    try:
        check_reports([report])
    except NoSlurm as exc:
        _no_slurm(str(exc), "preflight", NO_PREFLIGHT)


def _no_slurm(reason: str, what: str, hint: str | None = None) -> None:
    from automodel_launch.secrets import display

    typer.echo(f"error: {what}: {display(reason)}", err=True)
    if hint:
        typer.echo(f"    hint: {hint}", err=True)
    raise typer.Exit(1)


def _script_of(report: FileReport, job_dir: Path) -> str | None:
    """The SBATCH script ``submit`` would write for the report, its job directory ``job_dir``."""
    from automodel_launch.jobdir import JobDirError
    from automodel_launch.prepare import EntryChoice, render_report
    from automodel_launch.render.entry import EntryError

    try:
        prepared = render_report(report, Path(report.path), entry=EntryChoice(), job_dir=job_dir)
    except (JobDirError, EntryError):
        return None
    return prepared.files.get("job.sbatch")
