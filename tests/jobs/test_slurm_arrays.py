"""Job array tasks in squeue's and sacct's answers: captured ``squeue --json`` of the test
cluster (22.05) with arrays running, pending and done, and stand-ins on PATH that count
their calls: the status of a 1,000-task array is one squeue call (and one sacct call for
the tasks the controller forgot), never one a task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.launchers.slurm import jobs as slurm
from automodel_launch.launchers.slurm.arrays import Listed, in_ranges, pending_ranges, whole
from automodel_launch.launchers.slurm.output import (
    SacctRecord,
    Unreadable,
    read_job,
    sacct_records,
    squeue_jobs,
)
from tests.jobs.test_slurm import manifest
from tests.support.fake_slurm import CAPTURED, FakeSlurm

RUNNING = CAPTURED / "squeue_array.json"
"""Array 1 (``0-5%2``) held; array 2 (``0-5%2``): tasks 0 and 1 running, 2-5 pending."""
DONE = CAPTURED / "squeue_array_done.json"
"""Arrays 1 and 2 cancelled; array 5 (``0-3%2``, each task exits with its index) ended:
its last task took over the array's job id; jobs 9 and 10 are no arrays."""


def listed(path: Path) -> Listed:
    return squeue_jobs(json.loads(path.read_text()))


def state(found: Listed, job_id: str) -> tuple[str, str | None] | None:
    raw = found.find(job_id)
    if raw is None:
        return None
    job = read_job(raw)
    return job.state, job.state_reason


@pytest.mark.parametrize(
    ("ranges", "inside", "outside"),
    [("0-5%2", [0, 3, 5], [6, 7]), ("2-5", [2, 5], [0, 1, 6]), ("1,3,7-9", [1, 3, 7, 9], [2, 6]),
     ("0-10:4", [0, 4, 8], [2, 10, 12]), ("7", [7], [0, 8]), ("5-2", [], [2, 3, 5]),
     ("0-9:0", [], [0, 1]), ("x", [], [0]), ("1-", [], [1]), ("", [], [0]),
     (",".join(["1"] * 1025), [], [1]), (",".join(["1"] * 1024), [1], [2]),
     ("1-10:3", [1, 4, 7, 10], [2, 3, 5, 11]), ("0-4000000", [3999999], [4000001])],
)  # fmt: skip
def test_ranges_hold_their_indices(ranges: str, inside: list[int], outside: list[int]) -> None:
    assert [i for i in inside if in_ranges(ranges, i)] == inside
    assert [i for i in outside if in_ranges(ranges, i)] == []


def test_pending_ids_and_squeues_numbers() -> None:
    assert pending_ranges("1234_[2-5%2]") == ("1234", "2-5%2")
    assert pending_ranges("1234_7") is None
    assert pending_ranges("1234_[--me]") is None
    assert pending_ranges("0_[1]") is None
    assert [whole(v) for v in (3, 0, -1, True, "3", 2**33, None)] == [3, 0, None, None, None,
                                                                       None, None]  # fmt: skip
    assert whole(2**32) == 2**32
    assert whole({"set": True, "infinite": False, "number": 7}) == 7
    assert whole({"set": False, "infinite": False, "number": 7}) is None
    assert whole({"set": True, "infinite": True, "number": 7}) is None


def test_running_and_pending_tasks_are_found_by_their_ids() -> None:
    found = listed(RUNNING)
    assert sorted(found) == ["1_[0-5%2]", "2_0", "2_1", "2_[2-5%2]", "3", "4"]
    assert state(found, "2_0") == ("RUNNING", "None")
    assert state(found, "3") == ("RUNNING", "None")  # task 2_0's own job id
    assert state(found, "2_1") == ("RUNNING", "None")
    for task in ("2_2", "2_5"):
        assert state(found, task) == ("PENDING", "JobArrayTaskLimit")
    assert state(found, "1_0") == ("PENDING", "JobHeldUser")
    # the array as a whole is no one task; nor is a task it does not have
    assert [found.find(i) for i in ("2", "1", "2_6", "2_x", "7_0")] == [None] * 5
    assert sorted(found.tasks("2")) == ["2_0", "2_1", "2_[2-5%2]"]


def test_ended_tasks_and_the_one_that_took_the_arrays_id() -> None:
    found = listed(DONE)
    shown = {f"5_{i}": read_job(found.find(f"5_{i}")) for i in range(4)}
    assert [(j.state, j.exit_code) for j in shown.values()] == [
        ("COMPLETED", 0), ("FAILED", 256), ("FAILED", 512), ("FAILED", 768)
    ]  # fmt: skip
    assert found.find("5") is None  # job 5 is task 5_3 now, not the array
    assert state(found, "2_4") == ("CANCELLED", "JobArrayTaskLimit")
    assert state(found, "9") is not None and state(found, "10") is not None


