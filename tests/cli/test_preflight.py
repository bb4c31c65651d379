"""``--cluster`` and submit's preflight on a host without Slurm: one clear error line.

(What preflight finds on a real cluster is tested in tests/integration/test_preflight.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SLURM = 'slurm:\n  time: "01:00:00"\n  container_image: null\nmodel:\n  name: tiny\n'
NO_SLURM = (
    "no Slurm on this host: scontrol is not on PATH; run it on a Slurm login node "
    "(SLURM_CONF set if slurm.conf is elsewhere)"
)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    empty = cwd / "empty-bin"
    empty.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(empty)},
    )  # fmt: skip


def test_validate_cluster_without_slurm_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SLURM)
    for fmt in ("text", "json"):
        done = cli("validate", "--cluster", "-f", fmt, "job.yaml", cwd=tmp_path)
        assert done.returncode == 1
        assert done.stdout == ""
        assert done.stderr == f"error: --cluster: {NO_SLURM}\n"


def test_validate_cluster_asks_nothing_without_a_slurm_config(tmp_path: Path) -> None:
    (tmp_path / "local.yaml").write_text("model:\n  name: tiny\n")
    done = cli("validate", "--cluster", "local.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 file checked: no problems\n"


def test_submit_without_slurm_names_the_way_around(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SLURM)
    for dry_run in ((), ("--dry-run",)):
        done = cli("submit", *dry_run, "job.yaml", "--job-dir", "run1", cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr == (
            f"error: preflight: {NO_SLURM}\n"
            "    hint: pass --no-preflight to submit without asking the cluster\n"
        )
        assert not (tmp_path / "run1").exists()
