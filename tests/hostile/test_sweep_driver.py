"""A sweep driver's ``driver.json`` is read back from a directory anyone could write to.
Whatever it holds (garbage, a link, another process's pid, a pid whose start time or
command line is not the driver's), ``status`` and ``cancel`` never signal a process this
tool did not start as that sweep's driver: they say the driver is gone, mark the points
it never started, and exit as documented, with one clear line and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from automodel_launch.jobs import driven
from automodel_launch.jobs.driven import DriverFile, is_driver, read_driver, stop_driver
from automodel_launch.launchers.dispatch import statuses
from automodel_launch.launchers.local.jobs import process_start
from tests.jobs.sweep_helpers import SWEEP, job, record

SLEEP = "import time; time.sleep(120)"


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def spawn(started: list[subprocess.Popen[bytes]], *words: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", SLEEP, *words])
    started.append(process)
    tail = (words[-1] if words else SLEEP).encode() + b"\0"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # until it runs python, not the forked test
        if Path(f"/proc/{process.pid}/cmdline").read_bytes().endswith(tail):
            break
        time.sleep(0.01)
    return process


def points(root: Path, count: int = 2) -> list[object]:
    made = [
        job(root / "points" / str(n), f"{SWEEP[:6]}{n:06x}", None, launcher="interactive",
            sweep=SWEEP, point=n, values={"optimizer.lr": n / 10})
        for n in range(count)
    ]  # fmt: skip
    record(*made)
    return made


def driver_file(root: Path, pid: int, start: str | None) -> None:
    root.mkdir(parents=True, exist_ok=True)
    info = {"pid": pid, "process_start": start or "1", "max_parallel": 1}
    (root / "driver.json").write_text(DriverFile.model_validate(info).model_dump_json())


GARBAGE = [
    b"", b"not json", b'{"pid": 1, "process_start": "1", "max_parallel": 1}',
    b'{"pid": "123", "process_start": "1", "max_parallel": 1}', b"[]", b"\xff\xfe" * 10,
    b'{"pid": 4194304, "process_start": "12; rm -rf /", "max_parallel": 1}', b"{" * 100_000,
]  # fmt: skip


@pytest.mark.parametrize("content", GARBAGE, ids=range(len(GARBAGE)))
def test_a_garbage_driver_file_names_no_driver(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "driver.json").write_bytes(content)
    assert read_driver(tmp_path) is None
    assert stop_driver(tmp_path, grace=0.1) is False


def test_a_link_or_a_pipe_is_never_read(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text('{"pid": 2, "process_start": "1", "max_parallel": 1}')
    (tmp_path / "sw").mkdir()
    (tmp_path / "sw" / "driver.json").symlink_to(real)
    assert read_driver(tmp_path / "sw") is None
    os.mkfifo(tmp_path / "driver.json")  # would block a reader that opened it plainly
    assert read_driver(tmp_path) is None


def test_only_the_sweeps_own_driver_is_ever_signalled(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    root = tmp_path / "sw"
    root.mkdir()
    module, mine = driven.MODULE, str(root)
    others = [
        spawn(processes),  # someone else's process, its true start time
        spawn(processes, module, str(tmp_path / "elsewhere")),  # another sweep's driver
        spawn(processes, module),  # no directory
    ]
    for other in others:
        driver_file(root, other.pid, process_start(other.pid))
        assert not is_driver(root, read_driver(root))  # type: ignore[arg-type]
        assert stop_driver(root, grace=0.1) is False
        assert other.poll() is None  # untouched
    # this very test process, and a pid whose start time is not the one recorded
    for pid, start in ((os.getpid(), process_start(os.getpid())), (others[0].pid, "7")):
        driver_file(root, pid, start)
        assert stop_driver(root, grace=0.1) is False
    assert all(other.poll() is None for other in others)
    # the real thing: this sweep's driver (its command line and start time) is stopped
    real = spawn(processes, "-", module, mine)  # its own arguments end with the two
    driver_file(root, real.pid, process_start(real.pid))
    assert is_driver(root, read_driver(root))  # type: ignore[arg-type]
    assert stop_driver(root, grace=5) is True
    assert real.wait(timeout=10) != 0
    assert all(other.poll() is None for other in others)


def test_points_of_a_gone_driver_are_unknown_never_pending(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    root = tmp_path / "sw"
    made = points(root)
    stranger = spawn(processes)
    driver_file(root, stranger.pid, process_start(stranger.pid))
    shown = statuses(made)  # type: ignore[arg-type]
    assert [s.state for s in shown] == ["UNKNOWN", "UNKNOWN"]
    assert all(s.final for s in shown)
    assert shown[0].note == (
        f"the sweep's driver is gone and never started it: see {root / 'driver.log'}"
    )
    assert shown[0].log_path == str(root / "driver.log")
    real = spawn(processes, driven.MODULE, str(root))
    driver_file(root, real.pid, process_start(real.pid))
    assert [s.state for s in statuses(made)] == ["PENDING", "PENDING"]  # type: ignore[arg-type]
    assert statuses(made)[0].note == (  # type: ignore[arg-type]
        "waits for its turn: the sweep's driver runs at most 1 at once"
    )


@pytest.mark.parametrize("content", [None, b"garbage"])
def test_cancel_of_a_sweep_with_a_hostile_driver_file(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]], content: bytes | None
) -> None:
    root = tmp_path / "sw"
    points(root)
    stranger = spawn(processes)
    if content is None:
        driver_file(root, stranger.pid, process_start(stranger.pid))
    else:
        (root / "driver.json").write_bytes(content)
    result = CliRunner().invoke(app, ["cancel", SWEEP])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "state: 2 points: 2 CANCELLED"
    assert "Traceback" not in result.output
    assert stranger.poll() is None  # never signalled
    assert all((root / "points" / str(n) / "cancelled").exists() for n in range(2))
    shown = CliRunner().invoke(app, ["status", SWEEP])
    assert "2 points: 2 CANCELLED" in shown.output


SLOW_TO_STOP = (
    "import signal, sys, time\n"
    "def stop(*_): time.sleep(0.3); sys.exit(0)\n"
    "signal.signal(signal.SIGTERM, stop)\n"
    "time.sleep(60)\n"
)
DEAF = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\n"


@pytest.mark.parametrize(("code", "grace", "ends"), [(SLOW_TO_STOP, 10.0, 0), (DEAF, 0.3, -9)])
def test_a_driver_gets_its_grace_then_is_killed(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]], code: str, grace: float, ends: int
) -> None:
    root = tmp_path / "sw"
    root.mkdir()
    process = subprocess.Popen([sys.executable, "-c", code, driven.MODULE, str(root)])
    processes.append(process)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # until its handler is in place
        if b"SigCgt:" in Path(f"/proc/{process.pid}/status").read_bytes():
            status = Path(f"/proc/{process.pid}/status").read_text()
            masks = {k: int(v, 16) for k, v in (line.split(":\t") for line in status.splitlines()
                     if line.startswith(("SigCgt", "SigIgn")))}  # fmt: skip
            if (masks["SigCgt"] | masks["SigIgn"]) & (1 << 14):  # SIGTERM (15) handled
                break
        time.sleep(0.01)
    driver_file(root, process.pid, process_start(process.pid))
    assert stop_driver(root, grace=grace) is True
    assert process.wait(timeout=10) == ends  # 0: it stopped itself in its grace; -9: killed
