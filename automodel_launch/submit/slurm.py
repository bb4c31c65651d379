"""``sbatch`` the job directory's script; the submitting environment travels with it.

``sbatch --parsable`` answers ``ID`` or ``ID;CLUSTER``; anything else is not taken as a
job id (it would reach ``scancel`` later), and what sbatch said is shown cleaned.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.cluster.commands import Answer, NoSlurm, Unanswered, find, run
from automodel_launch.jobs.ids import is_scheduler_id
from automodel_launch.layout import SLURM_SCRIPT
from automodel_launch.secrets import display, looks_like_token
from automodel_launch.submit import SubmitError, Submitted

if TYPE_CHECKING:
    from automodel_launch.launchers import Handover

TIMEOUT = 120.0
"""sbatch waits on a busy controller; ``AUTOMODEL_LAUNCH_SLURM_TIMEOUT`` overrides it."""
CLUSTER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
OUTPUT_LIMIT = 1024 * 1024


def submit_slurm(
    job_dir: Path, *, dry_run: bool = False, timeout: float | None = None
) -> Submitted:
    from automodel_launch.jobs.slurm import timeout as slurm_timeout

    if find("sbatch") is None:
        raise SubmitError("sbatch is not on PATH: submit from a Slurm login node")
    seconds = slurm_timeout(TIMEOUT) if timeout is None else timeout
    command = ["sbatch", "--export=ALL", "--test-only" if dry_run else "--parsable", SLURM_SCRIPT]
    try:
        answer = run(command, timeout=seconds, cwd=str(job_dir), limit=OUTPUT_LIMIT)
    except Unanswered:
        raise SubmitError(f"sbatch did not answer within {seconds:g}s") from None
    except NoSlurm as exc:
        raise SubmitError(str(exc)) from None
    if answer.returncode != 0:
        raise SubmitError(f"sbatch refused the job: {said(answer.stderr) or said(answer.stdout)}")
    if dry_run:
        return Submitted(f"sbatch --test-only accepts the job: {said(answer.stderr)}")
    job_id, cluster = parsable(answer)
    details = {} if cluster is None else {"cluster": cluster}
    return Submitted(f"submitted Slurm job {job_id}; files and log in {job_dir}", job_id, details)


def parsable(answer: Answer) -> tuple[str, str | None]:
    """The job id and cluster of ``sbatch --parsable``'s line (``ID`` or ``ID;CLUSTER``)."""
    lines = answer.stdout.strip().splitlines()
    job_id, _, cluster = (lines[-1] if lines else "").strip().partition(";")
    if (
        len(lines) != 1
        or answer.truncated
        or not is_scheduler_id("slurm", job_id)
        or (cluster and (CLUSTER.fullmatch(cluster) is None or looks_like_token(cluster)))
    ):
        raise SubmitError(
            "sbatch answered with no job id this tool can read: "
            f"{said(answer.stdout) or 'nothing'}; the job may have been submitted: "
            "look with squeue before submitting again",
            started=True,
        )
    return job_id, cluster or None


def said(text: str) -> str:
    """What a command printed, as one clean line."""
    return display("; ".join(line.strip() for line in text.splitlines() if line.strip()))


def hand_over(handover: Handover) -> Submitted:
    return submit_slurm(handover.job_dir, dry_run=handover.dry_run)
