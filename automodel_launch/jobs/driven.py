"""The sweep driver as ``status`` and ``cancel`` see it: points it has not started yet,
and the driver process itself.

A sweep on a launcher without job arrays (SkyPilot, this node) may be fed to its
launcher by a driver process (:mod:`automodel_launch.plan.driver`): at most K points in
flight, the next started when one ends. Its pid and start time are in the sweep's
``driver.json``; a point it has not started has no scheduler id yet. Such a point is
PENDING while the driver lives, CANCELLED once ``cancel`` marked it, FAILED when the
driver could not start it, and UNKNOWN when the driver is gone without starting it.

``driver.json`` comes back from a directory anyone could write to: it is read through the
bounded job-directory reader into a bounded model, and the process it names is signalled
only when it is that driver: same start time (a recycled pid has another) and the
driver's own command line for this very sweep directory. Anything else is never touched.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from automodel_launch.jobs.files import SMALL_FILE_BYTES, Unreadable, read_job_file
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus, left_behind, mark_cancelled
from automodel_launch.layout import DRIVER, DRIVER_LOG, sweep_root

MODULE = "automodel_launch.plan.driver"
"""What the driver runs as (``python -m MODULE ROOT``): part of its identity."""
GRACE_SECONDS = 30.0
"""How long a stopped driver may take to finish the launch it is in before it is killed."""


class DriverFile(BaseModel):
    """What ``driver.json`` holds."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    pid: Annotated[int, Field(ge=2, le=2**31)]
    process_start: Annotated[str, Field(pattern=r"^[0-9]{1,20}$")]
    """Field 22 of ``/proc/PID/stat`` when the driver started."""
    max_parallel: Annotated[int, Field(ge=1, le=100_000)]


def read_driver(root: Path) -> DriverFile | None:
    """The sweep's driver as ``driver.json`` says; None when it says nothing readable."""
    try:
        text = read_job_file(root, DRIVER, SMALL_FILE_BYTES)
    except Unreadable:
        return None
    if text is None:
        return None
    try:
        return DriverFile.model_validate_json(text)
    except ValidationError:
        return None


def is_driver(root: Path, driver: DriverFile) -> bool:
    """The process ``driver`` names is this sweep's driver, still running."""
    from automodel_launch.launchers.local.jobs import process_start

    if process_start(driver.pid) != driver.process_start:
        return False  # gone, a zombie, or a recycled pid
    try:
        words = Path(f"/proc/{driver.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return words[-3:] == [MODULE.encode(), os.fsencode(root), b""]


def driven(manifest: Manifest) -> bool:
    """A point a driver starts, not started yet (it has no scheduler id)."""
    if manifest.sweep is None or manifest.scheduler_id is not None:
        return False
    return os.path.lexists(sweep_root(Path(manifest.job_dir)) / DRIVER)


def queued_status(manifest: Manifest) -> JobStatus:
    """The status of a point its driver has not started (see :func:`driven`)."""
    root = sweep_root(Path(manifest.job_dir))
    left = left_behind(manifest)
    log = str(root / DRIVER_LOG)
    if left is not None:
        state, code = left
        note = None if state == "CANCELLED" else f"the driver could not start it: see {log}"
        return JobStatus(manifest, state, exit_code=code, log_path=log, note=note)
    driver = read_driver(root)
    if driver is not None and is_driver(root, driver):
        note = f"waits for its turn: the sweep's driver runs at most {driver.max_parallel} at once"
        return JobStatus(manifest, "PENDING", scheduler_state="queued", note=note, log_path=log)
    note = f"the sweep's driver is gone and never started it: see {log}"
    return JobStatus(manifest, "UNKNOWN", note=note, log_path=log, final=True)


def stop_driver(root: Path, grace: float = GRACE_SECONDS) -> bool:
    """Stop the sweep's driver (SIGTERM: it starts no more points; SIGKILL after
    ``grace``); True when there was one running. Nothing that is not it is signalled."""
    driver = read_driver(root)
    if driver is None or not is_driver(root, driver):
        return False
    try:
        os.kill(driver.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and is_driver(root, driver):
            time.sleep(0.05)
        if is_driver(root, driver):
            os.kill(driver.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return True


def cancel_queued(manifest: Manifest) -> JobStatus:
    """Mark a point not started yet: its driver never starts it."""
    mark_cancelled(manifest)
    return queued_status(manifest)
