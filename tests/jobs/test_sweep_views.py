"""What the commands show of a sweep, through the CLI, with stand-ins for squeue, sacct and
scancel that count their calls: one row in ``jobs``, a table of points in ``status``, one
scancel for ``cancel``, one point's output with ``logs --point``, a live ``jobs --watch``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep
from tests.support.fake_slurm import FakeSlurm

RUNNING = {"job_state": "RUNNING", "state_reason": "None", "start_time": 1, "nodes": "n[1-2]"}
PENDING = {"job_state": "PENDING", "state_reason": "JobArrayTaskLimit"}
HALF_HOUR = "2026-11-30T10:00:00|2026-11-30T10:30:00"
FIELDS = "JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason"


def cli(fake_slurm: FakeSlurm, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args], capture_output=True, text=True,
        timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": fake_slurm.path, "COLUMNS": "200"},
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    return done


def four_points(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    """Point 0 and 2 running, 1 pending, 3 completed (accounting only); one single job."""
    sweep(tmp_path / "jobs", 4)
    record(job(tmp_path / "jobs" / "single", "b00000000000", "99", name="single",
               submitted_at="2026-11-29T16:49:19Z"))  # fmt: skip
    fake_slurm.squeue(
        {"job_id": 101, "array_job_id": 100, "array_task_id": 0, **RUNNING},
        {"job_id": 103, "array_job_id": 100, "array_task_id": 2, **RUNNING},
        {"job_id": 100, "array_job_id": 100, "array_task_string": "1", **PENDING},
        {"job_id": 99, "job_state": "COMPLETED", "exit_code": 0},
    )  # fmt: skip
    fake_slurm.answer("sacct", f"100_3|COMPLETED|0:0|{HALF_HOUR}|n1|01:00:00|None\n")


def test_jobs_shows_a_sweep_as_one_row_with_one_scheduler_query(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    four_points(fake_slurm, tmp_path)
    done = cli(fake_slurm, "jobs")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "LAUNCHER", "SCHEDULER", "ID", "STATE",
                                "SUBMITTED", "ELAPSED", "PROGRESS", "JOB", "DIRECTORY"]  # fmt: skip
    assert lines[1].split()[:4] == [SWEEP, "lr", "slurm", "100"]
    assert "4 points: 2 RUNNING, 1 PENDING, 1 COMPLETED" in lines[1]
    assert lines[1].rstrip().endswith(str(tmp_path / "jobs" / SWEEP))
    assert lines[2].split()[:5] == ["b00000000000", "single", "slurm", "99", "COMPLETED"]
    assert len(lines) == 3
    assert fake_slurm.calls == ["squeue --json", f"sacct -n -P -X --jobs=100_3 -o {FIELDS}"]


def test_jobs_json_lists_every_point_with_its_sweep_and_values(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    four_points(fake_slurm, tmp_path)
    listed = json.loads(cli(fake_slurm, "jobs", "--format", "json").stdout)["jobs"]
    by_point = {j["point"]: j for j in listed}
    assert len(listed) == 5 and listed[-1]["id"] == "b00000000000"  # newest first
    assert {p: (j["sweep"], j["state"]) for p, j in by_point.items()} == {
        0: (SWEEP, "RUNNING"), 1: (SWEEP, "PENDING"), 2: (SWEEP, "RUNNING"),
        3: (SWEEP, "COMPLETED"), None: (None, "COMPLETED"),
    }  # fmt: skip
    assert by_point[1]["values"] == {"optimizer.lr": 0.0001, "peft.dim": 8}
    assert by_point[None]["values"] == {} and by_point[None]["sweep"] is None
    assert by_point[3]["gpu_hours"] == 8.0  # half an hour x 2 nodes x 8 GPUs
    assert by_point[None]["gpu_hours"] is None  # no GPUs per node recorded: unknown, not 0
    assert by_point[1]["gpu_hours"] is None  # pending: no elapsed time yet


def test_status_of_a_sweep_is_a_table_of_its_points(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    sweep(tmp_path / "jobs", 3)
    fake_slurm.squeue()
    fake_slurm.answer(
        "sacct", "".join(f"100_{n}|COMPLETED|0:0|{HALF_HOUR}|n1||\n" for n in range(3))
    )
    for name in (SWEEP, SWEEP[:5], "100", "lr"):
        done = cli(fake_slurm, "status", name)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == f"sweep {SWEEP}  lr  [slurm 100]"
        assert lines[1:4] == [
            "points     3 points: 3 COMPLETED", "swept      optimizer.lr, peft.dim",
            "GPU-hours  24.00",
        ]  # fmt: skip
        assert lines[7].split() == ["POINT", "VALUES", "SCHEDULER", "ID", "STATE", "STEP",
                                    "LOSS", "BEST", "VAL", "TOKENS/S/GPU", "ELAPSED",
                                    "GPU-HOURS", "ID"]  # fmt: skip
        assert lines[8].split() == ["0", "optimizer.lr=0.001", "peft.dim=8", "100_0",
                                    "COMPLETED", "-", "-", "-", "-", "0:30:00", "8.00",
                                    "abcdef000000"]  # fmt: skip
        assert len(lines) == 11
    assert fake_slurm.called("squeue") == ["squeue --json"] * 4
    assert (
        fake_slurm.called("sacct") == [f"sacct -n -P -X --jobs=100_0,100_1,100_2 -o {FIELDS}"] * 4
    )


def test_status_json_of_a_sweep_and_unknown_gpu_hours(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    points = sweep(tmp_path / "jobs", 2)
    record(points[1].model_copy(update={"details": {"nodes": 2}}))  # GPUs per node unknown
    fake_slurm.squeue()
    fake_slurm.answer("sacct", "".join(f"100_{n}|FAILED|1:0|{HALF_HOUR}|n1||\n" for n in range(2)))
    shown = json.loads(cli(fake_slurm, "status", SWEEP, "--format", "json").stdout)
    assert {k: shown[k] for k in ("sweep", "name", "launcher", "scheduler_id", "states")} == {
        "sweep": SWEEP, "name": "lr", "launcher": "slurm", "scheduler_id": "100",
        "states": {"FAILED": 2},
    }  # fmt: skip
    assert shown["gpu_hours"] is None and shown["keys"] == ["optimizer.lr", "peft.dim"]
    assert [(p["point"], p["gpu_hours"], p["exit_code"]) for p in shown["points"]] == [
        (0, 8.0, 1),
        (1, None, 1),
    ]
    assert len(fake_slurm.calls) == 2
    text = cli(fake_slurm, "status", SWEEP).stdout
    assert "GPU-hours  -\n" in text


def test_a_point_is_still_a_job(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    points = sweep(tmp_path / "jobs", 2)
    fake_slurm.squeue({"job_id": 102, "array_job_id": 100, "array_task_id": 1, **RUNNING})
    for name in ("100_1", points[1].id, points[1].job_dir):
        done = cli(fake_slurm, "status", name)
        assert done.stdout.splitlines()[:2] == [
            f"job {points[1].id}  lr  [slurm 100_1]",
            "state      RUNNING (scheduler: RUNNING)",
        ]


def test_cancel_a_sweep_is_one_scancel_of_its_unfinished_points(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    four_points(fake_slurm, tmp_path)
    gone = fake_slurm.root / "gone.json"
    gone.write_text('{"jobs": []}')
    fake_slurm.tool("scancel", f'/bin/cp "{gone}" "{fake_slurm.root}/squeue.out"')
    fake_slurm.answer("sacct", "".join(f"100_{n}|CANCELLED by 1|0:15|||||\n" for n in range(3))
                + f"100_3|COMPLETED|0:0|{HALF_HOUR}|n1||\n")  # fmt: skip
    done = cli(fake_slurm, "cancel", SWEEP)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"cancelled sweep {SWEEP} (slurm 100)\nstate: 4 points: 3 CANCELLED, 1 COMPLETED\n"
    )
    assert fake_slurm.called("scancel") == ["scancel -- 100_0 100_1 100_2"]
    assert (tmp_path / "jobs" / SWEEP / "point1" / "cancelled").is_file()
    assert not (tmp_path / "jobs" / SWEEP / "point3" / "cancelled").exists()


def test_logs_of_a_sweep_need_a_point_in_range(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    points = sweep(tmp_path / "jobs", 3)
    Path(points[1].job_dir, "lr_100_1.out").write_text("step 1 loss 2.0\n")
    fake_slurm.squeue({"job_id": 102, "array_job_id": 100, "array_task_id": 1, **RUNNING})
    done = cli(fake_slurm, "logs", SWEEP, "--point", "1")
    assert (done.returncode, done.stdout) == (0, "step 1 loss 2.0\n")
    done = cli(fake_slurm, "logs", SWEEP, "--point", "3")
    assert (done.returncode, done.stderr) == (
        1, f"error: sweep {SWEEP} has no point 3: its points are 0 to 2\n"
    )  # fmt: skip
    done = cli(fake_slurm, "logs", "lr")
    assert (done.returncode, done.stderr) == (1, (
        f"error: 'lr' is sweep {SWEEP} of 3 points: give one with --point I (its points are "
        "0 to 2)\n"
    ))  # fmt: skip
    done = cli(fake_slurm, "logs", points[0].id, "--point", "0")
    assert (done.returncode, done.stderr) == (1, (
        f"error: '{points[0].id}' is job {points[0].id}, not a sweep: --point is for a sweep\n"
    ))  # fmt: skip
    assert cli(fake_slurm, "logs", SWEEP, "--point", "-1").returncode == 2


def test_jobs_watch_refreshes_with_one_query_and_ends_cleanly_on_ctrl_c(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    sweep(tmp_path / "jobs", 2)
    fake_slurm.squeue({"job_id": 101, "array_job_id": 100, "array_task_string": "0-1", **PENDING})
    # SIGINT's default action in the child, as from a shell: a test run started in the
    # background ignores SIGINT, and exec would pass the ignoring on
    watching = subprocess.Popen(
        [sys.executable, "-m", "automodel_launch", "jobs", "--watch", "--interval", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": fake_slurm.path},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while len(fake_slurm.called("squeue")) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        watching.send_signal(signal.SIGINT)
        out, err = watching.communicate(timeout=30)
    finally:
        watching.kill()
        watching.wait()
    assert (watching.returncode, err) == (0, "")
    assert "2 points: 2 PENDING" in out
    assert len(fake_slurm.called("squeue")) >= 3 and fake_slurm.called("sacct") == []


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--watch", "--interval", "0.5"], "Invalid value for '--interval'"),
     (["--watch", "--interval", "3601"], "Invalid value for '--interval'"),
     (["--watch", "--format", "json"], "--watch shows a table: use text")],
)  # fmt: skip
def test_bad_watch_options(fake_slurm: FakeSlurm, args: list[str], message: str) -> None:
    done = cli(fake_slurm, "jobs", *args)
    assert done.returncode == 2 and message in done.stderr


def test_the_table_shows_the_newest_rows_and_says_how_many_are_left_out(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    four_points(fake_slurm, tmp_path)
    record(*(job(tmp_path / "jobs" / f"old{n}", f"c0000000000{n}", str(50 + n), name=f"old{n}",
                 submitted_at=f"2026-01-0{n + 1}T00:00:00Z") for n in range(3)))  # fmt: skip
    done = cli(fake_slurm, "jobs", "--limit", "2")
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[1:3]] == [SWEEP, "b00000000000"]
    assert lines[3:] == ["(3 older rows not shown: --limit 0 shows every one)"]
    assert len(cli(fake_slurm, "jobs").stdout.splitlines()) == 6  # 5 rows: under the default limit
    assert len(cli(fake_slurm, "jobs", "--limit", "0").stdout.splitlines()) == 6
    assert len(json.loads(cli(fake_slurm, "jobs", "--format", "json").stdout)["jobs"]) == 8
    limited = json.loads(cli(fake_slurm, "jobs", "--format", "json", "--limit", "1").stdout)["jobs"]
    assert {j["sweep"] for j in limited} == {SWEEP} and len(limited) == 4
    stated = cli(fake_slurm, "jobs", "--state", "completed", "--limit", "2").stdout.splitlines()
    assert [line.split()[0] for line in stated[1:3]] == [SWEEP, "b00000000000"]
    assert "1 point: 1 COMPLETED" in stated[1]
    assert len(stated) == 3  # the old jobs are UNKNOWN: no row left out
    stated = cli(fake_slurm, "jobs", "--state", "completed", "--limit", "1").stdout.splitlines()
    assert stated[2:] == ["(1 older row not shown: --limit 0 shows every one)"]
