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

from automodel_launch.submit import SubmitError, Submitted

GRACE_SECONDS = 30.0


def run_local(job_dir: Path, script: str = "run.sh") -> Submitted:
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
        raise SubmitError(f"the run exited with status {returncode}")
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
