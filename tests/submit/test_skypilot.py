"""Submitting to SkyPilot. No cloud account exists here, so the SDK's network calls
(``sky.launch``, ``sky.jobs.launch``, ``sky.stream_and_get``) are replaced by recorders
(:mod:`tests.skypilot_sdk`); everything up to them is SkyPilot's real code (Task parsing,
secrets).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from tests.skypilot_sdk import FakeSdk

TOKEN = "hf_" + "SubmitTimeTokenValue0123456789abcd"
SPOT = """\
recipe: TrainFinetuneRecipeForNextTokenPrediction
model:
  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B
step_scheduler:
  ckpt_every_steps: 50
checkpoint:
  checkpoint_dir: /ckpt
  restore_from: null
skypilot:
  cloud: gcp
  accelerators: "A100:8"
  num_nodes: 2
  use_spot: {spot}
  job_name: sky-job
  job_dir: {jobs}
  hf_token: ${{HF_TOKEN}}
"""


@pytest.fixture
def launched(sdk: FakeSdk) -> FakeSdk:
    """The SDK: ``sky.launch`` gives job 7 on the cluster, ``sky.jobs.launch`` managed job 7."""
    sdk.answers.update({"launch": (7, None), "jobs.launch": ([7], None)})
    return sdk


def _submit(tmp_path: Path, spot: bool) -> Any:
    config = tmp_path / "sky.yaml"
    config.write_text(SPOT.format(spot=str(spot).lower(), jobs=tmp_path / "jobs"))
    return CliRunner().invoke(app, ["submit", str(config)], env={"HF_TOKEN": TOKEN})


def test_spot_task_goes_to_managed_jobs_with_its_secret(launched: FakeSdk, tmp_path: Path) -> None:
    result = _submit(tmp_path, spot=True)
    assert result.exit_code == 0, result.output
    assert "launched SkyPilot managed job 7 (sky-job)" in result.output
    assert launched.calls == [("jobs.launch", {"name": "sky-job"})]
    [task] = launched.tasks
    assert {k: v.get_secret_value() for k, v in task.secrets.items()} == {"HF_TOKEN": TOKEN}
    assert task.num_nodes == 2
    assert next(iter(task.resources)).use_spot
    (job_dir,) = (tmp_path / "jobs").iterdir()
    for file in job_dir.iterdir():
        assert TOKEN not in file.read_text()
    assert TOKEN not in result.output


def test_on_demand_task_goes_to_a_cluster(launched: FakeSdk, tmp_path: Path) -> None:
    result = _submit(tmp_path, spot=False)
    assert result.exit_code == 0, result.output
    assert launched.calls == [
        ("launch", {"cluster_name": "sky-job", "idle_minutes_to_autostop": 10, "down": True})
    ]
    assert "launched SkyPilot job 7 on cluster sky-job" in result.output
    assert "  afterwards     the cluster is torn down after 10 idle minutes\n" in result.output


def test_missing_secret_is_refused_before_any_call(launched: FakeSdk, tmp_path: Path) -> None:
    config = tmp_path / "sky.yaml"
    config.write_text(SPOT.format(spot="false", jobs=tmp_path / "jobs"))
    result = CliRunner().invoke(app, ["submit", str(config)], env={"HF_TOKEN": None})
    assert result.exit_code == 1
    assert "error[env-unset] skypilot.hf_token" in result.output
    assert launched.calls == []


def test_a_resolved_token_reaches_the_sdk_as_a_secret_and_nowhere_else(
    launched: FakeSdk, tmp_path: Path
) -> None:
    remote = "https://x:" + "ghp_" + "Subm1tR3s0lv3d" * 3 + "@github.com/o/r.git"
    config = tmp_path / "sky.yaml"
    config.write_text(
        SPOT.format(spot="false", jobs=tmp_path / "jobs").replace(
            "  hf_token: ${HF_TOKEN}\n", "  env_vars:\n    REPO: ${GIT_REMOTE}\n"
        )
    )
    result = CliRunner().invoke(app, ["submit", str(config)], env={"GIT_REMOTE": remote})
    assert result.exit_code == 0, result.output
    [task] = launched.tasks
    assert {k: v.get_secret_value() for k, v in task.secrets.items()} == {"REPO": remote}
    assert "REPO" not in task.envs
    (job_dir,) = (tmp_path / "jobs").iterdir()
    for file in job_dir.iterdir():
        assert "Subm1tR3s0lv3d" not in file.read_text()
    assert "Subm1tR3s0lv3d" not in result.output
