"""``submit`` without a launcher section runs torchrun on this node, for real (CPU, gloo)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS

pytestmark = pytest.mark.integration


def test_submit_runs_torchrun_here(torchrun: str, tmp_path: Path) -> None:
    config = tmp_path / "local.yaml"
    config.write_text("model:\n  name: tiny\n")
    done = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "submit", str(config), "--nproc-per-node", "2",
         "--entry", str(HARNESS / "allreduce.py"), "--job-dir", str(tmp_path / "job")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}",
             "PET_MASTER_PORT": str(free_port()), "OMP_NUM_THREADS": "1", "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = sorted(line for line in done.stdout.splitlines() if line.startswith("rank="))
    assert [line.split()[0] for line in lines] == ["rank=0", "rank=1"]
    assert all("world_size=2" in line and line.endswith("sum=3") for line in lines)
    assert done.stdout.rstrip().endswith(f"run finished; files in {tmp_path / 'job'}")
    assert sorted(p.name for p in (tmp_path / "job").iterdir()) == ["job_config.yaml", "run.sh"]
