"""Reading Slurm's answers: a captured ``squeue --json`` of the test cluster (22.05),
and what a job leaves in its directory when Slurm no longer knows it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.launchers.slurm import jobs as slurm
from automodel_launch.launchers.slurm.output import SqueueJob, read_job
from tests.support.fake_slurm import SACCT_FIELDS, FakeSlurm

CAPTURED = Path(__file__).parent / "captured" / "squeue.json"


def squeue() -> dict[str, SqueueJob]:
    return {str(job["job_id"]): read_job(job) for job in json.loads(CAPTURED.read_text())["jobs"]}


def manifest(job_dir: Path, scheduler_id: str | None = "3", **details: Any) -> Manifest:
    return Manifest(
        id="abc123", name="fails", launcher="slurm", job_dir=str(job_dir),
        submitted_at="2026-11-30T16:49:19Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch", "submit", "x.yaml"), artifacts=("job.sbatch",),
        scheduler_id=scheduler_id, details=details,
    )  # fmt: skip


def test_a_failed_job_in_squeue(tmp_path: Path) -> None:
    shown = slurm.from_squeue(manifest(tmp_path), squeue()["3"])
    assert (shown.state, shown.scheduler_state, shown.exit_code) == ("FAILED", "FAILED", 3)
    assert shown.reason == "NonZeroExitCode"
    assert shown.nodes == "node1"
    assert shown.elapsed == 0
    assert shown.cluster == "automodel-launch"
    assert shown.log_path == f"{tmp_path}/fails_3.out"


def test_the_exit_code_the_job_wrote_wins_over_the_wait_status(tmp_path: Path) -> None:
    (tmp_path / "exit_code").write_text("7\n")
    assert slurm.from_squeue(manifest(tmp_path), squeue()["3"]).exit_code == 7


def test_a_pending_job_over_the_partition_limit(tmp_path: Path) -> None:
    shown = slurm.from_squeue(manifest(tmp_path, "2", time="01:00:00"), squeue()["2"])
    assert (shown.state, shown.reason, shown.time_limit) == (
        "PENDING", "PartitionTimeLimit", "1:00:00"
    )  # fmt: skip
    assert shown.explained is not None and shown.explained.field == "slurm.time"
    assert shown.elapsed is None and shown.nodes is None and shown.exit_code is None
    data = shown.to_json()
    assert (data["never_starts"], data["fix_field"]) == (True, "slurm.time")


def test_a_running_job_with_no_time_limit_shows_the_configured_one(tmp_path: Path) -> None:
    shown = slurm.from_squeue(manifest(tmp_path, "4", time="UNLIMITED"), squeue()["4"])
    assert (shown.state, shown.reason, shown.nodes) == ("RUNNING", None, "node1")
    assert shown.time_limit == "UNLIMITED"  # squeue says null for an INFINITE partition
    assert shown.ended_at is None and shown.elapsed is not None and shown.elapsed > 0


def test_a_held_job_cancelled_keeps_its_last_reason(tmp_path: Path) -> None:
    shown = slurm.from_squeue(manifest(tmp_path, "1"), squeue()["1"])
    assert (shown.state, shown.reason, shown.explained) == ("CANCELLED", "JobHeldUser", None)


def test_a_forgotten_job_is_read_from_its_directory(tmp_path: Path) -> None:
    job = manifest(tmp_path, time="00:05:00")
    unknown = slurm.from_job_dir(job, None)
    assert unknown.state == "UNKNOWN"
    assert unknown.note == (
        "Slurm no longer knows the job (no accounting) and it left no exit status"
    )
    (tmp_path / "exit_code").write_text("0\n")
    assert slurm.from_job_dir(job, None).state == "COMPLETED"
    (tmp_path / "exit_code").write_text("1\n")
    failed = slurm.from_job_dir(job, None)
    assert (failed.state, failed.exit_code, failed.time_limit) == ("FAILED", 1, "00:05:00")
    (tmp_path / "cancelled").write_text("2026-11-30T16:49:19Z\n")
    assert slurm.from_job_dir(job, "squeue failed: x").state == "CANCELLED"


def test_no_squeue_on_path_is_a_note_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    (shown,) = slurm.statuses([manifest(tmp_path)])
    assert (shown.state, shown.note) == ("UNKNOWN", "squeue is not on PATH")


def test_accounting_answers_for_a_job_the_controller_forgot(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    """sacct cannot run here (no slurmdbd): a stand-in prints what ``sacct -n -P -X -o
    JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason`` prints for a timed-out job."""
    fake_slurm.answer("squeue", '{"jobs": []}\n')
    fake_slurm.sacct({
        "JobID": "3", "State": "TIMEOUT", "ExitCode": "0:15", "Start": "2026-11-30T10:00:00",
        "End": "2026-11-30T10:20:01", "NodeList": "node[1-2]", "Timelimit": "00:20:00",
        "Reason": "None",
    })  # fmt: skip
    (shown,) = slurm.statuses([manifest(tmp_path)])
    assert (shown.state, shown.scheduler_state, shown.exit_code) == ("TIMEOUT", "TIMEOUT", 143)
    assert (shown.nodes, shown.time_limit, shown.reason) == ("node[1-2]", "00:20:00", None)
    assert shown.elapsed == 1201
    assert fake_slurm.argv("sacct") == [
        ["sacct", "-n", "-P", "-X", "--jobs=3", "-o", ",".join(SACCT_FIELDS)]
    ]


def test_scheduler_text_is_cleaned_where_it_is_read(tmp_path: Path) -> None:
    token = "ghp_" + "d" * 36
    job = read_job({"job_id": 3, "job_state": "PENDING", "state_reason": f"\x1b[2J{token}",
                    "nodes": "n\u202e1", "cluster": token})  # fmt: skip
    shown = slurm.from_squeue(manifest(tmp_path, time=f"\x1b{token}"), job)
    assert (shown.reason, shown.nodes, shown.time_limit) == ("\\x1b[2J***", "n\\u202e1", "\\x1b***")
    assert shown.cluster == "***"


@pytest.mark.parametrize(
    ("state", "reason", "shown"),
    [("PENDING", "None", "None"), ("RUNNING", "None", None), ("RUNNING", "", None),
     ("PENDING", "", None), ("RUNNING", "Prolog", "Prolog"), ("PENDING", None, None)],
)  # fmt: skip
def test_a_reason_of_none_explains_a_pending_job_only(
    tmp_path: Path, state: str, reason: str | None, shown: str | None
) -> None:
    job = read_job({"job_id": 3, "job_state": state, "state_reason": reason})
    assert slurm.from_squeue(manifest(tmp_path), job).reason == shown


def test_a_preempted_job_has_ended_its_run(tmp_path: Path) -> None:
    job = read_job({"job_id": 3, "job_state": "PREEMPTED", "exit_code": 15, "end_time": 100})
    shown = slurm.from_squeue(manifest(tmp_path), job)
    assert (shown.state, shown.exit_code, shown.ended_at) == ("PREEMPTED", 143, 100)
    running = read_job({"job_id": 3, "job_state": "RUNNING", "exit_code": 15, "end_time": 100})
    shown = slurm.from_squeue(manifest(tmp_path), running)
    assert (shown.exit_code, shown.ended_at) == (None, None)


def test_time_limits_of_squeue(tmp_path: Path) -> None:
    def limit(value: Any) -> str | None:
        job = read_job({"job_id": 3, "job_state": "RUNNING", "time_limit": value})
        return slurm.from_squeue(manifest(tmp_path, time="2:00:00"), job).time_limit

    assert limit(90) == "1:30:00"
    assert limit(0) == "0:00:00"
    assert limit({"set": True, "infinite": True, "number": 0}) == "UNLIMITED"
    assert limit({"set": False, "infinite": False, "number": 0}) == "2:00:00"
    assert limit(None) == "2:00:00"


def test_a_cluster_of_squeue_is_shown_and_an_empty_one_is_none(tmp_path: Path) -> None:
    job = read_job({"job_id": 3, "job_state": "RUNNING", "cluster": ""})
    assert slurm.from_squeue(manifest(tmp_path), job).cluster is None
    assert slurm.from_squeue(manifest(tmp_path), job).started_at is None


def test_a_pending_jobs_start_time_is_an_estimate_not_a_start(tmp_path: Path) -> None:
    def started(state: str) -> float | None:
        job = read_job({"job_id": 3, "job_state": state, "start_time": 1796057364})
        return slurm.from_squeue(manifest(tmp_path), job).started_at

    assert started("PENDING") is None
    assert started("RUNNING") == 1796057364


def test_what_the_job_directory_says_when_slurm_does_not(tmp_path: Path) -> None:
    job = manifest(tmp_path, time="00:05:00")
    unknown = slurm.from_job_dir(job, "why")
    assert (unknown.manifest, unknown.state, unknown.scheduler_state) == (job, "UNKNOWN", None)
    assert (unknown.time_limit, unknown.log_path, unknown.note) == (
        "00:05:00", f"{tmp_path}/fails_3.out", "why"
    )  # fmt: skip
    (tmp_path / "exit_code").write_text("4\n")
    left = slurm.from_job_dir(job, "why")
    assert (left.manifest, left.state, left.scheduler_state, left.exit_code) == (
        job, "FAILED", None, 4
    )  # fmt: skip
    assert (left.time_limit, left.log_path, left.note) == (
        "00:05:00", f"{tmp_path}/fails_3.out", "why"
    )  # fmt: skip
    assert slurm.from_job_dir(manifest(tmp_path), None).time_limit is None
    assert slurm.from_job_dir(manifest(tmp_path), None).note is None
