"""Submitting to SkyPilot. No cloud account exists here, so the SDK's three network
calls (``sky.launch``, ``sky.jobs.launch``, ``sky.stream_and_get``) are replaced by
recorders; everything up to them is SkyPilot's real code (Task parsing, secrets).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app

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
def sky_calls(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> list[tuple[str, Any, dict[str, Any]]]:
    sky = pytest.importorskip("sky") if not _required() else __import__("sky")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    monkeypatch.setattr(
        sky, "launch", lambda task, **kw: calls.append(("launch", task, kw)) or "r1"
    )
    monkeypatch.setattr(
        sky.jobs, "launch", lambda task, **kw: calls.append(("jobs.launch", task, kw)) or "r2"
    )
    monkeypatch.setattr(
        sky, "stream_and_get", lambda request: ([7] if request == "r2" else 7, None)
    )
    return calls


def _required() -> bool:
    from tests.integration.conftest import REQUIRED

    return REQUIRED


def _submit(tmp_path: Path, spot: bool) -> Any:
    config = tmp_path / "sky.yaml"
    config.write_text(SPOT.format(spot=str(spot).lower(), jobs=tmp_path / "jobs"))
    return CliRunner().invoke(app, ["submit", str(config)], env={"HF_TOKEN": TOKEN})


def test_spot_task_goes_to_managed_jobs_with_its_secret(
    sky_calls: list[Any], tmp_path: Path
) -> None:
    result = _submit(tmp_path, spot=True)
    assert result.exit_code == 0, result.output
    assert "launched SkyPilot managed job 7 (sky-job)" in result.output
    (kind, task, kwargs) = sky_calls[0]
    assert kind == "jobs.launch" and kwargs == {"name": "sky-job"}
    assert {k: v.get_secret_value() for k, v in task.secrets.items()} == {"HF_TOKEN": TOKEN}
    assert task.num_nodes == 2
    assert next(iter(task.resources)).use_spot
    (job_dir,) = (tmp_path / "jobs").iterdir()
    for file in job_dir.iterdir():
        assert TOKEN not in file.read_text()
    assert TOKEN not in result.output


def test_on_demand_task_goes_to_a_cluster(sky_calls: list[Any], tmp_path: Path) -> None:
    result = _submit(tmp_path, spot=False)
    assert result.exit_code == 0, result.output
    assert [(kind, kw) for kind, _, kw in sky_calls] == [
        ("launch", {"cluster_name": "sky-job", "idle_minutes_to_autostop": 10, "down": True})
    ]
    assert "launched SkyPilot job 7 on cluster sky-job" in result.output
    assert "  afterwards     the cluster is torn down after 10 idle minutes\n" in result.output


def test_missing_secret_is_refused_before_any_call(sky_calls: list[Any], tmp_path: Path) -> None:
    config = tmp_path / "sky.yaml"
    config.write_text(SPOT.format(spot="false", jobs=tmp_path / "jobs"))
    result = CliRunner().invoke(app, ["submit", str(config)], env={"HF_TOKEN": None})
    assert result.exit_code == 1
    assert "error[env-unset] skypilot.hf_token" in result.output
    assert sky_calls == []


def test_a_resolved_token_reaches_the_sdk_as_a_secret_and_nowhere_else(
    sky_calls: list[Any], tmp_path: Path
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
    (_, task, _) = sky_calls[0]
    assert {k: v.get_secret_value() for k, v in task.secrets.items()} == {"REPO": remote}
    assert "REPO" not in task.envs
    (job_dir,) = (tmp_path / "jobs").iterdir()
    for file in job_dir.iterdir():
        assert "Subm1tR3s0lv3d" not in file.read_text()
    assert "Subm1tR3s0lv3d" not in result.output
