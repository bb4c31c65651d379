"""A sweep's points on Slurm are the tasks of one job array: one ``squeue`` and at most one
``sacct`` answer for all of them, and one ``scancel`` cancels those not finished."""

from __future__ import annotations

from pathlib import Path

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.launchers.slurm import jobs as slurm
from tests.jobs.test_slurm import manifest
from tests.support.fake_slurm import FakeSlurm

FIELDS = "JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason"


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
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.squeue(
        {"job_id": 101, "array_job_id": 100, "array_task_id": 0, "job_state": "RUNNING"},
        {"job_id": 100, "array_job_id": 100, "array_task_id": None,
         "array_task_string": "2-3%2", "job_state": "PENDING", "state_reason": "JobArrayTaskLimit"},
    )  # fmt: skip
    fake_slurm.answer("sacct", "100_1|COMPLETED|0:0|2026-11-30T10:00:00|2026-11-30T10:30:00|n1||\n")
    shown = slurm.statuses(points(tmp_path, 100, 4))
    assert [s.state for s in shown] == ["RUNNING", "COMPLETED", "PENDING", "PENDING"]
    assert shown[1].elapsed == 1800 and shown[2].reason == "JobArrayTaskLimit"
    assert shown[0].log_path == f"{tmp_path}/p0/fails_100_0.out"
    assert fake_slurm.calls == ["squeue --json", f"sacct -n -P -X --jobs=100_1 -o {FIELDS}"]


def test_a_thousand_forgotten_points_are_one_sacct_call(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.squeue()
    lines = "".join(f"7_{n}|COMPLETED|0:0|||||\n" for n in range(0, 1000, 2))
    fake_slurm.answer("sacct", lines + "7_1|FAILED|x:y|||||\n")
    shown = slurm.statuses(points(tmp_path, 7, 1000))
    assert fake_slurm.calls[0] == "squeue --json"
    (sacct,) = fake_slurm.called("sacct")
    jobs = sacct.removeprefix("sacct -n -P -X --jobs=").removesuffix(f" -o {FIELDS}")
    assert sorted(jobs.split(","), key=lambda i: int(i[2:])) == [f"7_{n}" for n in range(1000)]
    assert len(fake_slurm.calls) == 2
    assert [s.state for s in shown[:4]] == ["COMPLETED", "UNKNOWN", "COMPLETED", "UNKNOWN"]
    assert shown[1].note == "sacct gave the exit code 'x:y'"  # that point's line only
    assert shown[3].note == slurm.NO_ACCOUNTING


def test_cancel_all_is_one_scancel_of_the_unfinished(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    jobs = points(tmp_path, 100, 3)
    fake_slurm.squeue(
        {"job_id": 101, "array_job_id": 100, "array_task_id": 0, "job_state": "RUNNING"},
        {"job_id": 102, "array_job_id": 100, "array_task_id": 1, "job_state": "COMPLETED"},
        {"job_id": 100, "array_job_id": 100, "array_task_id": None, "array_task_string": "2",
         "job_state": "PENDING"},
    )  # fmt: skip
    fake_slurm.tool("scancel", f"/bin/cp {fake_slurm.root}/gone.json {fake_slurm.root}/squeue.out")
    (fake_slurm.root / "gone.json").write_text('{"jobs": []}')
    fake_slurm.answer("sacct", "100_0|CANCELLED by 0|0:15|||||\n100_1|COMPLETED|0:0|||||\n"
                "100_2|CANCELLED by 0|0:0|||||\n")  # fmt: skip
    shown = slurm.cancel_all(jobs, wait=2)
    assert fake_slurm.called("scancel") == ["scancel -- 100_0 100_2"]
    assert [s.state for s in shown] == ["CANCELLED", "COMPLETED", "CANCELLED"]
    assert (tmp_path / "p0" / "cancelled").exists() and not (tmp_path / "p1" / "cancelled").exists()


def test_nothing_left_to_cancel_asks_no_scancel(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue(
        {"job_id": 102, "array_job_id": 5, "array_task_id": 0, "job_state": "COMPLETED"}
    )
    fake_slurm.answer("scancel")
    assert [s.state for s in slurm.cancel_all(points(tmp_path, 5, 1))] == ["COMPLETED"]
    assert fake_slurm.called("scancel") == []
