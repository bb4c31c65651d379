"""The rendered multi-node SkyPilot ``run:`` block, executed as two simulated nodes.

Each node is a bash process with the variables SkyPilot sets on a real VM
(SKYPILOT_NUM_NODES, SKYPILOT_NODE_RANK, SKYPILOT_NODE_IPS) and the task's envs; the
two nodes are 127.0.0.1 and 127.0.0.2 on this machine. No cloud is involved.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS
from tests.render.conftest import render_text

pytestmark = pytest.mark.integration

CONFIG = """\
skypilot:
  cloud: aws
  accelerators: "T4:2"
  num_nodes: 2
  job_name: sky-allreduce
  env_vars:
    OMP_NUM_THREADS: 1
    JOB_TAG: ${RUN_TAG}
"""
LINE = re.compile(
    r"\[rank(?P<tagged>\d+)\]:"
    r"rank=(?P<rank>\d+) local_rank=\d+ world_size=(?P<world>\d+) node=(?P<node>\S+) "
    r"master_addr=(?P<addr>\S+) master_port=\d+ env_world_size=(?P<env_world>\d+) "
    r"job_tag=(?P<tag>\S*) sum=(?P<sum>\d+)$"
)


def test_run_block_on_two_simulated_nodes(torchrun: str, tmp_path: Path) -> None:
    files = render_text(
        CONFIG,
        "sky",
        entry=str(HARNESS / "allreduce.py"),
        environ={"RUN_TAG": "exp-7"},
        job_dir=str(tmp_path / "job"),
    )
    task = YAML(typ="safe").load(files["task.yaml"])
    (remote_config,) = task["file_mounts"]
    config_on_vm = tmp_path / remote_config.removeprefix("~/")
    config_on_vm.parent.mkdir(parents=True)
    config_on_vm.write_text(files["job_config.yaml"])

    base = {
        "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "SKYPILOT_NUM_NODES": "2",
        "SKYPILOT_NODE_IPS": "127.0.0.1\n127.0.0.2\n",
        "MASTER_PORT": str(free_port()),
        **task["envs"],
    }
    nodes = [
        subprocess.Popen(["bash", "-c", task["run"]], env={**base, "SKYPILOT_NODE_RANK": str(rank)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for rank in (0, 1)
    ]  # fmt: skip
    outputs = [node.communicate(timeout=120) for node in nodes]
    assert [node.returncode for node in nodes] == [0, 0], outputs

    ranks = [m.groupdict() for out, _ in outputs for m in map(LINE.match, out.splitlines()) if m]
    assert sorted(int(r["rank"]) for r in ranks) == [0, 1, 2, 3], outputs
    assert all(r["tagged"] == r["rank"] for r in ranks)  # logs --rank N keeps rank N's lines
    assert (tmp_path / ".automodel-launch" / "sky-allreduce" / "torchrun").is_dir()
    assert sorted(r["node"] for r in ranks) == ["sky0", "sky0", "sky1", "sky1"]
    assert {r["world"] for r in ranks} == {"4"}
    assert {r["env_world"] for r in ranks} == {"4"}
    assert {r["addr"] for r in ranks} == {"127.0.0.1"}
    assert {r["sum"] for r in ranks} == {"10"}
    assert {r["tag"] for r in ranks} == {"exp-7"}
