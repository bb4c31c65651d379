"""A profile and --set overrides on a real cluster: the site's values and the command
line's reach sbatch and the job, the recipe's own values stay where they win."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import Cluster

pytestmark = pytest.mark.integration

PROFILES = """\
site:
  slurm:
    partition: batch
    time: "00:03:00"
    gpus_per_node: 0
    container_image: null
    sbatch_args: [--comment=from-profile]
    env_vars:
      PROFILE_MARK: from-profile
      RECIPE_WINS: from-profile
"""
RECIPE = """\
step_scheduler:
  max_steps: 10
slurm:
  profile: site
  job_name: profiled
  ntasks_per_node: 1
  master_port: {port}
  env_vars:
    RECIPE_WINS: from-recipe
  command: |
    "{python}" -c "$REPORT"
"""
REPORT = (
    "import os; e = os.environ; print('node', e['SLURM_NODEID'], e['PROFILE_MARK'], "
    "e['RECIPE_WINS'], e['SET_MARK'], 'world', e['WORLD_SIZE'])"
)


def test_a_profile_and_overrides_reach_the_job(slurm_cluster: Cluster, tmp_path: Path) -> None:
    (tmp_path / "profiles.yaml").write_text(PROFILES)
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(RECIPE.format(port=free_port(), python=sys.executable))
    job_dir = tmp_path / "job"
    env = {**slurm_cluster.env, "AUTOMODEL_LAUNCH_SITE_PROFILES": str(tmp_path / "profiles.yaml")}
    rendered = subprocess.run(
        [sys.executable, "-m", "automodel_launch", "render", str(recipe), "--job-dir",
         str(job_dir), "--set", "slurm.nodes=2", "--set", "slurm.env_vars.SET_MARK=from-set",
         "--set", "step_scheduler.max_steps=100"],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    assert "max_steps: 100" in (job_dir / "job_config.yaml").read_text()

    submitted = slurm_cluster.run(
        "sbatch", "--parsable", "job.sbatch", cwd=job_dir, extra_env={"REPORT": REPORT}
    )
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip().split(";")[0]
    shown = slurm_cluster.run("scontrol", "show", "job", "-o", job_id).stdout
    for field in ("Comment=from-profile", "Partition=batch", "NumNodes=2", "TimeLimit=00:03:00"):
        assert field in shown, (field, shown)
    state = slurm_cluster.wait(job_id)
    output = (job_dir / f"profiled_{job_id}.out").read_text()
    assert state == "COMPLETED", output
    lines = sorted(line for line in output.splitlines() if line.startswith("node "))
    assert lines == [f"node {n} from-profile from-recipe from-set world 2" for n in (0, 1)], output
