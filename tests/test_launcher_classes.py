"""Each launcher class calls its own renderer, submitter and backend, with the arguments
it was given: Slurm through stand-in commands on PATH, SkyPilot's renderer, and the
local run in this process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.config.document import LaunchDocument
from automodel_launch.handover import Handover
from automodel_launch.jobs.manifest import Manifest
from automodel_launch.launchers import LAUNCHERS
from automodel_launch.launchers.local import render as interactive
from automodel_launch.launchers.skypilot import render as skypilot
from automodel_launch.launchers.slurm import render as slurm
from automodel_launch.loading import load_text
from automodel_launch.render.entry import JobSpec, default_entry
from tests.conftest import offline_settings
from tests.jobs.test_skypilot import FakeSdk, record
from tests.support.fake_slurm import CAPTURED, FakeSlurm

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def document(example: str) -> LaunchDocument:
    from automodel_launch.validation import validate_loaded

    loaded = load_text((EXAMPLES / example).read_text(encoding="utf-8"), example).loaded
    assert loaded is not None
    found = validate_loaded(loaded, offline_settings()).document
    assert found is not None
    return found


SPEC = JobSpec(entry=default_entry("0.7.0", "finetune", "llm"), job_dir="/jobs/x", job_name="x")


@pytest.mark.parametrize(
    ("name", "example", "renderer"),
    [
        ("slurm", "llm_finetune_slurm.yaml", slurm.render_artifact),
        ("skypilot", "llm_finetune_skypilot_spot.yaml", skypilot.render_artifact),
        ("interactive", "llm_finetune.yaml", interactive.render_artifact),
    ],
)
def test_render_is_the_launchers_renderer(name: str, example: str, renderer: Any) -> None:
    made = document(example)
    assert made.launcher == name
    assert LAUNCHERS[name].render(made, SPEC, 3) == renderer(made, SPEC, 3)


def test_the_local_command_takes_the_ranks_per_node() -> None:
    made = document("llm_finetune.yaml")
    assert "--nproc_per_node=3 " in LAUNCHERS["interactive"].render(made, SPEC, 3)


def manifest(job_dir: Path, launcher: str, scheduler_id: str | None, **details: Any) -> Manifest:
    return Manifest(
        id="abc123", name="fails", launcher=launcher, job_dir=str(job_dir),
        submitted_at="2026-11-30T16:49:19Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch", "submit", "x.yaml"), artifacts=("run.sh",),
        scheduler_id=scheduler_id, details=details,
    )  # fmt: skip


# ------------------------------------------------------------------ Slurm
def test_slurm_asks_squeue_and_scancel(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("squeue", (CAPTURED / "squeue.json").read_text())
    job = manifest(tmp_path, "slurm", "3")
    shown = LAUNCHERS["slurm"].statuses([job, job])
    assert [(s.state, s.exit_code) for s in shown] == [("FAILED", 3), ("FAILED", 3)]
    assert fake_slurm.calls == ["squeue --json"]
    assert LAUNCHERS["slurm"].cancel(job).state == "FAILED"  # ended: nothing to cancel
    assert fake_slurm.called("scancel") == []


def test_slurm_logs_keep_the_rank_asked_for(
    fake_slurm: FakeSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_slurm.answer("squeue", (CAPTURED / "squeue.json").read_text())
    (tmp_path / "fails_3.out").write_text("[rank0]:a\n[rank1]:b\n")
    job = manifest(tmp_path, "slurm", "3")
    assert LAUNCHERS["slurm"].logs(job, follow=False, rank=1) == 0
    assert capsys.readouterr().out == "b\n"
    assert LAUNCHERS["slurm"].logs(job, follow=True) == 3  # the job's own exit code
    assert capsys.readouterr().out == "[rank0]:a\n[rank1]:b\n"


def test_slurm_submit_hands_the_directory_to_sbatch(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.answer("sbatch", stderr="sbatch: Job 5 to start at now\n")
    handover = Handover(document("llm_finetune_slurm.yaml"), tmp_path, {}, {}, dry_run=True)
    done = LAUNCHERS["slurm"].submit(handover)
    assert done.summary == "sbatch --test-only accepts the job: sbatch: Job 5 to start at now"
    assert fake_slurm.calls == ["sbatch --export=ALL --test-only job.sbatch"]


# ------------------------------------------------------------------ the local run
def test_a_local_run_is_checked_and_read_back_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"run.sh": "#!/bin/bash\nset -euo pipefail\ntorchrun x\n"}
    handover = Handover(document("llm_finetune.yaml"), tmp_path, files, {}, dry_run=True)
    assert LAUNCHERS["interactive"].submit(handover).summary == "would run: torchrun x"

    (tmp_path / "exit_code").write_text("4\n")
    (tmp_path / "output.log").write_text("[rank0]:a\n[rank1]:b\n")
    job = manifest(tmp_path, "interactive", "77", pid=77, detached=True)
    shown = LAUNCHERS["interactive"].statuses([job])
    assert [(s.state, s.exit_code) for s in shown] == [("FAILED", 4)]
    assert LAUNCHERS["interactive"].cancel(job).state == "FAILED"
    assert [s.state for s in LAUNCHERS["interactive"].cancel_all([job, job])] == ["FAILED"] * 2
    assert LAUNCHERS["interactive"].logs(job, follow=True, rank=0) == 4
    assert capsys.readouterr().out == "a\n"


def test_skypilot_submit_reads_the_task_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from automodel_launch.handover import Submitted
    from automodel_launch.launchers.skypilot import submit as submitter

    seen: list[Any] = []

    def launch(task: Any, job_dir: Path, values: Any, **options: Any) -> Submitted:
        seen.append((task, job_dir, options))
        return Submitted("launched", "9")

    monkeypatch.setattr(submitter, "submit_skypilot", launch)
    made = document("llm_finetune_skypilot_spot.yaml")
    task = {"name": "x", "run": "echo"}
    handover = Handover(made, tmp_path, {"task.yaml": json.dumps(task)}, {}, dry_run=True)
    assert LAUNCHERS["skypilot"].submit(handover) == Submitted("launched", "9")
    down = made.skypilot.down  # type: ignore[union-attr]
    assert seen == [(task, tmp_path, {"dry_run": True, "down": down, "managed": False})]
    point = Handover(made, tmp_path, {"task.yaml": json.dumps(task)}, {}, sweep_point=True)
    LAUNCHERS["skypilot"].submit(point)  # a sweep's point: a managed job, spot or not
    assert seen[1] == (task, tmp_path, {"dry_run": False, "down": down, "managed": True})


@pytest.fixture
def sdk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeSdk:
    """The SDK replaced at its boundary, as in tests/jobs/test_skypilot.py."""
    sky = pytest.importorskip("sky")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")
    return FakeSdk(sky, monkeypatch)


def test_skypilot_asks_the_sdk(sdk: FakeSdk, tmp_path: Path) -> None:
    job = manifest(tmp_path, "skypilot", "5", managed=True, cluster="spotjob")
    sdk.answers["jobs.queue"] = [record("RECOVERING", start_at=1000.0)]
    shown = LAUNCHERS["skypilot"].statuses([job, job])
    assert [s.state for s in shown] == ["REQUEUED", "REQUEUED"]
    sdk.answers["jobs.tail_logs()"] = 100
    assert LAUNCHERS["skypilot"].logs(job, follow=True) == 100
    assert sdk.calls[-1] == ("jobs.tail_logs", {"job_id": 5, "follow": True})
    sdk.answers["jobs.cancel"] = None
    sdk.answers["jobs.queue"] = [record("CANCELLED")]
    assert LAUNCHERS["skypilot"].cancel(job).state == "CANCELLED"
    assert ("jobs.cancel", {"job_ids": [5]}) in sdk.calls


def test_local_runs_are_each_answered(tmp_path: Path) -> None:
    ended, gone = tmp_path / "ended", tmp_path / "gone"
    ended.mkdir()
    gone.mkdir()
    (ended / "exit_code").write_text("0\n")
    jobs = [manifest(ended, "interactive", "77", pid=77), manifest(gone, "interactive", None)]
    shown = LAUNCHERS["interactive"].statuses(jobs)
    assert [(s.state, s.note) for s in shown] == [
        ("COMPLETED", None),
        ("UNKNOWN", "the run never started"),
    ]


def test_skypilot_hands_status_logs_and_cancel_to_its_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the SDK is not installed: the backend's functions, recorded."""
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.launchers.skypilot import jobs as backend

    calls: list[Any] = []

    def statuses(manifests: list[Manifest]) -> list[JobStatus]:
        calls.append(("statuses", len(manifests)))
        return [JobStatus(m, "RUNNING") for m in manifests]

    def logs(m: Manifest, *, follow: bool, rank: int | None = None) -> int:
        calls.append(("logs", m.id, follow, rank))
        return 5

    def cancel(m: Manifest) -> JobStatus:
        calls.append(("cancel", m.id))
        return JobStatus(m, "CANCELLED")

    for name, function in (("statuses", statuses), ("logs", logs), ("cancel", cancel)):
        monkeypatch.setattr(backend, name, function)
    job = manifest(tmp_path, "skypilot", "5", managed=True)
    assert [s.state for s in LAUNCHERS["skypilot"].statuses([job, job])] == ["RUNNING"] * 2
    assert LAUNCHERS["skypilot"].logs(job, follow=True, rank=2) == 5
    assert LAUNCHERS["skypilot"].cancel(job).state == "CANCELLED"
    assert calls == [("statuses", 2), ("logs", "abc123", True, 2), ("cancel", "abc123")]
