"""Sweeps in process: rows of ``jobs``, counts by state, GPU-hours, the array id, the
points' range, and what a text names (a job or a sweep), each with the exact answer."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from automodel_launch.jobs import view
from automodel_launch.jobs.lookup import find_job, find_job_or_sweep
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import State
from automodel_launch.jobs.status import JobError, JobStatus, gpu_hours
from automodel_launch.jobs.sweeps import Sweep, SweepStatus, rows, sweep_status
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep


def status(m: Manifest, state: State = "COMPLETED", seconds: float | None = 3600) -> JobStatus:
    start = None if seconds is None else 1000.0
    end = None if seconds is None else 1000.0 + seconds
    return JobStatus(m, state, started_at=start, ended_at=end)


@pytest.mark.parametrize(
    ("elapsed", "details", "hours"),
    [(3600, {"nodes": 2, "gpus_per_node": 8}, 16.0),
     (1800, {"nodes": 1, "gpus_per_node": 4}, 2.0),
     (0, {"nodes": 1, "gpus_per_node": 4}, 0.0),
     (3600, {"nodes": 1, "gpus_per_node": 0}, 0.0),
     (None, {"nodes": 2, "gpus_per_node": 8}, None),
     (3600, {"nodes": 2}, None),
     (3600, {"gpus_per_node": 8}, None),
     (3600, {"nodes": "2", "gpus_per_node": 8}, None),
     (3600, {"nodes": 2, "gpus_per_node": 8.0}, None),
     (3600, {"nodes": True, "gpus_per_node": 8}, None),
     (3600, {"nodes": 0, "gpus_per_node": 8}, None),
     (3600, {"nodes": 1, "gpus_per_node": -1}, None)],
)  # fmt: skip
def test_gpu_hours(elapsed: float | None, details: dict[str, object], hours: float | None) -> None:
    assert gpu_hours(elapsed, details) == hours


def test_rows_keep_order_and_group_points(tmp_path: Path) -> None:
    points = sweep(tmp_path, 3)
    other = sweep(tmp_path, 1, array=200, sweep_id="0123456789ab")
    single = job(tmp_path / "single", "b00000000000", "99")
    given = [status(points[2]), status(single), status(other[0]), status(points[0]),
             status(points[1], "RUNNING")]  # fmt: skip
    shown = rows(given)
    assert len(shown) == 3
    first, middle, last = shown
    assert isinstance(first, SweepStatus) and first.id == SWEEP
    assert [s.manifest.point for s in first.points] == [0, 1, 2]
    assert middle == given[1]
    assert isinstance(last, SweepStatus) and last.id == "0123456789ab"
    assert rows([]) == []
    (backwards,) = rows([status(points[1]), status(points[0])])
    assert isinstance(backwards, SweepStatus)
    assert [s.manifest.point for s in backwards.points] == [0, 1]


def test_a_sweep_summed_and_counted(tmp_path: Path) -> None:
    points = sweep(tmp_path, 5)
    shown = SweepStatus(SWEEP, (status(points[0], "PENDING", None), status(points[1], "RUNNING"),
                                status(points[2]), status(points[3], "RUNNING"),
                                status(points[4], "FAILED")))  # fmt: skip
    assert shown.counts == {"RUNNING": 2, "PENDING": 1, "COMPLETED": 1, "FAILED": 1}
    assert list(shown.counts) == ["RUNNING", "PENDING", "COMPLETED", "FAILED"]
    assert shown.summary == "5 points: 2 RUNNING, 1 PENDING, 1 COMPLETED, 1 FAILED"
    assert shown.gpu_hours is None  # the pending point has no elapsed time
    done = SweepStatus(SWEEP, tuple(status(p) for p in points[1:]))
    assert done.gpu_hours == 64.0 and done.summary == "4 points: 4 COMPLETED"
    one = SweepStatus(SWEEP, (status(points[0]),))
    assert one.summary == "1 point: 1 COMPLETED"
    assert one.job_dir == points[0].job_dir
    assert done.job_dir == str(tmp_path / SWEEP)
    assert (done.array_id, done.submitted_at) == ("100", "2026-11-30T16:49:19Z")
    later = points[2].model_copy(update={"submitted_at": "2026-12-01T00:00:00Z"})
    assert SweepStatus(SWEEP, (status(later), status(points[1]))).submitted_at == (
        "2026-11-30T16:49:19Z"
    )
    assert done.first == points[1]
    data = done.to_json()
    assert (data["sweep"], data["scheduler_id"], data["gpu_hours"]) == (SWEEP, "100", 64.0)
    assert data["states"] == {"COMPLETED": 4} and len(data["points"]) == 4
    assert data["points"][0]["point"] == 1 and data["keys"] == ["optimizer.lr", "peft.dim"]
    assert sweep_status(Sweep(SWEEP, tuple(points)), done.points) == done
    short = SweepStatus(SWEEP, (status(points[0], seconds=100),))
    assert short.to_json() == {
        "sweep": SWEEP, "name": "lr", "launcher": "slurm", "scheduler_id": "100",
        "submitted_at": "2026-11-30T16:49:19Z", "job_dir": points[0].job_dir,
        "states": {"COMPLETED": 1}, "gpu_hours": 0.444, "keys": ["optimizer.lr", "peft.dim"],
        "points": [status(points[0], seconds=100).to_json()],
        "sort": "point", "order": [0], "best_point": None, "scaling": None,
    }  # fmt: skip
    assert SweepStatus(SWEEP, (status(points[0], seconds=None),)).to_json()["gpu_hours"] is None


def test_the_array_ids_only_when_every_point_is_a_task_of_an_array(tmp_path: Path) -> None:
    points = sweep(tmp_path, 2)
    single_ids = [
        p.model_copy(update={"scheduler_id": s}) for p, s in zip(points, ("7", "8"), strict=True)
    ]
    two_arrays = [
        p.model_copy(update={"scheduler_id": s})
        for p, s in zip(points, ("8_0", "7_1"), strict=True)
    ]  # a sweep of two arrays: in the order of their first points
    three = sweep(tmp_path / "three", 3)
    split = [
        p.model_copy(update={"scheduler_id": s})
        for p, s in zip(three, ("7_0", "9_1", "7_2"), strict=True)
    ]
    unsubmitted = [points[0], points[1].model_copy(update={"scheduler_id": None})]
    same = [p.model_copy(update={"scheduler_id": "7"}) for p in points]
    mixed = [
        p.model_copy(update={"scheduler_id": s}) for p, s in zip(points, ("7_0", "7"), strict=True)
    ]
    for group, array in ((points, "100"), (single_ids, None), (two_arrays, "8,7"),
                         (split, "7,9"), (unsubmitted, None), (same, None),
                         (mixed, None)):  # fmt: skip
        assert SweepStatus(SWEEP, tuple(status(p) for p in group)).array_id == array


def test_a_point_by_index_and_the_range_when_there_is_none(tmp_path: Path) -> None:
    points = sweep(tmp_path, 3)
    whole = Sweep(SWEEP, tuple(points))
    assert whole.point(2) == points[2] and whole.point(0) == points[0]
    assert (whole.name, whole.launcher, whole.indexes) == ("lr", "slurm", "0 to 2")
    with pytest.raises(JobError) as raised:
        whole.point(3)
    assert str(raised.value) == f"sweep {SWEEP} has no point 3: its points are 0 to 2"
    gap = Sweep(SWEEP, (points[0], points[2]))
    assert gap.indexes == "0, 2"
    many = [p.model_copy(update={"point": 2 * n}) for n, p in enumerate(sweep(tmp_path, 22))]
    assert Sweep(SWEEP, tuple(many)).indexes == ", ".join(str(2 * n) for n in range(20)) + " ..."
    exactly = [p.model_copy(update={"point": 2 * n}) for n, p in enumerate(sweep(tmp_path, 20))]
    assert not Sweep(SWEEP, tuple(exactly)).indexes.endswith("...")


def test_what_a_text_names(tmp_path: Path) -> None:
    old = sweep(tmp_path, 2, array=40, sweep_id="abc00000ffff")
    new = sweep(tmp_path, 2, array=4, sweep_id="abc99999ffff")
    older_single = job(tmp_path / "s1", "fed000000000", "400", name="lr",
                       submitted_at="2026-01-01T00:00:00Z")  # fmt: skip
    newest_single = job(tmp_path / "s2", "fed111111111", "401", name="solo",
                        submitted_at="2027-01-01T00:00:00Z")  # fmt: skip
    record(older_single, newest_single)
    for text, named in (("abc00000ffff", "abc00000ffff"), ("40", "abc00000ffff"),
                        ("4", "abc99999ffff"), ("abc0", "abc00000ffff")):  # fmt: skip
        found = find_job_or_sweep(text)
        assert isinstance(found, Sweep) and found.id == named
        assert found.points == tuple(old if named == "abc00000ffff" else new)
    assert find_job_or_sweep("40_1") == old[1]
    assert find_job_or_sweep(old[1].id) == old[1]
    assert find_job_or_sweep(old[1].job_dir) == old[1]
    assert find_job_or_sweep("400") == older_single
    assert find_job_or_sweep("solo") == newest_single
    newest = find_job_or_sweep("lr")  # both sweeps have the same submit time: the last added
    assert isinstance(newest, Sweep) and newest.id == "abc99999ffff"
    assert find_job_or_sweep("fed1") == newest_single
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("abc")
    assert str(raised.value) == (
        "'abc' names 2 jobs or sweeps: sweep abc99999ffff, sweep abc00000ffff; give the id"
    )
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("f")
    assert str(raised.value).startswith("'f' names 2 jobs: fed111111111 (slurm 401), ")
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("zzz")
    assert str(raised.value) == (
        "no job or sweep is 'zzz' (an id, scheduler id, job directory or name); "
        "`automodel-launch jobs` lists them"
    )
    with pytest.raises(JobError) as raised:
        find_job("40")
    assert str(raised.value) == (
        "'40' is sweep abc00000ffff of 2 points; give one point's id (`automodel-launch "
        "status SWEEP` lists them)"
    )
    assert find_job("400") == older_single


def test_a_prefix_of_a_sweep_and_of_a_single_job_is_ambiguous(tmp_path: Path) -> None:
    sweep(tmp_path, 1, sweep_id="abc00000ffff")
    record(job(tmp_path / "s", "abc111111111", "9", name="x"))
    with pytest.raises(JobError) as raised:
        find_job_or_sweep("abc")
    assert str(raised.value) == (
        "'abc' names 2 jobs or sweeps: sweep abc00000ffff, abc111111111 (slurm 9); give the id"
    )
    found = find_job_or_sweep("abc0")  # the point's own id starts so too: the sweep
    assert isinstance(found, Sweep)


def test_the_views_of_a_sweep(tmp_path: Path) -> None:
    points = sweep(tmp_path, 2)
    now = time.time()
    shown = SweepStatus(SWEEP, (status(points[0]), JobStatus(points[1], "RUNNING",
                                                              started_at=now - 90)))  # fmt: skip
    assert view.sweep_lines(shown) == [
        f"sweep {SWEEP}  lr  [slurm 100]", "points     2 points: 1 RUNNING, 1 COMPLETED",
        "swept      optimizer.lr, peft.dim", "GPU-hours  16.40", f"job dir    {tmp_path / SWEEP}",
        f"submitted  {view.submitted('2026-11-30T16:49:19Z')}",
    ]  # fmt: skip
    table = view.sweep_table(shown)
    assert [c.header for c in table.columns] == [
        "", "POINT", "VALUES", "SCHEDULER ID", "STATE", "STEP", "LOSS", "BEST VAL",
        "TOKENS/S/GPU", "ELAPSED", "GPU-HOURS", "ID",
    ]  # fmt: skip
    assert list(table.columns[2].cells) == ["optimizer.lr=0.001 peft.dim=8",
                                            "optimizer.lr=0.0001 peft.dim=8"]  # fmt: skip
    assert list(table.columns[5].cells) == ["-", "-"]  # no step logged
    assert list(table.columns[10].cells) == ["16.00", "0.40"]
    assert view.gpu_hours(None) == "-" and view.gpu_hours(0.004) == "0.00"
    rows_shown = view.jobs_table([shown, status(job(tmp_path / "x", "b00000000000", "9"))])
    assert list(rows_shown.columns[0].cells) == [SWEEP, "b00000000000"]
    assert list(rows_shown.columns[4].cells) == [
        "2 points: 1 RUNNING, 1 COMPLETED",
        "[green]COMPLETED[/]",
    ]
    assert list(rows_shown.columns[6].cells) == ["-", "1:00:00"]
