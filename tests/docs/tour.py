"""Running the console examples of the README and the docs against a stand-in cluster.

The stand-in is the test cluster's own captured answers (``tests/launchers/slurm/cluster/captured``,
``tests/jobs/captured``) with what a training cluster's login node adds: 8-GPU nodes,
pyxis, enroot 4 and enforced associations. ``sbatch`` takes job 4242; ``squeue`` shows
it running for 12 minutes 34 seconds. What changes from run to run (the directory the
example runs in, registry ids, dates, the seconds of an elapsed time) is normalised on
both sides before the output is compared.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.support.fake_slurm import FakeSlurm

CLUSTER = ROOT / "tests" / "launchers" / "slurm" / "cluster" / "captured"
SQUEUE_JSON = ROOT / "tests" / "jobs" / "captured" / "squeue.json"
SHOWN_DIR = "/tmp/llm"
"""The directory the examples were run in, as the pages show it."""

PYXIS = (
    "      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH\n"
    "                              [pyxis] the image to use for the container\n"
)
SCONTROL = """#!/bin/sh
case "$*" in
  "ping") echo "Slurmctld(primary) at ctl1 is UP";;
  "--all show partition -o") cat "{answers}/partition.txt";;
  "--all show node -o") cat "{answers}/node.txt";;
  "show config") cat "{answers}/config.txt";;
  *) echo "scontrol: unexpected $*" >&2; exit 1;;
esac
"""
SBATCH = """#!/bin/sh
case "$*" in
  *--test-only*) echo "sbatch: Job 4243 to start at 2026-12-02T01:05:12 using 16 processors \
on nodes node[1-2] in partition batch" >&2;;
  *) echo 4242;;
esac
"""
SQUEUE = """#!{python}
import json, time
answer = json.load(open({captured!r}))
now = int(time.time())
job = {{
    **answer["jobs"][2], "job_id": 4242, "name": "llm_finetune", "job_state": "RUNNING",
    "state_reason": "None", "nodes": "node[1-2]", "node_count": 2, "partition": "batch",
    "account": "llm_team", "submit_time": now - 790, "start_time": now - 754,
    "end_time": now + 13646, "time_limit": 240, "exit_code": 0,
}}
print(json.dumps({{**answer, "jobs": [job]}}))
"""


def fake_cluster(root: Path) -> Path:
    """Write the stand-in Slurm commands under ``root``; return the directory for PATH."""
    answers = root / "answers"
    answers.mkdir(parents=True)
    slurm = FakeSlurm(root)
    node = (CLUSTER / "scontrol_show_node.txt").read_text(encoding="utf-8")
    (answers / "node.txt").write_text(node.replace("Gres=gpu:4", "Gres=gpu:8"), encoding="utf-8")
    shutil.copy(CLUSTER / "scontrol_show_partition.txt", answers / "partition.txt")
    config = (CLUSTER / "scontrol_show_config.txt").read_text(encoding="utf-8")
    config = re.sub(r"(?m)^(AccountingStorageEnforce\s*=) none$", r"\1 associations,limits", config)
    config = config.replace("accounting_storage/none", "accounting_storage/slurmdbd")
    (answers / "config.txt").write_text(config, encoding="utf-8")
    srun_help = (CLUSTER / "srun_help.txt").read_text(encoding="utf-8") + PYXIS
    slurm.tool("scontrol", SCONTROL.format(answers=answers))
    slurm.answer("srun", srun_help)
    slurm.answer("sacctmgr", "llm_team||normal\n")
    slurm.answer("enroot", "4.0.1\n")
    slurm.answer("sacct")
    slurm.tool("sbatch", SBATCH)
    slurm.tool("squeue", SQUEUE.format(python=sys.executable, captured=str(SQUEUE_JSON)))
    return slurm.bin


def console_steps(text: str) -> list[tuple[str, str]]:
    """Each ``$ command`` of the page's ```console blocks, with the output shown under it."""
    steps: list[tuple[str, str]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            steps.append((command, output))
    return steps


def run_step(command: str, cwd: Path, env: dict[str, str]) -> str:
    """What a terminal shows for ``command``: stderr and stdout, as the tool writes them."""
    program = f"{shlex.quote(sys.executable)} -m automodel_launch"
    script = re.sub(r"^automodel-launch\b", program, command)
    done = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, timeout=60,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    return done.stdout


def tour_env(bin_dir: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.startswith(("AUTOMODEL_LAUNCH_", "XDG_"))}
    return env | {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "HF_TOKEN": "set-where-you-submit",
        "TERM": "dumb",
    }


def normalised(text: str, cwd: Path | None = None) -> str:
    if cwd is not None:
        text = text.replace(str(cwd), SHOWN_DIR)
    text = re.sub(r"\b[0-9a-f]{12}\b", "<id>", text)
    text = re.sub(r"(?<!\d)\d{8}-\d{6}(?!\d)", "<stamp>", text)
    text = re.sub(r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b", "<time>", text)
    text = re.sub(r"\b0:12:\d\d\b", "0:12:<s>", text)
    return "\n".join(line.rstrip() for line in text.splitlines())
