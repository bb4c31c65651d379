"""Run the interactive command on this node, in the foreground or detached.

The run gets a process group of its own, so an interruption of this command (Ctrl-C,
SIGTERM, SIGHUP) reaches torchrun and every rank, not only the shell in between;
what does not stop within :data:`GRACE_SECONDS` is killed, so nothing is left running
after the command has returned. Either way the run's exit status ends up in the job
directory's ``exit_code`` (``status`` reads it), and the directory is kept.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.handover import SubmitError, Submitted
from automodel_launch.layout import (
    CANCELLED,
    EXIT_CODE,
    LOCAL_LOG,
    LOCAL_SCRIPT,
    RANK_LOGS,
    agent_error_file,
    staging,
)

if TYPE_CHECKING:
    from automodel_launch.handover import Handover

GRACE_SECONDS = 30.0
"""How long an interrupted run may take to stop before what is left is killed."""
_DETACHED = (
    f'bash "$1"; code=$?; rm -f {staging(EXIT_CODE)}; '
    f'(set -C; printf "%s\\n" "$code" > {staging(EXIT_CODE)}) '
    f"&& mv -f {staging(EXIT_CODE)} {EXIT_CODE}; "
    'exit "$code"'
)
"""The detached run's leader: runs the script, then records its exit status in a new file
(``set -C``: never through a link left in the job directory) renamed over ``exit_code``."""

Started = Callable[[str, dict[str, Any]], None]


def run_local(
    job_dir: Path, script: str = LOCAL_SCRIPT, started: Started | None = None
) -> Submitted:
    try:
        process = subprocess.Popen(
            ["bash", script], cwd=job_dir, env={**os.environ, **rank_tags(job_dir)},
            start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        raise SubmitError(f"cannot run {job_dir / script}: {exc}") from None
    if started is not None:
        started(str(process.pid), _details(process.pid, detached=False))
    try:
        returncode = process.wait()
    except BaseException as exc:  # KeyboardInterrupt, or errors.Interrupted (SIGTERM, SIGHUP)
        _record(job_dir, CANCELLED, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        _stop(process, getattr(exc, "signum", signal.SIGINT))
        raise
    _record(job_dir, EXIT_CODE, str(returncode))
    if returncode != 0:
        raise SubmitError(
            f"the run exited with status {returncode}; its logs and files are kept in {job_dir}",
            started=True,
        )
    return Submitted(f"run finished; files in {job_dir}", str(process.pid))


def run_detached(job_dir: Path, script: str = LOCAL_SCRIPT) -> Submitted:
    """Start the run in the background and return; its output goes to ``output.log``."""
    try:
        with (job_dir / LOCAL_LOG).open("ab") as log:
            process = subprocess.Popen(
                ["bash", "-c", _DETACHED, "run", script],
                cwd=job_dir,
                env={**os.environ, **rank_tags(job_dir)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
    except OSError as exc:
        raise SubmitError(f"cannot run {job_dir / script}: {exc}") from None
    output = job_dir / LOCAL_LOG
    return Submitted(
        f"started run (process group {process.pid}) in the background; output in {output}",
        str(process.pid),
        _details(process.pid, detached=True),
    )


def rank_tags(job_dir: Path) -> dict[str, str]:
    """torchrun tags each line ``[rankN]:`` (``logs --rank N`` of a detached run), each
    rank's output and error file kept under ``torchrun/`` (``logs --rank N`` of a
    foreground run, whose output went to the terminal), and the agent's error file
    (``status``); the Slurm script sets the same (:data:`..slurm.render.RANK_PREFIX`)."""
    return {
        "PET_TEE": "3",
        "PET_LOG_DIR": str(job_dir / RANK_LOGS),
        "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE": "[rank${rank}]:",
        **error_file(job_dir),
    }


def error_file(job_dir: Path) -> dict[str, str]:
    """Where torchrun's agent (or a single process decorated with ``@record``) records the
    first failure (``status`` reads it); its folder is made here, torch does not."""
    path = job_dir / agent_error_file("0")
    with contextlib.suppress(OSError):
        path.parent.mkdir(exist_ok=True)
    return {"TORCHELASTIC_ERROR_FILE": str(path)}


def _details(pid: int, *, detached: bool) -> dict[str, Any]:
    from automodel_launch.launchers.local.jobs import process_start

    return {
        "pid": pid,
        "process_start": process_start(pid),
        "detached": detached,
        "started_at": time.time(),
    }


def _record(job_dir: Path, name: str, text: str) -> None:
    from automodel_launch.jobs.files import write_job_file

    with contextlib.suppress(OSError):  # the run's result stands; only `status` loses it
        write_job_file(job_dir, name, text + "\n")  # never through a link in the job dir


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
        return Submitted(f"would run: {handover.files[LOCAL_SCRIPT].splitlines()[-1]}")
    if handover.detach:
        return run_detached(handover.job_dir)
    return run_local(handover.job_dir, started=handover.started)
