"""A sweep on SkyPilot: one managed job per point (spot or not), all at once, or at most
``--max-parallel`` in flight through the sweep's driver process. No cloud account exists
here: the SDK's network calls are replaced by a stand-in cloud
(:mod:`tests.submit.skypilot_cloud`), in this process and in the driver's; everything up
to them is SkyPilot's real code (Task parsing, secrets).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from automodel_launch.cli.app import app
from tests.submit.skypilot_cloud import VARIABLE, Cloud

TOKEN = "hf_" + "SweepTimeTokenValue0123456789abcde"
CONFIG = """\
recipe: TrainFinetuneRecipeForNextTokenPrediction
model:
  pretrained_model_name_or_path: meta-llama/Llama-3.2-1B
optimizer:
  lr: 0.1
step_scheduler:
  ckpt_every_steps: 50
checkpoint:
  checkpoint_dir: /ckpt
  restore_from: null
skypilot:
  cloud: gcp
  accelerators: "A100:8"
  use_spot: false
  job_name: sky-sweep
  job_dir: {jobs}
  hf_token: ${{HF_TOKEN}}
"""
SITE = Path(__file__).parent / "fake_sky_site"
ROOT = Path(__file__).parents[2]


@pytest.fixture
def cloud(sky_sdk: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Cloud:
    made = Cloud(tmp_path / "cloud")
    made.install(sky_sdk, monkeypatch.setattr)
    return made


def submit(tmp_path: Path, *options: str) -> Any:
    config = tmp_path / "sky.yaml"
    config.write_text(CONFIG.format(jobs=tmp_path / "jobs"))
    return CliRunner().invoke(
        app, ["submit", str(config), "--sweep", "optimizer.lr=1e-5,1e-4,1e-3", *options],
        env={"HF_TOKEN": TOKEN},
    )  # fmt: skip


def points(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    (root,) = (tmp_path / "jobs").iterdir()
    return root, [json.loads((root / f"points/{i}/manifest.json").read_text()) for i in range(3)]


def no_token_anywhere(root: Path) -> None:
    for file in root.rglob("*"):
        assert not file.is_file() or TOKEN not in file.read_text(), file


def test_each_point_is_a_managed_job_all_at_once(cloud: Cloud, tmp_path: Path) -> None:
    result = submit(tmp_path)
    assert result.exit_code == 0, result.output
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    root, manifests = points(tmp_path)
    assert cloud.launched() == [
        {"job_id": i + 1, "name": "sky-sweep", "config": str(root / f"points/{i}/job_config.yaml"),
         "secrets": {"HF_TOKEN": digest}}
        for i in range(3)
    ]  # fmt: skip
    for index in range(3):
        assert f"launched SkyPilot managed job {index + 1} (sky-sweep)" in result.output
    assert [(m["scheduler_id"], m["details"]["managed"]) for m in manifests] == [
        ("1", True), ("2", True), ("3", True)
    ]  # fmt: skip
    assert not (root / "driver.json").exists()  # nothing to wait for: no driver
    sweep = manifests[0]["sweep"]
    assert f"recorded 3 points as sweep {sweep}" in result.output
    no_token_anywhere(root)
    assert TOKEN not in result.output
    shown = CliRunner().invoke(app, ["status", sweep, "--format", "json"])
    assert shown.exit_code == 0, shown.output
    assert [p["state"] for p in json.loads(shown.output)["points"]] == ["RUNNING"] * 3
    assert cloud.queues() == [[1, 2, 3]]  # one queue call for the whole sweep


def test_a_dry_run_checks_each_point_as_a_managed_job(cloud: Cloud, tmp_path: Path) -> None:
    result = submit(tmp_path, "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output.count("SkyPilot accepts the task (managed job sky-sweep)") == 3
    assert cloud.launched() == []


def test_at_most_k_in_flight_through_the_driver(
    cloud: Cloud, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", f"{SITE}:{ROOT}")  # the driver's SDK: the same stand-in
    monkeypatch.setenv(VARIABLE, str(cloud.root))
    monkeypatch.setenv("AUTOMODEL_LAUNCH_POLL_SECONDS", "0.1")
    for job_id in (1, 3):  # they run until the test lets them end; job 2 ends by itself
        cloud.set_state(job_id, "RUNNING")
    result = submit(tmp_path, "--max-parallel", "2")
    assert result.exit_code == 0, result.output
    root, manifests = points(tmp_path)
    assert "started the sweep's driver (pid " in result.output
    assert f"at most 2 at once; its output in {root / 'driver.log'}" in result.output
    sweep = manifests[0]["sweep"]

    def states() -> list[str]:
        shown = CliRunner().invoke(app, ["status", sweep, "--format", "json"])
        assert shown.exit_code == 0, shown.output
        return [p["state"] for p in json.loads(shown.output)["points"]]

    deadline = time.monotonic() + 60
    while len(cloud.launched()) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [point["job_id"] for point in cloud.launched()] == [1, 2, 3]
    assert states() == ["RUNNING", "COMPLETED", "RUNNING"]  # point 2 started once 1 ended
    cloud.set_state(1, "SUCCEEDED")
    cloud.set_state(3, "FAILED")
    log = root / "driver.log"
    while "every point ended" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert log.read_text().rstrip().endswith("every point ended"), log.read_text()
    assert states() == ["COMPLETED", "COMPLETED", "FAILED"]
    driver_calls = cloud.queues(others=True)  # the driver's: one a poll
    assert all(len(ids) <= 2 for ids in driver_calls)  # never more than 2 in flight
    assert [1, 2] in driver_calls and [1, 3] in driver_calls
    assert [json.loads((root / f"points/{i}/manifest.json").read_text())["scheduler_id"]
            for i in range(3)] == ["1", "2", "3"]  # fmt: skip
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    assert all(p["secrets"] == {"HF_TOKEN": digest} for p in cloud.launched())
    no_token_anywhere(root)  # not in driver.json, driver.log, nor any point's files


def test_a_sweeps_managed_jobs_are_one_queue_call_or_none(
    cloud: Cloud, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sky

    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.launchers.skypilot.jobs import statuses

    def job(job_id: str) -> Manifest:
        return Manifest(
            id=f"abc{job_id:0>9}", name="sky-sweep", launcher="skypilot", job_dir=str(tmp_path),
            submitted_at="2026-11-30T16:49:19Z", config_path="/x.yaml", config_sha256="0" * 64,
            command_line=("automodel-launch",), artifacts=("task.yaml",), scheduler_id=job_id,
            details={"managed": True},
        )  # fmt: skip

    cloud.set_state(4, "SUCCEEDED")
    shown = statuses([job("4"), job("5"), job("6")])
    assert [s.state for s in shown] == ["COMPLETED", "RUNNING", "RUNNING"]
    assert cloud.queues() == [[4, 5, 6]]

    def down(request: Any) -> Any:
        raise RuntimeError("the API server is down")

    monkeypatch.setattr(sky, "stream_and_get", down)
    shown = statuses([job("4"), job("5")])
    assert [(s.state, s.note) for s in shown] == [
        ("UNKNOWN", "SkyPilot could not say (RuntimeError: the API server is down)")
    ] * 2


def test_a_sweep_over_skypilot_fields_is_a_managed_job_per_point(
    cloud: Cloud, tmp_path: Path
) -> None:
    """No job array to share: each point is a managed job with a task of its own, so a
    swept ``skypilot:`` field is each point's own (on Slurm it splits the sweep into
    arrays)."""
    config = tmp_path / "sky.yaml"
    config.write_text(CONFIG.format(jobs=tmp_path / "jobs"))
    result = CliRunner().invoke(
        app, ["submit", str(config), "--sweep", "skypilot.accelerators=A100:8,H100:8"],
        env={"HF_TOKEN": TOKEN},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (root,) = (tmp_path / "jobs").iterdir()
    made = [json.loads((root / f"points/{i}/manifest.json").read_text()) for i in range(2)]
    assert [m["values"] for m in made] == [
        {"skypilot.accelerators": "A100:8"}, {"skypilot.accelerators": "H100:8"}
    ]  # fmt: skip
    assert [m["scheduler_id"] for m in made] == ["1", "2"]
    assert len(cloud.launched()) == 2
    tasks = [(root / f"points/{i}/task.yaml").read_text() for i in range(2)]
    assert ["A100:8" in t and "H100" not in t for t in tasks] == [True, False]
    assert ["H100:8" in t and "A100" not in t for t in tasks] == [False, True]
