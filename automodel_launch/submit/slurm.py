"""``sbatch`` the job directory's script; the submitting environment travels with it.

The command is run by :class:`automodel_launch.cluster.client.SlurmClient` (its timeout,
its reading of ``--parsable``: ``ID`` or ``ID;CLUSTER``, anything else is not taken as a
job id); here its errors become the submit's, and what sbatch said is shown cleaned.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.cluster.client import (
    Dependency,
    SlurmClient,
    SlurmError,
    Unparsed,
    said,
)
from automodel_launch.layout import SLURM_SCRIPT
from automodel_launch.submit import SubmitError, Submitted

if TYPE_CHECKING:
    from automodel_launch.launchers import Handover

SCRIPT = SLURM_SCRIPT


def submit_slurm(
    job_dir: Path, *, dry_run: bool = False, dependency: Dependency | None = None
) -> Submitted:
    """``sbatch --parsable`` (``--test-only`` for a dry run) of the job directory's script,
    after ``dependency`` when one is given."""
    client = SlurmClient()
    try:
        if dry_run:
            answer = client.sbatch(SCRIPT, cwd=job_dir, test_only=True, dependency=dependency)
            return Submitted(f"sbatch --test-only accepts the job: {said(answer.stderr)}")
        submission = client.submit(SCRIPT, cwd=job_dir, dependency=dependency)
    except Unparsed as exc:
        raise SubmitError(str(exc), started=True) from None
    except SlurmError as exc:
        raise SubmitError(str(exc)) from None
    details = {} if submission.cluster is None else {"cluster": submission.cluster}
    return Submitted(
        f"submitted Slurm job {submission.job_id}; files and log in {job_dir}",
        submission.job_id,
        details,
    )


def hand_over(handover: Handover) -> Submitted:
    return submit_slurm(handover.job_dir, dry_run=handover.dry_run)
