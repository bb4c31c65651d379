"""A sweep's points on Slurm are the tasks of one job array: one ``squeue`` and at most one
``sacct`` answer for all of them, and one ``scancel`` cancels those not finished."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs import slurm
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.slurm_output import array_tasks, squeue_jobs
from tests.jobs.slurm_fakes import FakeSlurm
from tests.jobs.test_slurm import manifest

FIELDS = "JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason"


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeSlurm:
    fake = FakeSlurm(tmp_path / "slurm")
    monkeypatch.setenv("PATH", fake.path)
    return fake


def points(tmp_path: Path, array: int, count: int) -> list[Manifest]:
    made = []
    for n in range(count):
        job_dir = tmp_path / f"p{n}"
        job_dir.mkdir()
        job = manifest(job_dir, f"{array}_{n}").model_copy(
            update={"id": f"{n:06x}", "sweep": "abcdef012345", "point": n}
        )
        made.append(job)
    return made


def test_array_tasks_running_and_pending_are_found_by_task_id(
    fake: FakeSlurm, tmp_path: Path
) -> None:
    fake.squeue(
        {"job_id": 101, "array_job_id": 100, "array_task_id": 0, "job_state": "RUNNING"},
        {"job_id": 100, "array_job_id": 100, "array_task_id": None,
         "array_task_string": "2-3%2", "job_state": "PENDING", "state_reason": "JobArrayTaskLimit"},
    )  # fmt: skip
    fake.answer("sacct", "100_1|COMPLETED|0:0|2026-11-30T10:00:00|2026-11-30T10:30:00|n1||\n")
    shown = slurm.statuses(points(tmp_path, 100, 4))
    assert [s.state for s in shown] == ["RUNNING", "COMPLETED", "PENDING", "PENDING"]
    assert shown[1].elapsed == 1800 and shown[2].reason == "JobArrayTaskLimit"
    assert shown[0].log_path == f"{tmp_path}/p0/fails_100_0.out"
    assert fake.calls == ["squeue --json", f"sacct -n -P -X --jobs=100_1 -o {FIELDS}"]


def test_a_thousand_forgotten_points_are_one_sacct_call(fake: FakeSlurm, tmp_path: Path) -> None:
    fake.squeue()
    lines = "".join(f"7_{n}|COMPLETED|0:0|||||\n" for n in range(0, 1000, 2))
    fake.answer("sacct", lines + "7_1|FAILED|x:y|||||\n")
    shown = slurm.statuses(points(tmp_path, 7, 1000))
    assert fake.calls[0] == "squeue --json"
    (sacct,) = fake.called("sacct")
    assert sacct.startswith("sacct -n -P -X --jobs=7_0,7_1,7_2,")
    assert sacct.endswith(f",7_999 -o {FIELDS}") and len(fake.calls) == 2
    assert [s.state for s in shown[:4]] == ["COMPLETED", "UNKNOWN", "COMPLETED", "UNKNOWN"]
    assert shown[1].note == "sacct gave the exit code 'x:y'"  # that point's line only
    assert shown[3].note == slurm.NO_ACCOUNTING


def test_cancel_many_is_one_scancel_of_the_unfinished(fake: FakeSlurm, tmp_path: Path) -> None:
    jobs = points(tmp_path, 100, 3)
    fake.squeue(
        {"job_id": 101, "array_job_id": 100, "array_task_id": 0, "job_state": "RUNNING"},
        {"job_id": 102, "array_job_id": 100, "array_task_id": 1, "job_state": "COMPLETED"},
        {"job_id": 100, "array_job_id": 100, "array_task_id": None, "array_task_string": "2",
         "job_state": "PENDING"},
    )  # fmt: skip
    fake.tool("scancel", f"/bin/cp {fake.root}/gone.json {fake.root}/squeue.out")
    (fake.root / "gone.json").write_text('{"jobs": []}')
    fake.answer("sacct", "100_0|CANCELLED by 0|0:15|||||\n100_1|COMPLETED|0:0|||||\n"
                "100_2|CANCELLED by 0|0:0|||||\n")  # fmt: skip
    shown = slurm.cancel_many(jobs, wait=2)
    assert fake.called("scancel") == ["scancel -- 100_0 100_2"]
    assert [s.state for s in shown] == ["CANCELLED", "COMPLETED", "CANCELLED"]
    assert (tmp_path / "p0" / "cancelled").exists() and not (tmp_path / "p1" / "cancelled").exists()


def test_nothing_left_to_cancel_asks_no_scancel(fake: FakeSlurm, tmp_path: Path) -> None:
    fake.squeue({"job_id": 102, "array_job_id": 5, "array_task_id": 0, "job_state": "COMPLETED"})
    fake.answer("scancel")
    assert [s.state for s in slurm.cancel_many(points(tmp_path, 5, 1))] == ["COMPLETED"]
    assert fake.called("scancel") == []


@pytest.mark.parametrize(
    ("job", "tasks"),
    [({"array_job_id": 0, "array_task_id": 3}, []),
     ({"array_job_id": 9, "array_task_id": 3}, ["9_3"]),
     ({"array_job_id": {"set": True, "number": 9}, "array_task_id": {"set": True, "number": 4}},
      ["9_4"]),
     ({"array_job_id": 9, "array_task_id": {"set": False, "number": 0},
       "array_task_string": "0-2%1"}, ["9_0", "9_1", "9_2"]),
     ({"array_job_id": 9, "array_task_string": "1,4-8:2"}, ["9_1", "9_4", "9_6", "9_8"]),
     ({"array_job_id": 9, "array_task_string": "1,x"}, []),
     ({"array_job_id": 9, "array_task_string": 5}, []),
     ({"array_job_id": "9", "array_task_id": 1}, []),
     ({"array_job_id": 9, "array_task_id": True}, []),
     ({"array_job_id": {"set": True, "infinite": True, "number": 9}, "array_task_id": 1}, [])],
)  # fmt: skip
def test_array_tasks(job: dict[str, Any], tasks: list[str]) -> None:
    assert array_tasks(job) == tasks


def test_a_huge_task_range_is_bounded() -> None:
    tasks = array_tasks({"array_job_id": 9, "array_task_string": "0-9999999"})
    assert len(tasks) == 100_000 and tasks[-1] == "9_99999"
    pending = {"job_id": 9, "array_job_id": 9, "array_task_string": "0-1"}
    started = {"job_id": 11, "array_job_id": 9, "array_task_id": 1}
    found = squeue_jobs({"jobs": [pending, started]})
    assert set(found) == {"9", "9_0", "9_1", "11"}
    assert found["9_1"]["job_id"] == 11  # a started task's own record, not the pending range
    found = squeue_jobs({"jobs": [started, {**pending, "array_task_string": "1-2"}]})
    assert (found["9_1"]["job_id"], found["9_2"]["job_id"]) == (11, 9)
