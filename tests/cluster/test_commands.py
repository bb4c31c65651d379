"""The one way Slurm's commands are run: bounded in time and output, decoded safely."""

from __future__ import annotations

import sys

import pytest

from automodel_launch.cluster.commands import Unanswered, run


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
