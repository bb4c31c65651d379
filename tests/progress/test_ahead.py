"""The forecast before a job runs: a rerun at its first job's rate, a sweep's pending
points at the median rate of those that ran."""

from __future__ import annotations

from typing import Any

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.progress.ahead import before_it_runs, for_pending_points
from automodel_launch.progress.read import Progress

BOUNDS = {"max_steps": 1000, "ckpt_every_steps": 100, "time": "00:30:00"}


def manifest(index: int = 0, **details: Any) -> Manifest:
    return Manifest(
        id=f"{index + 1:012x}", name="sw", launcher="slurm", job_dir=f"/jobs/{index}",
        submitted_at="2026-12-07T10:00:00Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch",), artifacts=(), scheduler_id=f"9_{index}",
        sweep="abcdef012345", point=index, details=details,
    )  # fmt: skip


def test_a_rerun_is_forecast_at_its_first_job_s_rate() -> None:
    ahead = before_it_runs(manifest(**BOUNDS), 2.0, "job abc's")
    assert ahead is not None and (ahead.stop_step, ahead.last_checkpoint) == (900, 900)
    assert ahead.text == (
        "before it runs, at job abc's rate (at 2.00 s a step, step 1000 comes 33m20s after "
        "the start; the limit is 30m: the job stops near step 900; its last checkpoint will "
        "be step 900; nothing after it is lost, start-up not counted)"
    )
    assert before_it_runs(manifest(max_steps=10), 2.0, "x") is None  # no time limit
    assert before_it_runs(manifest(time="UNLIMITED", max_steps=10), 2.0, "x") is None
    assert before_it_runs(manifest(time="00:30:00"), 2.0, "x") is None  # no max_steps


def test_pending_points_are_forecast_at_the_median_rate_of_those_that_ran() -> None:
    ran = [JobStatus(manifest(i, **BOUNDS), "RUNNING", time_limit="00:30:00",
                     progress=Progress(step=10, seconds_per_step=rate))
           for i, rate in enumerate((1.0, 3.0, 1.5))]  # fmt: skip
    waiting = JobStatus(manifest(3, **BOUNDS), "PENDING", time_limit="00:30:00")
    shown = for_pending_points([*ran, waiting])
    assert shown[:3] == ran
    progress = shown[3].progress
    assert progress is not None and progress.forecast is not None
    assert progress.forecast.text.startswith(
        "before it runs, at the other points' median rate (at 1.50 s a step, step 1000 comes "
        "25m after the start; the limit is 30m: it finishes in time"
    )
    alone = JobStatus(manifest(0, **BOUNDS), "PENDING")
    assert for_pending_points([alone]) == [alone]
