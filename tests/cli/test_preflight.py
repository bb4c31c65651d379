"""``--cluster`` and submit's preflight on a host without Slurm: one clear error line.

(What preflight finds on a real cluster is tested in tests/integration/test_preflight.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.support.fake_slurm import FakeSlurm

SLURM = (
    'slurm:\n  time: "01:00:00"\n  container_image: null\nmodel:\n  name: tiny\n'
    "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
)
NO_SLURM = (
    "no Slurm on this host: scontrol is not on PATH; run it on a Slurm login node "
    "(SLURM_CONF set if slurm.conf is elsewhere)"
)


def cli(*args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI with only ``path`` on PATH (the stand-ins for Slurm), else an empty
    ``cwd/bin``: no Slurm."""
    bin_dir = cwd / "bin"
    bin_dir.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "automodel_launch", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PATH": path or str(bin_dir)},
    )  # fmt: skip


TOKEN = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"
HOSTILE = f"""\
#!/bin/sh
case "$*" in
  ping) echo "Slurmctld(primary) at c1 is UP" ;;
  *partition*) printf 'PartitionName={TOKEN}\\033[2Jp State=UP Default=YES MaxTime=02:00:00 \
MaxMemPerNode=1000 TotalNodes=2 Nodes=n[1-999999999999]\\n' ;;
  *node*) echo "NodeName=n1 CPUTot=4 RealMemory=64000 Gres=gpu:4" ;;
  *) echo "AccountingStorageType = accounting_storage/none" ;;
esac
"""


def test_hostile_cluster_output_is_neither_leaked_nor_obeyed(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    """A partition name with a token and an escape reaches messages redacted and shown as
    text; a host list of a trillion names is not expanded (no hang, no crash): it is
    unknown, and a note says so."""
    fake_slurm.tool("scontrol", HOSTILE)
    (tmp_path / "job.yaml").write_text(SLURM.replace("  container", "  mem: 2G\n  container"))
    done = cli("validate", "--cluster", "job.yaml", cwd=tmp_path, path=fake_slurm.path)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[:3] == [
        "job.yaml:1:1: note[scheduler-output] slurm: `scontrol show partition`: cannot read "
        "Nodes of partition '***\\x1b[2Jp' ('n[1-999999999999]'); not checked",
        "job.yaml:3:8: error[mem-over-node] slurm.mem: mem: 2G (2048M per node) is more than "
        "the MaxMemPerNode of the cluster's default partition '***\\x1b[2Jp' (1000M): sbatch "
        "refuses the job (Memory specification can not be satisfied)",
        "    hint: set mem: 1000M or less, or mem: 0 for all the memory of each node",
    ]
    assert TOKEN not in done.stdout


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
    assert done.stdout == "1 file checked against AutoModel 0.7.0 (installed here): no problems\n"


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
