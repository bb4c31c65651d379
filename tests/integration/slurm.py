"""The test Slurm cluster: start it once per session, submit, wait, read job state."""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

HARNESS = Path(__file__).parent / "harness"
HARNESS_VARIABLES = ("AUTOMODEL_LAUNCH_SLURM_", "AUTOMODEL_LAUNCH_SLURMD_")
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
            "BOOT_FAIL", "DEADLINE", "PREEMPTED"}  # fmt: skip


@dataclass
class Cluster:
    env: dict[str, str]

    def run(
        self,
        *args: str,
        cwd: Path | None = None,
        timeout: float = 30,
        extra_env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        # the test's own job registry (tests/conftest.py), not the one of the session's start
        registry = {k: v for k, v in os.environ.items() if k == "AUTOMODEL_LAUNCH_STATE_DIR"}
        return subprocess.run(
            list(args),
            cwd=cwd,
            env={**self.env, **registry, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def job_fields(self, job_id: str) -> dict[str, str]:
        """Every ``Name=value`` of one ``scontrol show job`` (empty: no such job)."""
        shown = self.run("scontrol", "show", "job", "-o", job_id).stdout
        fields: dict[str, str] = {}
        for name, value in re.findall(r"(?:^|\s)(\w+)=(\S+)", shown):
            fields.setdefault(name, value)
        return fields

    def job_field(self, job_id: str, name: str) -> str:
        return self.job_fields(job_id).get(name, "")

    def wait(self, job_id: str, timeout: float = 600) -> str:
        """Poll every 0.2 s (``sbatch --wait`` backs off to 32 s) until the job ends.

        ``timeout`` is a limit for a broken job only (it is cancelled then): a loaded
        machine runs the tests' jobs well within it."""
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            state = self.job_field(job_id, "JobState")
            if state in TERMINAL:
                return state
            time.sleep(0.2)
        self.run("scancel", job_id)
        return f"still {state} after {timeout}s"


def start_cluster() -> Cluster | str:
    """A running cluster, or the reason there is none."""
    if os.geteuid() != 0 and subprocess.run(["which", "slurmctld"], capture_output=True).returncode:
        return "Slurm is not installed and this is not root (apt-get install slurm-wlm munge)"
    started = subprocess.run(
        ["bash", str(HARNESS / "slurm_cluster.sh"), "start"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if started.returncode != 0:
        return "the test Slurm cluster did not start:\n" + started.stderr[-3000:]
    # the harness's own AUTOMODEL_LAUNCH_SLURM* variables are no settings of the tool
    env = {k: v for k, v in os.environ.items() if not k.startswith(HARNESS_VARIABLES)}
    for line in started.stdout.splitlines():
        if line.startswith("export SLURM_CONF="):
            env["SLURM_CONF"] = line.split("=", 1)[1]
    env["PATH"] = env["PATH"] + ":/usr/sbin:/sbin"
    return Cluster(env)


def stop_cluster() -> None:
    subprocess.run(
        ["bash", str(HARNESS / "slurm_cluster.sh"), "stop"], capture_output=True, timeout=120
    )
