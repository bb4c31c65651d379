"""automodel_launch/launchers/local/submit.py: an interrupted local run stops entirely.

SIGTERM used to kill this command and leave the run going on without it; the run now
has a process group of its own, which gets the signal, then SIGKILL after the grace
time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

RUNNER = """
import sys
from pathlib import Path
from automodel_launch.cli import errors
from automodel_launch.launchers.local import submit as local
local.GRACE_SECONDS = {grace}
errors.handle_termination()
def body():
    print(local.run_local(Path(sys.argv[1])).summary)
    return 0
sys.exit(errors.run(body))
"""


READY = "echo $$ > started\n"
"""The line a run's script says it is ready with (its signal handling in place)."""


def start(job_dir: Path, script: str, grace: float = 30.0) -> subprocess.Popen[str]:
    """Run ``script`` (which has a :data:`READY` line) as a local run; back once it is ready."""
    (job_dir / "run.sh").write_text("#!/bin/bash\n" + script)
    process = subprocess.Popen(
        [sys.executable, "-c", RUNNER.format(grace=grace), str(job_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    deadline = time.monotonic() + 60  # a limit for a broken run: a busy machine is faster
    while not (job_dir / "started").exists() or not (job_dir / "started").read_text():
        assert process.poll() is None and time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    return process


def group_alive(job_dir: Path) -> bool:
    """Any process of the run's group still running (zombies waiting for init do not count)."""
    group = (job_dir / "started").read_text().strip()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        running = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if fields[2] == group and fields[0] != "Z":
                running.append(stat)
        if not running:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_the_signal_reaches_the_run(tmp_path: Path, signum: int, code: int) -> None:
    script = f"trap 'echo stopped > got; exit 1' {signum.name[3:]}\n{READY}sleep 30 &\nwait\n"
    process = start(tmp_path, script)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert (tmp_path / "got").read_text() == "stopped\n"
    assert not group_alive(tmp_path)


def test_a_run_that_ignores_the_signal_is_killed_after_the_grace_time(tmp_path: Path) -> None:
    process = start(tmp_path, f"trap '' TERM\n{READY}sleep 30\n", grace=0.5)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr) == (143, "terminated\n")
    assert not group_alive(tmp_path)


def test_a_finished_run(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("#!/bin/bash\ntrue\n")
    from automodel_launch.launchers.local.submit import run_local

    assert run_local(tmp_path).summary == f"run finished; files in {tmp_path}"


def test_a_foreground_run_keeps_its_error_files(tmp_path: Path) -> None:
    """Its output goes to the terminal; torch's error files go to the job directory."""
    from automodel_launch.launchers.local.submit import run_local

    (tmp_path / "run.sh").write_text(
        'printf "%s\\n" "$PET_LOG_DIR" "$TORCHELASTIC_ERROR_FILE" > seen\n'
    )
    run_local(tmp_path)
    assert (tmp_path / "seen").read_text().splitlines() == [
        f"{tmp_path}/torchrun",
        f"{tmp_path}/errors/node0.json",
    ]
    assert (tmp_path / "errors").is_dir()
