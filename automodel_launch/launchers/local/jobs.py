"""Runs on this node: ``submit --detach`` (output in ``output.log``) and foreground runs.

The run is a process group of its own; its leader's pid and start time (from
``/proc``, so a recycled pid is not taken for it) are in the manifest. The leader
writes the run's exit status to ``exit_code`` when the run ends.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from automodel_launch.jobs.files import rank_logs
from automodel_launch.jobs.follow import follow_file, follow_files
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import (
    JobError,
    JobStatus,
    exit_code_for,
    left_behind,
    mark_cancelled,
)
from automodel_launch.layout import CANCELLED, EXIT_CODE, LOCAL_LOG, RANK_LOGS


def process_start(pid: int) -> str | None:
    """The start time of ``pid`` in clock ticks since boot (field 22 of /proc/PID/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[19] if fields[0] != "Z" else None


def _alive(manifest: Manifest) -> bool:
    pid = manifest.details.get("pid")
    if not isinstance(pid, int):
        return False
    start = process_start(pid)
    return start is not None and start == manifest.details.get("process_start")


def statuses(manifests: list[Manifest]) -> list[JobStatus]:
    return [status_of(m) for m in manifests]


def status_of(manifest: Manifest) -> JobStatus:
    detached = bool(manifest.details.get("detached"))
    log = str(Path(manifest.job_dir) / LOCAL_LOG) if detached else None
    started = manifest.details.get("started_at")
    started_at = float(started) if isinstance(started, (int, float)) else None
    left = left_behind(manifest)
    alive = left is None and _alive(manifest)
    if left is None and not alive:  # the run writes its exit_code, then ends: both can
        left = left_behind(manifest)  # fall between the first read and the look at it
    if left is not None:
        state, code = left
        ended = _mtime(Path(manifest.job_dir) / EXIT_CODE)
        return JobStatus(
            manifest, state, scheduler_state=state.lower(), nodes="localhost",
            started_at=started_at, ended_at=ended or time.time(), exit_code=code, log_path=log,
        )  # fmt: skip
    if alive:
        return JobStatus(
            manifest, "RUNNING", scheduler_state="running", nodes="localhost",
            started_at=started_at, log_path=log,
        )  # fmt: skip
    note = "the run is gone and left no exit status (killed, or this is another machine)"
    if "pid" not in manifest.details:
        note = "the run never started"
    return JobStatus(
        manifest, "UNKNOWN", started_at=started_at, log_path=log, note=note, final=True
    )


def logs(manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
    if manifest.sweep is not None and "pid" not in manifest.details:
        raise JobError("this point has not started yet: it has no output")
    if not manifest.details.get("detached"):
        return _rank_logs(manifest, follow=follow, rank=rank)
    final = follow_file(
        Path(manifest.job_dir) / LOCAL_LOG, lambda: status_of(manifest), follow=follow, rank=rank
    )
    return exit_code_for(final) if follow else 0


def _rank_logs(manifest: Manifest, *, follow: bool, rank: int | None) -> int:
    """A foreground run's output went to the terminal; torchrun kept each rank's own
    (``stdout.log``, ``stderr.log``) under ``torchrun/`` in the job directory."""
    said = "this run was in the foreground: its output went to the terminal, not to a file"
    if rank is None:
        raise JobError(
            said, hint=f"`logs --rank N` shows rank N's own output, kept under {RANK_LOGS}/"
        )
    paths = rank_logs(Path(manifest.job_dir), rank)
    if paths is None:
        raise JobError(
            f"{said}, and {Path(manifest.job_dir) / RANK_LOGS} holds no output of rank {rank}",
            hint="a run of one process (not torchrun) keeps none; ranks count from 0",
        )
    final = follow_files(paths, lambda: status_of(manifest), follow=follow)
    return exit_code_for(final) if follow else 0


def cancel(manifest: Manifest, *, grace: float = 10.0) -> JobStatus:
    """SIGTERM to the run's process group; SIGKILL what is left after ``grace`` seconds."""
    status = status_of(manifest)
    pid = manifest.details.get("pid")
    if status.state != "RUNNING" or not isinstance(pid, int):
        return status
    mark_cancelled(manifest)
    try:
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and group_alive(pid):
            time.sleep(0.1)
        if group_alive(pid):
            os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError as exc:
        raise JobError(f"cannot stop process group {pid}: {exc.strerror}") from None
    after = status_of(manifest)
    if after.state in ("CANCELLED", "RUNNING"):
        return after
    # stopped here, but its job directory could not take the ``cancelled`` marker
    return JobStatus(
        manifest, "CANCELLED", scheduler_state="cancelled", nodes="localhost",
        started_at=status.started_at, ended_at=time.time(), log_path=status.log_path,
        note=_unrecorded(Path(manifest.job_dir)),
    )  # fmt: skip


def _unrecorded(job_dir: Path) -> str:
    """Why a run ``cancel`` stopped will not show as CANCELLED afterwards."""
    if not job_dir.is_dir():
        return (
            f"its job directory {job_dir} no longer exists: nothing records that it was "
            "cancelled, so `status` will not say CANCELLED; `automodel-launch jobs --reindex "
            "DIR` (its parent) drops this record"
        )
    return (
        f"cannot write {CANCELLED} in its job directory {job_dir}: nothing records that it "
        "was cancelled, so `status` will not say CANCELLED"
    )


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return _has_live_member(pgid)


def _has_live_member(pgid: int) -> bool:
    """killpg(0) also succeeds for a group of zombies: look for one that still runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _mtime(path: Path) -> float | None:
    try:
        return path.lstat().st_mtime  # the file's own time, not a link's target's
    except OSError:
        return None
