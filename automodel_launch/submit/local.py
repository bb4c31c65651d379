"""Run the interactive command on this node.

The run gets a process group of its own, so an interruption of this command (Ctrl-C,
SIGTERM, SIGHUP) reaches torchrun and every rank, not only the shell in between;
what does not stop within :data:`GRACE_SECONDS` is killed, so nothing is left running
after the command has returned.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.submit import SubmitError, Submitted

if TYPE_CHECKING:
    from automodel_launch.launchers import Handover

SCRIPT = "run.sh"
GRACE_SECONDS = 30.0
"""How long an interrupted run may take to stop before what is left is killed."""


def run_local(job_dir: Path, script: str = SCRIPT) -> Submitted:
    try:
        process = subprocess.Popen(["bash", script], cwd=job_dir, start_new_session=True)
    except OSError as exc:
        raise SubmitError(f"cannot run {job_dir / script}: {exc}") from None
    try:
        returncode = process.wait()
    except BaseException as exc:  # KeyboardInterrupt, or errors.Interrupted (SIGTERM, SIGHUP)
        _stop(process, getattr(exc, "signum", signal.SIGINT))
        raise
    if returncode != 0:
        raise SubmitError(
            f"the run exited with status {returncode}; its logs and files are kept in {job_dir}",
            started=True,
        )
    return Submitted(f"run finished; files in {job_dir}")


def _stop(process: subprocess.Popen[bytes], signum: int) -> None:
    """Pass the signal on to the whole run; kill what is still there after the grace time."""
    try:
        os.killpg(process.pid, signum)
        process.wait(timeout=GRACE_SECONDS)
    except ProcessLookupError:
        return
    except BaseException:  # the grace time ran out, or a second interruption: stop now
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    process.wait()


def hand_over(handover: Handover) -> Submitted:
    if handover.dry_run:
        return Submitted(f"would run: {handover.files[SCRIPT].splitlines()[-1]}")
    return run_local(handover.job_dir)
