"""A local run that is gone without an exit status (killed, its leader too) is UNKNOWN
for good: following its log and watching it end there instead of waiting forever. A run
``cancel`` stops is CANCELLED, even when its job directory cannot record it."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from automodel_launch import api
from automodel_launch.cli import errors
from automodel_launch.cli.app import run_app
from automodel_launch.jobs.manifest import MANIFEST, new_manifest
from automodel_launch.jobs.registry import open_registry
from automodel_launch.jobs.status import JobStatus
from automodel_launch.launchers.local.jobs import process_start
from tests.jobs.test_registry import cli


def _gone_run(tmp_path: Path) -> Path:
    """A detached run's directory whose leader has exited and left no exit_code."""
    leader = subprocess.Popen(["sleep", "0"])
    start = process_start(leader.pid)
    leader.wait()
    job_dir = tmp_path / "run"
    job_dir.mkdir()
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    manifest = new_manifest(
        name="run", launcher="interactive", job_dir=job_dir, config=config,
        argv=["automodel-launch", "submit", "c.yaml", "--detach"], artifacts=["run.sh"],
        environ={},
    )  # fmt: skip
    manifest = manifest.with_scheduler(
        str(leader.pid), pid=leader.pid, process_start=start, detached=True
    )
    (job_dir / MANIFEST).write_text(manifest.to_json())
    (job_dir / "output.log").write_text("[rank0]:tick=1\n[rank0]:tick=2\n")
    return job_dir


def test_following_a_run_that_is_gone_ends_with_exit_1(tmp_path: Path) -> None:
    job_dir = _gone_run(tmp_path)
    done = cli("logs", "--follow", "--rank", "0", str(job_dir), cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (1, "tick=1\ntick=2\n", "")


def test_watching_a_run_that_is_gone_ends(tmp_path: Path) -> None:
    job_dir = _gone_run(tmp_path)
    done = cli("status", "--watch", "--format", "json", str(job_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    shown = json.loads(line)
    assert (shown["state"], shown["note"]) == (
        "UNKNOWN",
        "the run is gone and left no exit status (killed, or this is another machine)",
    )
    cancelled = cli("cancel", str(job_dir), cwd=tmp_path)
    assert cancelled.stdout.splitlines()[0].endswith("had already ended: UNKNOWN")


def _running(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path, str]:
    """A detached run still running (its own process group), recorded in the registry."""
    run = subprocess.Popen(["sleep", "60"], start_new_session=True)
    job_dir = tmp_path / "jobs" / "run"
    job_dir.mkdir(parents=True)
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    manifest = new_manifest(
        name="run", launcher="interactive", job_dir=job_dir, config=config,
        argv=["automodel-launch", "submit", "c.yaml", "--detach"], artifacts=["run.sh"],
        environ={},
    ).with_scheduler(str(run.pid), pid=run.pid, process_start=process_start(run.pid),
                     detached=True)  # fmt: skip
    (job_dir / MANIFEST).write_text(manifest.to_json())
    with open_registry() as registry:
        registry.add(manifest)
    return run, job_dir, manifest.id


def test_cancel_of_a_run_whose_job_directory_was_deleted_says_it_stopped_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, job_dir, job_id = _running(tmp_path)
    try:
        shutil.rmtree(job_dir)
        assert errors.run(lambda: run_app(["cancel", job_id])) == 0
        assert run.wait(timeout=10) == -15
    finally:
        run.kill()
        run.wait()
    assert capsys.readouterr() == (
        f"cancelled job {job_id} (interactive {run.pid})\n"
        f"note: its job directory {job_dir} no longer exists: nothing records that it was "
        "cancelled, so `status` will not say CANCELLED; `automodel-launch jobs --reindex DIR` "
        "(its parent) drops this record\n"
        "state: CANCELLED\n",
        "",
    )


def test_cancel_that_cannot_mark_the_job_directory_says_so(tmp_path: Path) -> None:
    run, job_dir, job_id = _running(tmp_path)
    try:
        (job_dir / "cancelled").mkdir()  # the marker cannot replace a directory
        done = api.cancel(job_id)
        assert run.wait(timeout=10) == -15
    finally:
        run.kill()
        run.wait()
    assert isinstance(done, JobStatus)
    assert (done.state, done.scheduler_state, done.nodes, done.log_path) == (
        "CANCELLED", "cancelled", "localhost", str(job_dir / "output.log"),
    )  # fmt: skip
    assert done.note == (
        f"cannot write cancelled in its job directory {job_dir}: nothing records that it was "
        "cancelled, so `status` will not say CANCELLED"
    )
    assert done.ended_at is not None and abs(done.ended_at - time.time()) < 30


def test_a_run_that_ends_between_the_two_looks_is_read_as_it_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run writes its exit_code and then ends: a status that read no exit_code and
    then finds the process gone reads the exit_code again, never UNKNOWN for an ended run."""
    from automodel_launch.jobs.manifest import read_manifest
    from automodel_launch.launchers.local import jobs

    job_dir = _gone_run(tmp_path)
    manifest = read_manifest(job_dir)
    real = jobs._alive

    def ends_while_looked_at(looked: object) -> bool:
        (job_dir / "exit_code").write_text("0\n")  # written just before the look
        return real(looked)  # type: ignore[arg-type]

    monkeypatch.setattr(jobs, "_alive", ends_while_looked_at)
    shown = jobs.status_of(manifest)
    assert (shown.state, shown.exit_code, shown.note) == ("COMPLETED", 0, None)