def test_the_status_of_array_tasks(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("squeue", RUNNING.read_text())
    tasks = [manifest(tmp_path, f"2_{i}") for i in range(6)]
    shown = slurm.statuses(tasks)
    assert [(s.state, s.reason) for s in shown] == [("RUNNING", None)] * 2 + [
        ("PENDING", "JobArrayTaskLimit")
    ] * 4
    assert fake_slurm.calls == ["squeue --json"]


def squeue_of_an_array(array: int, started: int, size: int, cap: int) -> dict[str, Any]:
    """squeue --json of an array of ``size`` tasks: ``started`` of them ended (each a record
    of its own), the others pending in the array's record."""
    document = json.loads(RUNNING.read_text())
    task, pending = document["jobs"][1], document["jobs"][3]
    jobs = [
        {**task, "job_id": array + 1 + i, "array_job_id": array, "array_task_id": i,
         "job_state": "COMPLETED", "exit_code": 0}
        for i in range(started)
    ]  # fmt: skip
    jobs.append({**pending, "job_id": array, "array_job_id": array,
                 "array_task_string": f"{started}-{size - 1}%{cap}"})  # fmt: skip
    return {**document, "jobs": jobs}


def test_the_status_of_a_1000_task_array_is_one_squeue_call(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("squeue", json.dumps(squeue_of_an_array(5000, 400, 1000, 50)))
    fake_slurm.answer("sacct", "")
    tasks = [manifest(tmp_path, f"5000_{i}") for i in range(1000)]
    shown = slurm.statuses(tasks)
    assert [s.state for s in shown] == ["COMPLETED"] * 400 + ["PENDING"] * 600
    assert fake_slurm.calls == ["squeue --json"]


def test_an_array_the_controller_forgot_is_one_sacct_call(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("squeue", '{"errors": [], "jobs": []}')
    lines = [f"5000_{i}|COMPLETED|0:0|||||" for i in range(998)]
    fake_slurm.answer(
        "sacct", "\n".join([*lines, "5000_[998-999%2]|PENDING||||||JobArrayTaskLimit"])
    )
    tasks = [manifest(tmp_path, f"5000_{i}") for i in range(1000)]
    shown = slurm.statuses(tasks)
    assert [s.state for s in shown] == ["COMPLETED"] * 998 + ["PENDING"] * 2
    assert shown[-1].reason == "JobArrayTaskLimit"
    assert [call.split(" ")[0] for call in fake_slurm.calls] == ["squeue", "sacct"]
    asked = fake_slurm.called("sacct")[0].split(" ")[4].removeprefix("--jobs=").split(",")
    assert sorted(asked) == sorted(f"5000_{i}" for i in range(1000))


def test_accounting_lines_by_job_id() -> None:
    found, lost = sacct_records(
        "3|FAILED|2:0|||||\n3|COMPLETED|0:0|||||\n4|x\n\n1234_[2-5]|PENDING||||||Priority\n"
        "--me|FAILED|1:0|||||\n"
    )
    first = found.find("3")
    assert isinstance(first, SacctRecord) and (first.state, first.exit_code) == ("FAILED", 2)
    broken = found.find("4")
    assert isinstance(broken, Unreadable)
    assert str(broken) == "sacct gave a line this version cannot read (x)"
    pending = found.find("1234_4")
    assert isinstance(pending, SacctRecord) and pending.reason == "Priority"
    assert found.find("1234_6") is None
    assert [str(note) for note in lost] == [
        "sacct gave a line this version cannot read (--me|FAILED|1:0|||||)"
    ]


def test_a_line_of_no_job_is_the_note_of_those_not_found(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("squeue", '{"errors": [], "jobs": []}')
    fake_slurm.answer("sacct", "\x1b[2J|FAILED|1:0|||||\n4|COMPLETED|0:0|||||\n")
    three, four = slurm.statuses([manifest(tmp_path, "3"), manifest(tmp_path, "4")])
    assert (three.state, three.note) == (
        "UNKNOWN", "sacct gave a line this version cannot read (\\x1b[2J|FAILED|1:0|||||)"
    )  # fmt: skip
    assert (four.state, four.note) == ("COMPLETED", None)


def test_cancel_all_is_one_scancel_and_one_squeue_a_look(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("squeue", RUNNING.read_text())
    cancelled = fake_slurm.root / "cancelled.json"
    cancelled.write_text(DONE.read_text())
    fake_slurm.tool("scancel", f'/bin/cp "{cancelled}" "{fake_slurm.root}/squeue.out"')
    dirs = [tmp_path / f"t{i}" for i in range(6)]
    for job_dir in dirs:
        job_dir.mkdir()
    tasks = [manifest(job_dir, f"2_{i}") for i, job_dir in enumerate(dirs)]
    shown = slurm.cancel_all(tasks, wait=30)
    assert [s.state for s in shown] == ["CANCELLED"] * 6
    assert fake_slurm.calls == [
        "squeue --json", "scancel -- 2_0 2_1 2_2 2_3 2_4 2_5", "squeue --json"
    ]  # fmt: skip
    assert all((job_dir / "cancelled").exists() for job_dir in dirs)


def test_cancel_all_cancels_nothing_when_one_id_is_forged(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("squeue", RUNNING.read_text())
    fake_slurm.answer("scancel")
    good = manifest(tmp_path, "2_0")
    forged = manifest(tmp_path, "2_1")
    object.__setattr__(forged, "scheduler_id", "--me")
    with pytest.raises(slurm.SlurmUnavailable, match="is not a Slurm job id"):
        slurm.cancel_all([good, forged], wait=1)
    assert fake_slurm.calls == []
    fake_slurm.answer("squeue", DONE.read_text())
    assert slurm.cancel_all([manifest(tmp_path, "5_0")], wait=1) == slurm.statuses(
        [manifest(tmp_path, "5_0")]
    )  # nothing left to cancel: no scancel
    assert fake_slurm.called("scancel") == []


def test_an_array_record_without_a_task_or_its_ranges_is_passed_over() -> None:
    found = Listed()
    for ranges in ("", 5, None, ["1-2"]):
        found.add_squeue({"job_id": 8, "array_job_id": 8, "array_task_id": None,
                          "array_task_string": ranges})  # fmt: skip
    found.add_squeue({"job_id": 9, "array_job_id": {"set": True, "number": 8},
                      "array_task_id": {"set": True, "number": 1}})  # fmt: skip
    assert sorted(found) == ["8_1", "9"]
    assert found.pending == {}
