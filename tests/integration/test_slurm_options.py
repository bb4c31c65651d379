"""The sbatch options people use, on a real cluster: a rendered script with setup, command,
repo_root, chdir, exclusive and sbatch_args, submitted with plain sbatch.

The job proves what each does: sbatch took every #SBATCH line (scontrol shows them), the
setup ran once in the batch shell and its environment reached both nodes, the command
ran on each node instead of torchrun, repo_root leads PYTHONPATH, chdir is the working
directory.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import Cluster

pytestmark = pytest.mark.integration

CONFIG = """\
slurm:
  job_name: options
  nodes: 2
  ntasks_per_node: 2
  gpus_per_node: 0
  exclusive: true
  time: "00:03:00"
  container_image: null
  master_port: {port}
  cpus_per_task: 1
  mem: 100M
  mail_type: fail
  dependency: singleton
  chdir: {tmp}/work
  repo_root: {tmp}/repo
  sbatch_args: [--comment=options-test, --hint=nomultithread]
  setup:
    - echo "setup ran on $(hostname)" >> "$JOB_DIR/setup.log"
    - export SETUP_MARK="from setup"
  command: |
    "{python}" -c "$REPORT"
"""
REPORT = (
    "import os, sys; e = os.environ; print('node', e['SLURM_NODEID'], 'path', sys.path[1], "
    "'cwd', os.getcwd(), 'mark', e['SETUP_MARK'], 'world', e['WORLD_SIZE'])"
)


def test_options_reach_slurm_and_the_job(slurm_cluster: Cluster, tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "repo").mkdir()
    config = tmp_path / "options.yaml"
    config.write_text(CONFIG.format(port=free_port(), tmp=tmp_path, python=sys.executable))
    job_dir = tmp_path / "job"
    rendered = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "render", str(config), "--job-dir",
         str(job_dir)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    assert "warning[command-replaces-torchrun]" in rendered.stderr

    submitted = slurm_cluster.run(
        "sbatch", "--parsable", "job.sbatch", cwd=job_dir, extra_env={"REPORT": REPORT}
    )
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip().split(";")[0]
    shown = slurm_cluster.run("scontrol", "show", "job", "-o", job_id).stdout
    for field in ("Comment=options-test", f"WorkDir={tmp_path}/work", "MinMemoryNode=100M",
                  "OverSubscribe=NO", "MailType=FAIL"):  # fmt: skip
        assert field in shown, (field, shown)

    state = slurm_cluster.wait(job_id)
    output = (job_dir / f"options_{job_id}.out").read_text()
    assert state == "COMPLETED", output
    lines = sorted(line for line in output.splitlines() if line.startswith("node "))
    assert lines == [
        f"node {n} path {tmp_path}/repo cwd {tmp_path}/work mark from setup world 4" for n in (0, 1)
    ], output
    assert (job_dir / "setup.log").read_text().count("setup ran on") == 1
