"""SkyPilot jobs after submit. No cloud account exists here, so the SDK is replaced at
its boundary only (:mod:`tests.skypilot_sdk`: each replaced call is checked against the
installed 0.14 SDK's own signature), and answers with the SDK's own record types.
Submit records the id; status maps the state; logs and cancel call the SDK.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from tests.skypilot_sdk import FakeSdk

CONFIG = """\
step_scheduler:
  ckpt_every_steps: 50
checkpoint:
  checkpoint_dir: /ckpt
  restore_from: null
skypilot:
  cloud: gcp
  accelerators: "A100:8"
  use_spot: {spot}
  job_name: {name}
  job_dir: {jobs}
"""


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def submit(tmp_path: Path, sdk: FakeSdk, *, spot: bool) -> str:
    name = "spotjob" if spot else "clusterjob"
    config = tmp_path / f"{name}.yaml"
    config.write_text(CONFIG.format(spot=str(spot).lower(), name=name, jobs=tmp_path / "jobs"))
    sdk.answers["jobs.launch" if spot else "launch"] = ([5], None) if spot else (7, None)
    result = run("submit", str(config))
    assert result.exit_code == 0, result.output
    return str(result.output.split("recorded as job ")[1].split(":")[0])


def record(status: str, **fields: Any) -> Any:
    from sky.jobs.state import ManagedJobStatus
    from sky.schemas.api.responses import ManagedJobRecord

    return ManagedJobRecord(job_id=5, status=ManagedJobStatus(status), **fields)


def test_a_managed_job_is_recorded_shown_followed_and_cancelled(
    sdk: FakeSdk, tmp_path: Path
) -> None:
    job = submit(tmp_path, sdk, spot=True)
    assert sdk.calls == [("jobs.launch", {"name": "spotjob"})]

    sdk.answers["jobs.queue"] = [record("RECOVERING", start_at=1000.0)]
    shown = json.loads(run("status", job, "--format", "json").output)
    assert (shown["launcher"], shown["scheduler_id"], shown["cluster"]) == (
        "skypilot", "5", "spotjob"
    )  # fmt: skip
    assert (shown["state"], shown["scheduler_state"]) == ("REQUEUED", "RECOVERING")
    assert sdk.calls[-1] == (
        "jobs.queue", {"refresh": False, "skip_finished": False, "job_ids": [5]}
    )  # fmt: skip

    sdk.answers["jobs.queue"] = [record("FAILED_NO_RESOURCE", failure_reason="no A100 left")]
    by_id = json.loads(run("status", "5", "--format", "json").output)  # the scheduler id
    assert (by_id["state"], by_id["reason"], by_id["exit_code"]) == (
        "FAILED", "no A100 left", None
    )  # fmt: skip

    sdk.answers["jobs.tail_logs()"] = 100
    followed = run("logs", job, "--follow")
    assert followed.exit_code == 100
    assert sdk.calls[-1] == ("jobs.tail_logs", {"job_id": 5, "follow": True})

    sdk.answers["jobs.cancel"] = None
    sdk.answers["jobs.queue"] = [record("CANCELLED")]
    cancelled = run("cancel", job)
    assert cancelled.exit_code == 0, cancelled.output
    assert ("jobs.cancel", {"job_ids": [5]}) in sdk.calls
    assert cancelled.output.splitlines()[-1] == "state: CANCELLED"


def test_a_job_on_a_cluster_is_recorded_shown_and_cancelled(sdk: FakeSdk, tmp_path: Path) -> None:
    from sky.schemas.api.responses import ClusterJobRecord
    from sky.skylet.job_lib import JobStatus

    job = submit(tmp_path, sdk, spot=False)
    assert sdk.calls == [
        ("launch", {"cluster_name": "clusterjob", "idle_minutes_to_autostop": 10, "down": True})
    ]
    sdk.answers["queue"] = [
        ClusterJobRecord(
            job_id=7,
            job_name="clusterjob",
            username="u",
            user_hash="h",
            submitted_at=1.0,
            start_at=2.0,
            end_at=62.0,
            resources="1x",
            status=JobStatus.SUCCEEDED,
            log_path="~/sky_logs/7",
        )
    ]
    shown = json.loads(run("status", job, "--format", "json").output)
    assert (shown["state"], shown["scheduler_state"], shown["exit_code"]) == (
        "COMPLETED", "SUCCEEDED", 0
    )  # fmt: skip
    assert (shown["elapsed_seconds"], shown["log_path"]) == (60, "~/sky_logs/7")
    assert sdk.calls[-1] == ("queue", {"cluster_name": "clusterjob", "skip_finished": False})

    sdk.answers["tail_logs()"] = 0
    assert run("logs", job).exit_code == 0
    assert sdk.calls[-1] == ("tail_logs", {"cluster_name": "clusterjob", "job_id": 7,
                                           "follow": False})  # fmt: skip
    sdk.answers["cancel"] = None
    run("cancel", job)
    assert ("cancel", {"cluster_name": "clusterjob", "job_ids": [7]}) in sdk.calls


def test_an_sdk_failure_is_a_state_with_a_note(sdk: FakeSdk, tmp_path: Path) -> None:
    job = submit(tmp_path, sdk, spot=False)
    shown = json.loads(run("status", job, "--format", "json").output)  # no answer: KeyError
    assert shown["state"] == "UNKNOWN"
    assert shown["note"].startswith("SkyPilot could not say (KeyError")


SKY_LOG = (
    "\x1b[36m(head, rank=0, pid=4242)\x1b[0m [rank0]:step 1 loss 2.0\n"
    "(worker1, rank=1, pid=77) [rank1]:step 1 loss 2.1\n"
    "(head, rank=0, pid=4242) torchrun: starting 2 ranks\n"
    "(worker1, rank=1, pid=77) [rank1]:Traceback (most recent call last):\n"
    "(worker1, rank=1, pid=77) [rank12]:not rank 1\n"
    "[rank1]:an untagged node line\n"
    "(worker1, rank=1, pid=77) [rank1]:RuntimeError: CUDA out of memory"
)


@pytest.mark.parametrize("spot", [False, True])
def test_logs_of_one_rank(sdk: FakeSdk, tmp_path: Path, spot: bool) -> None:
    """SkyPilot writes the log into the stream it is given; rank 1's lines are kept,
    without SkyPilot's prefix nor the tag; its exit code is the command's."""
    job = submit(tmp_path, sdk, spot=spot)
    name = "jobs.tail_logs" if spot else "tail_logs"
    written: list[str] = []

    def tail_logs(**kwargs: Any) -> Any:
        stream = kwargs["output_stream"]
        for piece in (SKY_LOG[:30], SKY_LOG[30:200], SKY_LOG[200:]):  # pieces, not lines
            stream.write(piece)
        written.append("done")
        return 3

    sdk.answers[f"{name}()"] = tail_logs
    shown = run("logs", job, "--rank", "1")
    assert (shown.exit_code, written) == (3, ["done"])
    assert shown.output == (
        "step 1 loss 2.1\nTraceback (most recent call last):\nan untagged node line\n"
        "RuntimeError: CUDA out of memory\n"
    )
    assert sdk.calls[-1][0] == name
    assert sdk.calls[-1][1]["follow"] is False
