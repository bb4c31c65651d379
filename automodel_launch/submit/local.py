"""Run the interactive command on this node."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.submit import SubmitError, Submitted

if TYPE_CHECKING:
    from automodel_launch.launchers import Handover


SCRIPT = "run.sh"


def run_local(job_dir: Path, script: str = SCRIPT) -> Submitted:
    try:
        done = subprocess.run(["bash", script], cwd=job_dir)
    except OSError as exc:
        raise SubmitError(f"cannot run {job_dir / script}: {exc}") from None
    if done.returncode != 0:
        raise SubmitError(
            f"the run exited with status {done.returncode}; its logs and files are kept in "
            f"{job_dir}",
            started=True,
        )
    return Submitted(f"run finished; files in {job_dir}")


def hand_over(handover: Handover) -> Submitted:
    if handover.dry_run:
        return Submitted(f"would run: {handover.files[SCRIPT].splitlines()[-1]}")
    return run_local(handover.job_dir)
