"""``shell`` and node health on the real test cluster (see harness/slurm_cluster.sh).

``shell CONFIG -- CMD`` runs CMD inside a real allocation with the recipe's variables,
and CMD's exit status comes back; a drained node makes preflight say a two-node job
waits. The node is drained for one test only and always resumed (other tests share the
cluster).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.slurm import Cluster

pytestmark = pytest.mark.integration

TOKEN = "hf_" + "Z" * 34
RECIPE = (
    "model:\n  pretrained_model_name_or_path: test/tiny\n"
    "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
)


def cli(cluster: Cluster, *args: str, cwd: Path) -> tuple[int, str, str]:
    done = cluster.run(
        sys.executable, "-m", "automodel_launch", *args, cwd=cwd, timeout=60,
        extra_env={"HF_TOKEN": TOKEN, "USER": "ada"},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def write(directory: Path, slurm: str) -> Path:
    path = directory / "job.yaml"
    path.write_text(RECIPE + "slurm:\n  container_image: null\n  ntasks_per_node: 2\n" + slurm)
    return path


def test_a_command_runs_in_an_allocation_with_the_recipes_variables(
    slurm_cluster: Cluster, tmp_path: Path
) -> None:
    config = write(
        tmp_path,
        '  time: "00:05:00"\n  env_vars:\n    GREETING: hello from ${USER}\n'
        "    HF_TOKEN: ${HF_TOKEN}\n",
    )
    script = (
        'echo "job=$SLURM_JOB_ID nodes=$SLURM_JOB_NUM_NODES $GREETING token=${#HF_TOKEN}"; exit 7'
    )
    code, out, err = cli(slurm_cluster, "shell", "--no-check-paths", str(config), "--", "sh",
                         "-c", script, cwd=tmp_path)  # fmt: skip
    assert code == 7, err
    assert re.fullmatch(rf"job=\d+ nodes=1 hello from ada token={len(TOKEN)}\n", out), out
    assert "Granted job allocation" in err and TOKEN not in out + err


@pytest.fixture
def drained(slurm_cluster: Cluster) -> Iterator[str]:
    """node2 drained with a reason, resumed whatever the test does."""
    reason = "disk check by the shell tests"
    try:
        done = slurm_cluster.run(
            "scontrol", "update", "nodename=node2", "state=drain", f"reason={reason}"
        )
        assert done.returncode == 0, done.stderr
        yield reason
    finally:
        slurm_cluster.run("scontrol", "update", "nodename=node2", "state=resume")


def test_a_drained_node_makes_preflight_say_the_job_waits(
    slurm_cluster: Cluster, drained: str, tmp_path: Path
) -> None:
    config = write(tmp_path, '  nodes: 2\n  time: "00:05:00"\n')
    code, out, err = cli(slurm_cluster, "validate", "--cluster", "--no-check-paths",
                         str(config), cwd=tmp_path)  # fmt: skip
    assert code == 0, out + err  # a warning: the job is fine, it waits
    assert (
        "warning[nodes-out-of-service] slurm.nodes: nodes: 2, but only 1 of the 2 nodes of "
        "the cluster's default partition 'batch' is in service (node2 drained ("
        + drained
        + ")): sbatch accepts the job and it pends until 1 more is back"
    ) in out
    assert "hint: set nodes: 1 or less, or choose another partition" in out
