"""After submit, on the real local Slurm cluster (no accounting): jobs, status, logs and
cancel, the pending reasons explained, a failed job's exit code, and 20 parallel submits.

Jobs run ``harness/ticker.py`` under torchrun (no process group needed): it prints
``rank=R tick=I`` lines and exits with a chosen code, once its gate file exists when it
has one. The tests wait for states (the job's, its reason), never for a time: a job that
must be running while it is looked at is held open by its gate.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.slurm import HARNESS, Cluster
from tests.integration.waiting import status_until
from tests.support.fake_slurm import FakeSlurm

pytestmark = pytest.mark.integration

CONFIG = """\
slurm:
  job_name: {name}
  nodes: 1
  ntasks_per_node: {ranks}
  time: "{time}"
  container_image: null
  job_dir: {jobs}
  env_vars:
    OMP_NUM_THREADS: 1
"""
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


class Cli:
    def __init__(self, cluster: Cluster, torchrun: str, tmp_path: Path) -> None:
        self.cluster = cluster
        self.tmp = tmp_path
        self.env = {
            "PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}:/usr/sbin",
            "AUTOMODEL_LAUNCH_STATE_DIR": str(tmp_path / "state"),
            "TMPDIR": str(tmp_path),
        }

    def config(self, name: str, *, ranks: int = 1, time_limit: str = "00:20:00",
               extra: str = "") -> Path:  # fmt: skip
        path = self.tmp / f"{name}.yaml"
        jobs = self.tmp / "jobs"
        path.write_text(CONFIG.format(name=name, ranks=ranks, time=time_limit, jobs=jobs) + extra)
        return path

    def run(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
        return self.cluster.run(
            sys.executable, "-m", "automodel_launch", *args,
            cwd=self.tmp, timeout=timeout, extra_env={**self.env, **env},
        )  # fmt: skip

    def submit(self, config: Path, ticks: int, seconds: float, code: int, *args: str,
               gate: Path | None = None, **env: str) -> str:  # fmt: skip
        entry = f"{HARNESS / 'ticker.py'} {ticks} {seconds} {code}" + (f" {gate}" if gate else "")
        done = self.run("submit", str(config), "--entry", entry, "--no-preflight", *args, **env)
        assert done.returncode == 0, done.stderr
        match = re.search(r"^recorded as job (\w+): ", done.stdout, re.M)
        assert match, done.stdout + done.stderr
        return match.group(1)

    def status(self, job: str, **env: str) -> dict[str, Any]:
        done = self.run("status", job, "--format", "json", **env)
        assert done.returncode == 0, done.stderr
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def wait_for(self, job: str, states: set[str], timeout: float = 300) -> dict[str, Any]:
        """The job's status once its state is one of ``states`` (the last one seen after
        ``timeout`` s: only a limit for a broken run, a loaded machine gets there first)."""
        return status_until(lambda: self.status(job), lambda s: s["state"] in states, timeout, 0.5)

    def wait_for_reason(self, job: str, reason: str, timeout: float = 120) -> dict[str, Any]:
        """As :meth:`wait_for`, for the pending reason: the scheduler settles on it in its
        next cycle."""
        return status_until(lambda: self.status(job), lambda s: s["reason"] == reason, timeout, 0.5)


@pytest.fixture
def cli(slurm_cluster: Cluster, torchrun: str, tmp_path: Path) -> Cli:
    return Cli(slurm_cluster, torchrun, tmp_path)


def test_jobs_status_logs_and_cancel_show_real_states(cli: Cli) -> None:
    # node1 is the debug partition's only node: an exclusive job there makes the next wait
    debug = "  partition: debug\n"
    exclusive = {"SBATCH_EXCLUSIVE": "exclusive"}
    # the ticker runs until the test opens its gate: it holds node1, held waits for it
    gate = cli.tmp / "ticker.gate"
    ticker_config = cli.config("ticker", ranks=2, extra=debug)
    ticker = cli.submit(ticker_config, 8, 0.1, 0, gate=gate, **exclusive)
    running = cli.wait_for(ticker, {"RUNNING", "COMPLETED", "FAILED"})
    assert running["state"] == "RUNNING", running
    held = cli.submit(cli.config("held", extra=debug), 1, 0, 0, **exclusive)
    # its own rendezvous port: every node of the test cluster is this host, where the
    # ticker's torchrun already listens on the default one
    fails = cli.submit(cli.config("fails", extra="  master_port: auto\n"), 1, 0, 3)
    assert cli.wait_for_reason(held, "Resources")["reason"] == "Resources"

    listed = cli.run("jobs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    jobs = {job["name"]: job for job in json.loads(listed.stdout)["jobs"]}
    assert [job["name"] for job in json.loads(listed.stdout)["jobs"]] == [
        "fails", "held", "ticker"
    ]  # newest first  # fmt: skip
    pending = jobs["held"]
    assert pending["id"] == held
    assert pending["launcher"] == "slurm"
    assert pending["state"] == "PENDING"
    assert pending["scheduler_state"] == "PENDING"
    assert pending["reason"] == "Resources"
    assert (
        pending["reason_explained"] == "waiting for nodes to become free; it starts when they are"
    )
    assert pending["never_starts"] is False
    assert pending["exit_code"] is None
    assert pending["nodes"] is None
    assert pending["elapsed_seconds"] is None
    assert pending["time_limit"] == "0:20:00"
    assert Path(pending["job_dir"]).parent == cli.tmp / "jobs"
    assert STAMP.match(pending["submitted_at"])
    assert pending["scheduler_id"].isdigit()
    assert jobs["ticker"]["state"] == "RUNNING"
    assert jobs["ticker"]["scheduler_state"] == "RUNNING"
    assert jobs["ticker"]["nodes"] == "node1"
    assert jobs["ticker"]["reason"] is None
    assert jobs["ticker"]["elapsed_seconds"] >= 0
    assert jobs["ticker"]["cluster"] == "automodel-launch"

    table = cli.run("jobs")
    assert table.returncode == 0, table.stderr
    rows = {line.split()[1]: line.split() for line in table.stdout.splitlines()[1:]}
    assert rows["held"][:5] == [held, "held", "slurm", pending["scheduler_id"], "PENDING"]
    assert rows["ticker"][4] == "RUNNING"

    no_output = cli.run("logs", held)
    assert no_output.returncode == 1
    assert no_output.stderr.startswith("error: no output yet: the job is PENDING (Resources); "), (
        no_output.stderr
    )
    cancelled = cli.run("cancel", held)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.splitlines()[-1] == "state: CANCELLED"
    shown = cli.status(pending["scheduler_id"])
    assert (shown["id"], shown["state"], shown["scheduler_state"]) == (
        held, "CANCELLED", "CANCELLED"
    )  # fmt: skip
    text = cli.run("status", "held")
    assert "state      CANCELLED (scheduler: CANCELLED)" in text.stdout

    # follows the running job's rank output until it ends, and exits with its code
    gate.touch()
    followed = cli.run("logs", ticker, "--follow")
    assert followed.returncode == 0, followed.stderr
    ticks = sorted(line for line in followed.stdout.splitlines() if "tick=" in line)
    assert ticks == [f"[rank{r}]:rank={r} tick={t}" for r in (0, 1) for t in range(8)]
    assert cli.status(ticker)["state"] == "COMPLETED"
    one_rank = cli.run("logs", ticker, "--rank", "1")
    assert one_rank.stdout.splitlines() == [f"rank=1 tick={t}" for t in range(8)]

    failed = cli.wait_for(fails, {"FAILED", "COMPLETED"})
    # the job's exit code is torchrun's: 1 when a rank fails (the rank's 3 is in the log)
    assert (failed["state"], failed["scheduler_state"], failed["exit_code"]) == (
        "FAILED", "FAILED", 1
    )  # fmt: skip
    assert "exitcode  : 3" in Path(failed["log_path"]).read_text()
    assert failed["log_path"] == f"{failed['job_dir']}/fails_{failed['scheduler_id']}.out"
    assert cli.run("logs", fails, "--follow").returncode == 1
    # what the job left in its directory answers when Slurm cannot be asked
    assert (Path(failed["job_dir"]) / "exit_code").read_text() == "1\n"
    unreachable = FakeSlurm(cli.tmp / "unreachable")
    unreachable.answer(
        "squeue", stderr="squeue: error: Unable to contact slurm controller\n", code=1
    )
    offline = cli.status(fails, PATH=f"{unreachable.path}:{cli.env['PATH']}")
    assert (offline["state"], offline["scheduler_state"], offline["exit_code"]) == (
        "FAILED", None, 1
    )  # fmt: skip
    assert offline["note"] == "squeue failed: squeue: error: Unable to contact slurm controller"


def test_a_job_over_the_partition_time_limit_is_shown_never_to_start(cli: Cli) -> None:
    config = cli.config("toolong", time_limit="01:00:00", extra="  partition: debug\n")
    job = cli.submit(config, 1, 0, 0)
    shown = cli.wait_for_reason(job, "PartitionTimeLimit")
    assert shown["state"] == "PENDING"
    assert shown["reason"] == "PartitionTimeLimit"
    assert shown["never_starts"] is True
    assert shown["fix_field"] == "slurm.time"
    assert "never start" in shown["reason_explained"]
    text = cli.run("status", job).stdout
    assert "reason     PartitionTimeLimit" in text
    assert f"fix: change slurm.time in {config}" in text
    table = cli.run("jobs", "--state", "pending").stdout
    assert "PENDING (never starts)" in table
    assert cli.run("cancel", job).returncode == 0
    assert cli.status(job)["state"] == "CANCELLED"


def test_twenty_parallel_submits_make_twenty_jobs(cli: Cli) -> None:
    config = cli.config("parallel", extra="  partition: maint\n")  # down: they all wait
    entry = f"{HARNESS / 'ticker.py'} 1 0 0"
    env = {**cli.cluster.env, **cli.env}
    command = [sys.executable, "-m", "automodel_launch", "submit", str(config), "--entry", entry,
               "--no-preflight"]  # fmt: skip
    processes = [
        subprocess.Popen(
            command, cwd=cli.tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(20)
    ]
    outputs = [p.communicate(timeout=600) for p in processes]  # 20 at once on a busy machine
    assert [p.returncode for p in processes] == [0] * 20, [err for _, err in outputs]
    assert not any("warning" in err or "error" in err for _, err in outputs)
    job_dirs = sorted((cli.tmp / "jobs").iterdir())
    assert len(job_dirs) == 20
    assert all((d / "manifest.json").is_file() for d in job_dirs)
    listed = json.loads(cli.run("jobs", "--format", "json").stdout)["jobs"]
    assert len(listed) == 20
    assert sorted(job["job_dir"] for job in listed) == [str(d) for d in job_dirs]
    ids = {job["scheduler_id"] for job in listed}
    assert len(ids) == 20
    assert {job["state"] for job in listed} == {"PENDING"}
    cli.cluster.run("scancel", *ids)
