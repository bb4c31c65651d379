"""``toy-submit`` the job directory's script; its answer is the job's id."""

from __future__ import annotations

import re
import subprocess
from typing import TYPE_CHECKING

from automodel_launch.handover import SubmitError, Submitted

if TYPE_CHECKING:
    from automodel_launch.handover import Handover

ARTIFACT = "toy.sh"
JOB_ID = re.compile(r"t[1-9][0-9]{0,8}")
"""The toy scheduler's job ids: ``t1``, ``t2`` ..."""


def hand_over(handover: Handover) -> Submitted:
    if handover.dry_run:
        return Submitted(f"toy-submit would run {handover.job_dir / ARTIFACT}")
    try:
        done = subprocess.run(
            ["toy-submit", ARTIFACT], cwd=handover.job_dir, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        raise SubmitError(f"cannot run toy-submit: {exc}") from None
    job_id = done.stdout.strip()
    if done.returncode != 0 or not JOB_ID.fullmatch(job_id):
        said = (done.stderr or done.stdout).strip()
        raise SubmitError(f"toy-submit refused the job (exit {done.returncode}): {said}")
    return Submitted(f"submitted toy job {job_id}; output in {handover.job_dir}", job_id)
