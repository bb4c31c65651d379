"""``submit`` without a launcher section runs torchrun on this node, for real (CPU, gloo)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS

pytestmark = pytest.mark.integration


def test_submit_runs_torchrun_here(torchrun: str, tmp_path: Path) -> None:
    config = tmp_path / "local.yaml"
    config.write_text("model:\n  name: tiny\n")
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "submit", str(config), "--nproc-per-node", "2",
         "--entry", str(HARNESS / "allreduce.py"), "--job-dir", str(tmp_path / "job")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}",
             "PET_MASTER_PORT": str(free_port()), "OMP_NUM_THREADS": "1", "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # each line tagged with its rank on the terminal, as in a Slurm job's log
    lines = sorted(line for line in done.stdout.splitlines() if "rank=" in line)
    assert [line.split()[0] for line in lines] == ["[rank0]:rank=0", "[rank1]:rank=1"]
    assert all("world_size=2" in line and line.endswith("sum=3") for line in lines)
    assert f"\nrun finished; files in {tmp_path / 'job'}\nrecorded as job " in done.stdout
    assert sorted(p.name for p in (tmp_path / "job").iterdir()) == [
        "errors",
        "exit_code",
        "job_config.yaml",
        "launch.yaml",
        "manifest.json",
        "run.sh",
        "torchrun",
    ]
    assert list((tmp_path / "job" / "errors").iterdir()) == []  # no rank failed
    # the output went to the terminal; each rank's own is kept: logs --rank N
    one_rank = _cli(tmp_path, torchrun, "logs", str(tmp_path / "job"), "--rank", "1")
    assert one_rank.returncode == 0, one_rank.stderr
    assert [line.split()[0] for line in one_rank.stdout.splitlines()] == ["rank=1"]


def _env(tmp_path: Path, torchrun: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}",
            "OMP_NUM_THREADS": "1", "TMPDIR": str(tmp_path)}  # fmt: skip


def _cli(tmp_path: Path, torchrun: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=_env(tmp_path, torchrun),
    )  # fmt: skip


def _detach(tmp_path: Path, torchrun: str, name: str, ticks: int, code: int) -> str:
    """A detached run of two ticker ranks, held running until ``tmp_path/NAME.gate`` exists."""
    config = tmp_path / f"{name}.yaml"
    config.write_text("model:\n  name: tiny\n")
    gate = tmp_path / f"{name}.gate"
    done = _cli(
        tmp_path, torchrun, "submit", str(config), "--detach", "--nproc-per-node", "2",
        "--entry", f"{HARNESS / 'ticker.py'} {ticks} 0.1 {code} {gate}", "--job-dir",
        str(tmp_path / name),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("started run (process group ")
    return done.stdout.split("recorded as job ")[1].split(":")[0]


def _status(tmp_path: Path, torchrun: str, job: str) -> dict[str, object]:
    import json

    done = _cli(tmp_path, torchrun, "status", job, "--format", "json")
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_detached_run_status_logs_and_cancel(torchrun: str, tmp_path: Path) -> None:
    quick = _detach(tmp_path, torchrun, "quick", 4, 0)
    slow = _detach(tmp_path, torchrun, "slow", 4, 0)  # its gate stays shut: it is cancelled
    running = _status(tmp_path, torchrun, quick)
    assert (running["state"], running["launcher"], running["nodes"]) == (
        "RUNNING", "interactive", "localhost"
    )  # fmt: skip
    assert running["log_path"] == str(tmp_path / "quick" / "output.log")

    (tmp_path / "quick.gate").touch()
    followed = _cli(tmp_path, torchrun, "logs", quick, "--follow")
    assert followed.returncode == 0, followed.stderr
    ticks = sorted(line for line in followed.stdout.splitlines() if "tick=" in line)
    assert ticks == [f"[rank{r}]:rank={r} tick={t}" for r in (0, 1) for t in range(4)]
    one_rank = _cli(tmp_path, torchrun, "logs", quick, "--rank", "0")
    assert one_rank.stdout.splitlines() == [f"rank=0 tick={t}" for t in range(4)]
    done = _status(tmp_path, torchrun, quick)
    assert (done["state"], done["exit_code"]) == ("COMPLETED", 0)

    assert _status(tmp_path, torchrun, slow)["state"] == "RUNNING"
    cancelled = _cli(tmp_path, torchrun, "cancel", slow)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.splitlines()[-1] == "state: CANCELLED"
    shown = _status(tmp_path, torchrun, str(tmp_path / "slow"))  # a job directory names it too
    assert (shown["id"], shown["state"]) == (slow, "CANCELLED")
    from automodel_launch.launchers.local.jobs import group_alive

    assert not group_alive(int(str(shown["scheduler_id"])))  # no rank is left running


def test_a_failed_detached_run_shows_its_exit_code(torchrun: str, tmp_path: Path) -> None:
    import json

    job = _detach(tmp_path, torchrun, "fails", 2, 3)
    watch = subprocess.Popen(
        [sys.executable, "-m", "automodel_launch", "status", job, "--watch", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        env=_env(tmp_path, torchrun),
    )  # fmt: skip
    assert watch.stdout is not None
    first = watch.stdout.readline()  # while the gate holds the run
    (tmp_path / "fails.gate").touch()
    rest, errors = watch.communicate(timeout=120)
    assert watch.returncode == 0, errors
    states = [json.loads(line)["state"] for line in (first + rest).splitlines()]
    assert states == ["RUNNING", "FAILED"]  # one line a change, until the job ends
    followed = _cli(tmp_path, torchrun, "logs", job, "--follow")
    assert followed.returncode == 1  # torchrun's own exit code when a rank fails
    assert "exitcode  : 3" in followed.stdout
    shown = _status(tmp_path, torchrun, job)
    assert (shown["state"], shown["exit_code"]) == ("FAILED", 1)
