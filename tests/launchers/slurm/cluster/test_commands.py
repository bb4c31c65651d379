"""The one way Slurm's commands are run: bounded in time and output, decoded safely."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from automodel_launch.launchers.slurm.cluster.commands import Unanswered, run


def test_bytes_that_are_not_utf8_are_replaced() -> None:
    answer = run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'a\\xff\\xfeb')"])
    assert answer.stdout == "a\ufffd\ufffdb"
    assert answer.returncode == 0
    assert not answer.truncated


def test_output_past_the_limit_stops_the_command() -> None:
    endless = "import sys\nwhile True: sys.stdout.write('x' * 65536)"
    answer = run([sys.executable, "-c", endless], limit=100_000, timeout=30)
    assert answer.truncated
    assert answer.stdout == "x" * 100_000


def test_a_command_that_hangs_is_unanswered_and_killed() -> None:
    with pytest.raises(Unanswered, match=r"did not answer within 0\.5s"):
        run([sys.executable, "-c", "import sys, time; sys.stderr.write('slow'); time.sleep(60)"],
            timeout=0.5)  # fmt: skip


def test_no_standard_input() -> None:
    answer = run([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"])
    assert answer.stdout.strip() == "''"


# the caller says "asking" once the command runs and run() waits for its answer
INTERRUPTED = """
import sys
from automodel_launch.cli import errors
from automodel_launch.launchers.slurm.cluster import commands
from automodel_launch.launchers.slurm.cluster.commands import run
answer = commands._answer
def announced(*args):
    print("asking", flush=True)
    return answer(*args)
commands._answer = announced
errors.handle_termination()
command = ["bash", "-c", 'echo $$ > "$1"; exec sleep 60', "bash", sys.argv[1]]
sys.exit(errors.run(lambda: run(command, timeout=120).returncode))
"""


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _as_from_a_terminal() -> None:
    """The caller starts with SIGINT's default action, as from a shell: a test runner that
    ignores SIGINT (a mutation tester's workers) would pass the ignoring on through exec."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_caller_leaves_no_command_running(tmp_path: Path, signum: int) -> None:
    # the command has a session of its own: Ctrl-C at the terminal does not reach it
    pid_file = tmp_path / "pid"
    caller = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, str(pid_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        preexec_fn=_as_from_a_terminal,
    )  # fmt: skip
    assert caller.stdout is not None
    assert caller.stdout.readline() == "asking\n"
    deadline = time.monotonic() + 60  # a limit for a broken run: a busy machine is faster
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert caller.poll() is None and time.monotonic() < deadline, "the command did not start"
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    try:
        caller.send_signal(signum)
        _, stderr = caller.communicate(timeout=60)
        assert caller.returncode == 128 + signum, stderr
        assert not running(pid)
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)
