"""A sweep's points its driver has not started: their status, ``cancel`` and ``logs``."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from automodel_launch.jobs import driven
from automodel_launch.jobs.driven import DriverFile, queued_status
from automodel_launch.jobs.driven import driven as is_driven
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.launchers.local.jobs import process_start
from tests.jobs.sweep_helpers import SWEEP, job, record


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    """A sweep directory whose driver runs (a process with the driver's command line)."""
    made = tmp_path / "sw"
    made.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", driven.MODULE, str(made)]
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if Path(f"/proc/{process.pid}/cmdline").read_bytes().endswith(str(made).encode() + b"\0"):
            break
        time.sleep(0.01)
    info = DriverFile(
        pid=process.pid, process_start=process_start(process.pid) or "", max_parallel=2
    )
    (made / "driver.json").write_text(info.model_dump_json())
    yield made
    process.kill()
    process.wait()


def point(root: Path, index: int, scheduler_id: str | None = None, **details: object) -> Manifest:
    made = job(
        root / "points" / str(index), f"{SWEEP[:6]}{index:06x}", scheduler_id,
        launcher="interactive", sweep=SWEEP, point=index, values={"optimizer.lr": 0.1},
        details=details,
    )  # fmt: skip
    record(made)
    return made


def test_which_points_the_driver_answers_for(root: Path, tmp_path: Path) -> None:
    waiting = point(root, 0)
    started = point(root, 1, "4242", pid=4242, process_start="1", detached=True)
    assert is_driven(waiting) and not is_driven(started)
    alone = job(tmp_path / "alone", "abc123abc123", None, launcher="interactive")
    assert not is_driven(alone)  # not a sweep's point
    (root / "driver.json").unlink()
    assert not is_driven(waiting)  # a sweep without a driver: its launcher answers


def test_a_waiting_point_is_pending_then_cancelled(root: Path) -> None:
    waiting = point(root, 0)
    status = queued_status(waiting)
    assert (status.state, status.scheduler_state, status.finished) == ("PENDING", "queued", False)
    assert status.log_path == str(root / "driver.log")
    result = CliRunner().invoke(app, ["cancel", waiting.id])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"cancelled job {waiting.id} (interactive not started)", "state: CANCELLED",
    ]  # fmt: skip
    assert (root / "points" / "0" / "cancelled").exists()  # the driver skips it
    cancelled = queued_status(waiting)
    assert (cancelled.state, cancelled.note) == ("CANCELLED", None)
    assert cancelled.log_path == str(root / "driver.log")


def test_a_point_the_driver_could_not_start_is_failed(root: Path) -> None:
    waiting = point(root, 0)
    (root / "points" / "0" / "exit_code").write_text("1\n")
    status = queued_status(waiting)
    assert (status.state, status.exit_code) == ("FAILED", 1)
    assert status.note == f"the driver could not start it: see {root / 'driver.log'}"
    assert status.log_path == str(root / "driver.log")


def test_the_logs_of_a_point_not_started(root: Path) -> None:
    waiting = point(root, 0)
    result = CliRunner().invoke(app, ["logs", SWEEP, "--point", "0"])
    assert str(result.exception) == "this point has not started yet: it has no output"
    assert waiting.scheduler_id is None
