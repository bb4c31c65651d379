"""A local run that is gone without an exit status (killed, its leader too) is UNKNOWN
for good: following its log and watching it end there instead of waiting forever."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from automodel_launch.jobs.local import process_start
from automodel_launch.jobs.manifest import MANIFEST, new_manifest
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
