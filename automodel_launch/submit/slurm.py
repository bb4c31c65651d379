"""``sbatch`` the job directory's script; the submitting environment travels with it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.submit import SubmitError, Submitted

if TYPE_CHECKING:
    from automodel_launch.launchers import Handover

SCRIPT = "job.sbatch"


def submit_slurm(job_dir: Path, *, dry_run: bool = False, timeout: float = 120) -> Submitted:
    if shutil.which("sbatch") is None:
        raise SubmitError("sbatch is not on PATH: submit from a Slurm login node")
    command = ["sbatch", "--export=ALL"]
    command += ["--test-only"] if dry_run else ["--parsable"]
    try:
        done = subprocess.run(
            [*command, SCRIPT], cwd=job_dir, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise SubmitError(f"sbatch did not answer within {timeout:.0f}s") from None
    if done.returncode != 0:
        raise SubmitError(f"sbatch refused the job: {done.stderr.strip() or done.stdout.strip()}")
    if dry_run:
        return Submitted(f"sbatch --test-only accepts the job: {done.stderr.strip()}")
    job_id = done.stdout.strip().split(";")[0]
    return Submitted(f"submitted Slurm job {job_id}; files and log in {job_dir}", job_id)


def hand_over(handover: Handover) -> Submitted:
    return submit_slurm(handover.job_dir, dry_run=handover.dry_run)
