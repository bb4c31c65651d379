"""A rendered bare-metal SBATCH script, submitted with plain sbatch to a real cluster.

Two virtual nodes, two CPU ranks each; every rank runs a gloo all_reduce. The job's
output proves 4 ranks on both nodes, WORLD_SIZE=4, MASTER_ADDR = the first node, and
the right sum.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS, Cluster

pytestmark = pytest.mark.integration

LINE = re.compile(
    r"(?:\[rank\d+\]:)?"  # torchrun's tag of each line (logs --rank)
    r"rank=(?P<rank>\d+) local_rank=\d+ world_size=(?P<world>\d+) node=(?P<node>\S+) "
    r"master_addr=(?P<addr>\S+) master_port=\d+ env_world_size=(?P<env_world>\d+) "
    r"job_tag=(?P<tag>.*) sum=(?P<sum>\d+)$"
)
CONFIG = """\
slurm:
  job_name: allreduce
  nodes: 2
  ntasks_per_node: 2
  gpus_per_node: 0
  time: "00:03:00"
  container_image: null
  master_port: {port}
  env_vars:
    OMP_NUM_THREADS: 1
    TMPDIR: {tmp}
    JOB_TAG: "it's run-${{SLURM_JOB_ID}} $(not run)"
"""


def render_job_dir(tmp_path: Path, port: int) -> Path:
    config = tmp_path / "allreduce.yaml"
    config.write_text(CONFIG.format(port=port, tmp=tmp_path))
    job_dir = tmp_path / "job"
    subprocess.run(
        [sys.executable, "-m", "automodel_launch", "render", str(config), "--job-dir",
         str(job_dir), "--entry", str(HARNESS / "allreduce.py")],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return job_dir


def test_rendered_script_runs_four_ranks_on_two_nodes(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    job_dir = render_job_dir(tmp_path, free_port())
    path = f"{Path(torchrun).parent}:{os.environ['PATH']}"
    submitted = slurm_cluster.run(
        "sbatch", "--parsable", "job.sbatch", cwd=job_dir, extra_env={"PATH": path}
    )
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip().split(";")[0]

    state = slurm_cluster.wait(job_id)
    output = (job_dir / f"allreduce_{job_id}.out").read_text()
    assert state == "COMPLETED", output

    ranks = [m.groupdict() for m in map(LINE.match, output.splitlines()) if m]
    assert sorted(int(r["rank"]) for r in ranks) == [0, 1, 2, 3], output
    assert sorted(r["node"] for r in ranks) == ["node1", "node1", "node2", "node2"]
    assert {r["node"] for r in ranks if int(r["rank"]) < 2} == {"node1"}
    assert {r["world"] for r in ranks} == {"4"}
    assert {r["env_world"] for r in ranks} == {"4"}
    assert {r["addr"] for r in ranks} == {"node1"}
    assert {r["sum"] for r in ranks} == {"10"}
    assert {r["tag"] for r in ranks} == {f"it's run-{job_id} $(not run)"}


def test_invalid_time_is_what_sbatch_rejects(slurm_cluster: Cluster) -> None:
    """Slurm's own parser agrees with ours on a sample, including the normalised limit."""
    from automodel_launch.config import slurm_time

    accepted = ["30", "30:00", "0:90:00", "25:99:99", "1-0", "2-", "1-2:3", "1-2:3:4",
                "4:00:00", "UNLIMITED", "infinite", "-1", "0:30", "0"]  # fmt: skip
    rejected = ["4h", "3600.0", "1:2:3:4", "1-2-3", "1:2-3", "1::2", "abc"]
    for value in accepted:
        held = slurm_cluster.run(
            "sbatch", "--parsable", "--hold", f"--time={value}", "--wrap=true", "--output=/dev/null"
        )
        assert held.returncode == 0, (value, held.stderr)
        job_id = held.stdout.strip().split(";")[0]
        limit = slurm_cluster.job_field(job_id, "TimeLimit")
        slurm_cluster.run("scancel", job_id)
        assert limit == slurm_time.parse(value).normalized, value
    for value in rejected:
        refused = slurm_cluster.run("sbatch", "--test-only", f"--time={value}", "--wrap=true")
        assert "Invalid --time specification" in refused.stderr, (value, refused.stderr)
        with pytest.raises(slurm_time.TimeError):
            slurm_time.parse(value)


def _submit(
    cluster: Cluster, config: Path, torchrun: str, *args: str
) -> subprocess.CompletedProcess[str]:
    path = f"{Path(torchrun).parent}:{os.environ['PATH']}:/usr/sbin"
    return cluster.run(
        sys.executable,
        "-m",
        "automodel_launch",
        "submit",
        str(config),
        "--entry",
        str(HARNESS / "allreduce.py"),
        *args,
        cwd=config.parent,
        extra_env={"PATH": path},
        timeout=180,
    )


def test_submit_command_runs_the_job(slurm_cluster: Cluster, torchrun: str, tmp_path: Path) -> None:
    config = tmp_path / "allreduce.yaml"
    config.write_text(
        CONFIG.format(port=free_port(), tmp=tmp_path) + f"  job_dir: {tmp_path}/jobs\n"
    )

    checked = _submit(slurm_cluster, config, torchrun, "--dry-run")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("sbatch --test-only accepts the job: ")
    assert not (tmp_path / "jobs").exists() or not any((tmp_path / "jobs").iterdir())

    submitted = _submit(slurm_cluster, config, torchrun)
    assert submitted.returncode == 0, submitted.stderr
    match = re.match(r"submitted Slurm job (\d+); files and log in (\S+)", submitted.stdout)
    assert match, submitted.stdout
    job_id, job_dir = match.group(1), Path(match.group(2))
    assert job_dir.parent == tmp_path / "jobs"
    assert {p.name for p in job_dir.iterdir()} >= {"job.sbatch", "job_config.yaml", "manifest.json"}
    assert slurm_cluster.wait(job_id) == "COMPLETED"
    output = (job_dir / f"allreduce_{job_id}.out").read_text()
    assert sorted(int(m["rank"]) for m in map(LINE.match, output.splitlines()) if m) == [0, 1, 2, 3]


def test_submit_refuses_an_unset_reference(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    config = tmp_path / "needs_token.yaml"
    config.write_text(
        CONFIG.format(port=free_port(), tmp=tmp_path)
        + f"  job_dir: {tmp_path}/jobs\n  hf_token: ${{AUTOMODEL_LAUNCH_TEST_UNSET_TOKEN}}\n"
    )
    refused = _submit(slurm_cluster, config, torchrun)
    assert refused.returncode == 1
    assert (
        "error[env-unset] slurm.hf_token: ${AUTOMODEL_LAUNCH_TEST_UNSET_TOKEN} is not set"
        in refused.stderr
    )
    assert not (tmp_path / "jobs").exists()
