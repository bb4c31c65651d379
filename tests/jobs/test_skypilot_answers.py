"""What SkyPilot's SDK answers is checked before use, like Slurm's output: an id that is
no number never reaches an SDK call, a record of the wrong shape is a note, and what the
SDK says is cleaned. The SDK is replaced at its boundary only (:mod:`tests.skypilot_sdk`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from automodel_launch.handover import SubmitError
from tests.jobs.test_skypilot import run, submit
from tests.skypilot_sdk import FakeSdk

TOKEN = "hf_" + "e" * 34
HOSTILE = f"\x1b]0;title\x07{TOKEN}\u202e end"
CLEANED = "\\x1b]0;title\\x07***\\u202e end"


def job_dir(tmp_path: Path) -> Path:
    [manifest] = (tmp_path / "jobs").rglob("manifest.json")
    return manifest.parent


def forge(tmp_path: Path, **fields: Any) -> str:
    """The job's manifest edited by hand; its directory, which names the job."""
    manifest = job_dir(tmp_path) / "manifest.json"
    data = json.loads(manifest.read_text())
    if "cluster" in fields:
        data["details"]["cluster"] = fields.pop("cluster")
    manifest.write_text(json.dumps({**data, **fields}))
    return str(manifest.parent)


def status(job: str) -> dict[str, Any]:
    done = run("status", job, "--format", "json")
    assert done.exit_code == 0, done.output
    shown: dict[str, Any] = json.loads(done.output)
    return shown


def test_an_id_that_is_no_number_never_reaches_the_sdk(sdk: FakeSdk, tmp_path: Path) -> None:
    submit(tmp_path, sdk, spot=True)
    for forged in ("--me", "²", "5 6", "-1"):
        job = forge(tmp_path, scheduler_id=forged)
        calls = len(sdk.calls)
        # the manifest itself refuses the id: the job is one clear error, SkyPilot not asked
        shown = run("status", job, "--format", "json")
        assert shown.exit_code == 1
        assert "is not a skypilot job id" in str(shown.exception)
        assert run("cancel", job).exit_code == 1
        assert run("logs", job).exit_code == 1
        assert len(sdk.calls) == calls


def test_a_cluster_name_that_is_not_one_never_reaches_the_sdk(sdk: FakeSdk, tmp_path: Path) -> None:
    submit(tmp_path, sdk, spot=False)
    job = forge(tmp_path, cluster="-c x")
    shown = status(job)
    assert (shown["state"], shown["note"]) == (
        "UNKNOWN",
        f"job {shown['id']}'s cluster '-c x' is not a SkyPilot cluster name (its manifest was "
        "changed?): SkyPilot was not asked",
    )
    assert sdk.calls[-1][0] == "launch"


def test_what_a_record_says_is_cleaned(sdk: FakeSdk, tmp_path: Path) -> None:
    job = submit(tmp_path, sdk, spot=True)
    sdk.answers["jobs.queue"] = [
        {"job_id": 4, "status": "RUNNING"},
        {"job_id": 5, "status": "FAILED", "failure_reason": HOSTILE, "log_path": HOSTILE},
    ]
    shown = status(job)
    assert (shown["state"], shown["reason"], shown["log_path"]) == ("FAILED", CLEANED, CLEANED)


def test_a_record_of_the_wrong_shape_is_a_note(sdk: FakeSdk, tmp_path: Path) -> None:
    job = submit(tmp_path, sdk, spot=True)
    for record, said in (
        ({"status": "RUNNING", "start_at": float("inf")}, "start_at: Input should be a finite "
         "number"),
        ({"status": "running"}, "status: String should match pattern '^[A-Z][A-Z_]{0,31}$'"),
        ({"status": None}, "status: Input should be a valid string"),
        ({"status": "FAILED", "details": ["x"]}, "details: Input should be a valid string"),
        ({"status": "FAILED", "end_at": -1.0}, "end_at: Input should be greater than or "
         "equal to 0"),
    ):  # fmt: skip
        sdk.answers["jobs.queue"] = [{"job_id": 5, **record}]
        shown = status(job)
        assert (shown["state"], shown["note"]) == (
            "UNKNOWN", f"SkyPilot's queue gave a job this version cannot read ({said})"
        )  # fmt: skip


def test_an_answer_that_is_no_list_is_a_note(sdk: FakeSdk, tmp_path: Path) -> None:
    job = submit(tmp_path, sdk, spot=True)
    sdk.answers["jobs.queue"] = {"job_id": 5}
    assert status(job)["note"] == "SkyPilot's queue gave dict, not a list of jobs"
    sdk.answers["jobs.queue"] = None
    assert status(job)["note"] == "SkyPilot no longer lists the job"
    sdk.answers["jobs.queue"] = [{"job_id": True, "status": "RUNNING"}, {"job_id": "5"}]
    assert status(job)["note"] == "SkyPilot no longer lists the job"


def test_what_the_sdk_raises_is_cleaned(sdk: FakeSdk, tmp_path: Path) -> None:
    job = submit(tmp_path, sdk, spot=True)
    sdk.answers["jobs.queue()"] = HOSTILE  # the request id the fake has no answer for
    assert status(job)["note"] == f"SkyPilot could not say (KeyError: '{CLEANED}')"


def test_an_exit_code_past_255_ends_with_1(sdk: FakeSdk, tmp_path: Path) -> None:
    job = submit(tmp_path, sdk, spot=True)
    for code, ends in ((10**100, 1), (-1, 1), (255, 255), (0, 0), (True, 0), ("3", 0)):
        sdk.answers["jobs.tail_logs()"] = code
        assert run("logs", job, "--follow").exit_code == ends


def test_a_launch_that_gives_no_job_id_is_said_and_keeps_the_files(
    sdk: FakeSdk, tmp_path: Path
) -> None:
    from tests.jobs.test_skypilot import CONFIG

    for i, (answer, said) in enumerate(
        [(("--me", None), "'--me'"), ((True, None), "True"), ((1e400, None), "inf"),
         (([HOSTILE], None), f"'{CLEANED}'"), ((2**40, None), str(2**40))]
    ):  # fmt: skip
        jobs = tmp_path / f"jobs{i}"
        config = tmp_path / "clusterjob.yaml"
        config.write_text(CONFIG.format(spot="false", name="clusterjob", jobs=jobs))
        sdk.answers["launch"] = answer
        done = run("submit", str(config))
        assert isinstance(done.exception, SubmitError)
        assert str(done.exception) == (
            f"SkyPilot launched the task but gave no job id this tool can read ({said}): "
            "look with `sky queue` or `sky jobs queue`"
        )
        [manifest] = jobs.rglob("manifest.json")  # kept: the task runs
        assert json.loads(manifest.read_text())["scheduler_id"] is None
