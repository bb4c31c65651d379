"""Submitting from a "laptop" to the real test cluster behind a real OpenSSH server.

The server runs on 127.0.0.1 with its own host key and the test's user key; the
submitting side has no working Slurm (its Slurm commands are stand-ins that record being
called and fail, and SLURM_CONF names no file), so everything Slurm answers comes over
SSH. The cluster's commands find the test cluster through the server's ``SetEnv``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import unavailable
from tests.integration.slurm import HARNESS, Cluster
from tests.integration.sshd import Sshd, other_key, start_sshd, unknown_host_file
from tests.integration.waiting import status_until
from tests.support.fake_slurm import FakeSlurm

pytestmark = pytest.mark.integration

TOKEN = "hf_" + "RemoteTokenQx7Vb2Lm9Zc4Ws8Ny3Kd6Hp1Tf"
SLURM_PROGRAMS = ("sbatch", "squeue", "sacct", "scontrol", "scancel", "sinfo", "srun", "salloc")
CONFIG = """\
slurm:
  job_name: {name}
  nodes: 1
  ntasks_per_node: 1
  time: "00:10:00"
  container_image: null
  master_port: auto
  env_vars:
    OMP_NUM_THREADS: 1
    HF_TOKEN: ${{HF_TOKEN}}
step_scheduler:
  max_steps: 1
"""
DROPPING_RSYNC = """\
#!/bin/sh
# the cluster's rsync; while {drop} exists, the SSH connection it serves is cut instead
if [ -e {drop} ]; then
  p=$PPID
  while [ "$p" -gt 1 ]; do
    case $(cat /proc/$p/comm) in sshd*) kill -9 "$p"; exit 1;; esac
    p=$(cut -d' ' -f4 /proc/$p/stat)
  done
fi
exec /usr/bin/rsync "$@"
"""


@dataclass
class Laptop:
    cluster: Cluster
    sshd: Sshd
    tmp: Path
    env: dict[str, str]
    remote_dir: Path
    called: Path
    """Where the stand-in Slurm commands of the submitting side record being run."""

    def profiles(self, **changes: Any) -> None:
        lab: dict[str, Any] = {
            "host": f"{self.sshd.user}@127.0.0.1",
            "port": self.sshd.port,
            "ssh_options": self.sshd.ssh_options(),
            "remote_dir": str(self.remote_dir),
        }
        lab.update(changes)
        folder = self.tmp / "config" / "automodel-launch"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "profiles.yaml").write_text(json.dumps({"clusters": {"lab": lab}}))

    def config(self, name: str) -> Path:
        path = self.tmp / f"{name}.yaml"
        path.write_text(CONFIG.format(name=name))
        return path

    def run(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "automodel_launch", *args], cwd=self.tmp, env=self.env,
            capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def submit(self, name: str, *args: str) -> subprocess.CompletedProcess[str]:
        entry = f"{HARNESS / 'token_check.py'} {self.tmp / (name + '.gate')}"
        return self.run("submit", str(self.config(name)), "--remote", "lab", "--entry", entry,
                        *args)  # fmt: skip

    def status(self, job: str) -> dict[str, Any]:
        done = self.run("status", job, "--format", "json")
        assert done.returncode == 0, done.stderr
        shown: dict[str, Any] = json.loads(done.stdout)
        return shown

    def wait_for(self, job: str, states: set[str], timeout: float = 300) -> dict[str, Any]:
        return status_until(lambda: self.status(job), lambda s: s["state"] in states, timeout, 0.5)


@pytest.fixture(scope="module")
def laptop(
    slurm_cluster: Cluster, torchrun: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Laptop]:
    tmp = tmp_path_factory.mktemp("remote")
    wrappers = tmp / "cluster-bin"
    wrappers.mkdir()
    rsync = wrappers / "rsync"
    rsync.write_text(DROPPING_RSYNC.format(drop=tmp / "sshd" / "drop-copies"))
    rsync.chmod(0o755)
    cluster_path = (
        f"{wrappers}:{Path(torchrun).parent}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
    )
    server = start_sshd(
        tmp / "sshd",
        environment={"SLURM_CONF": slurm_cluster.env["SLURM_CONF"], "PATH": cluster_path},
    )
    if isinstance(server, str):
        unavailable(server)
    assert not isinstance(server, str)
    stand_ins = FakeSlurm(tmp / "no-slurm")
    for program in SLURM_PROGRAMS:
        stand_ins.answer(program, code=1)
    called = stand_ins.log
    env = {
        "PATH": f"{stand_ins.path}:{os.environ['PATH']}",
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "AUTOMODEL_LAUNCH_STATE_DIR": str(tmp / "state"),
        "SLURM_CONF": str(tmp / "no-such-slurm.conf"),
        "HF_TOKEN": TOKEN,
        "TMPDIR": "/tmp",
    }
    made = Laptop(slurm_cluster, server, tmp, env, tmp / "cluster-jobs", called)
    made.profiles()
    try:
        yield made
    finally:
        server.stop()


def _recorded(done: subprocess.CompletedProcess[str]) -> str:
    match = re.search(r"^recorded as job (\w+): ", done.stdout, re.M)
    assert match, done.stdout + done.stderr
    return match.group(1)


def _files_holding(root: Path, text: str) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as handle:
                if text.encode() in handle.read():
                    found.append(path)
    return found


def test_preflight_over_ssh_finds_a_partition_typo(laptop: Laptop) -> None:
    config = laptop.config("typo")
    done = laptop.run("validate", "--cluster", "--remote", "lab", str(config),
                      "--set", "slurm.partition=debgu")  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "unknown-partition" in done.stdout, done.stdout
    assert "debug" in done.stdout
    good = laptop.run("validate", "--cluster", "--remote", "lab", str(config))
    assert good.returncode == 0, good.stdout + good.stderr
    assert not laptop.called.exists(), laptop.called.read_text()


def test_submit_status_logs_cancel_over_ssh(laptop: Laptop) -> None:
    before = laptop.sshd.sessions()
    done = laptop.submit("gated")
    assert done.returncode == 0, done.stdout + done.stderr
    assert laptop.sshd.sessions() - before <= 2, laptop.sshd.sessions() - before
    job = _recorded(done)
    assert str(laptop.remote_dir) in done.stdout

    running = laptop.wait_for(job, {"RUNNING", "COMPLETED", "FAILED"})
    assert running["state"] == "RUNNING", running
    assert running["remote"]["name"] == "lab"
    there = Path(running["remote"]["job_dir"])
    assert there.parent == laptop.remote_dir and (there / "job.sbatch").is_file()
    assert Path(running["job_dir"]).is_dir() and Path(running["job_dir"]) != there

    other = laptop.submit("cancelled")
    assert other.returncode == 0, other.stdout + other.stderr
    cancelled_job = _recorded(other)
    stopped = laptop.run("cancel", cancelled_job)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert laptop.status(cancelled_job)["state"] == "CANCELLED"

    follow = subprocess.Popen(
        [sys.executable, "-m", "automodel_launch", "logs", "--follow", job], cwd=laptop.tmp,
        env=laptop.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()[:12]
    try:
        # the running job's first line comes over SSH while the job waits for its gate
        assert follow.stdout is not None
        ready, _, _ = select.select([follow.stdout], [], [], 180)  # a limit for a broken run
        assert ready, "logs --follow showed nothing of the running job"
        first = follow.stdout.readline()
        assert first == f"[rank0]:token_len={len(TOKEN)} token_sha={digest}\n", first
        (laptop.tmp / "gated.gate").write_text("")
        followed, complaints = follow.communicate(timeout=300)
    finally:
        follow.kill()
    assert follow.returncode == 0, followed + complaints  # it ended with the job
    assert "[rank0]:done" in followed, followed
    finished = laptop.wait_for(job, {"COMPLETED", "FAILED", "CANCELLED"})
    assert finished["state"] == "COMPLETED", finished
    shown = laptop.run("logs", job)
    assert shown.returncode == 0, shown.stderr
    assert f"token_len={len(TOKEN)} token_sha={digest}" in shown.stdout, shown.stdout

    listed = json.loads(laptop.run("jobs", "--format", "json").stdout)["jobs"]
    assert {j["id"]: j["remote"]["name"] for j in listed} == {job: "lab", cancelled_job: "lab"}
    # the token reached the job, and is in no file on either side
    for root in (laptop.tmp, laptop.remote_dir):
        assert _files_holding(root, TOKEN) == []
    assert not laptop.called.exists(), laptop.called.read_text()

    # the cluster cannot be reached: status says so and keeps the last state
    laptop.profiles(port=_closed_port())
    try:
        unreachable = laptop.status(job)
    finally:
        laptop.profiles()
    assert unreachable["state"] == "COMPLETED", unreachable
    assert "cannot reach lab" in unreachable["note"], unreachable["note"]


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("unreachable", "cannot reach lab (root@127.0.0.1:"),
        ("unknown_host_key", "its host key is not in known_hosts"),
        ("refused_key", "refused the key"),
        ("dropped_mid_copy", "dropped while copying the job directory"),
        ("refused_by_sbatch", "sbatch refused the job: "),  # copied, then taken back
    ],
)
def test_bad_networks_leave_no_job(laptop: Laptop, case: str, said: str) -> None:
    jobs_before = [
        j["id"] for j in json.loads(laptop.run("jobs", "--format", "json").stdout)["jobs"]
    ]
    there_before = sorted(p.name for p in laptop.remote_dir.glob("*"))
    drop = laptop.tmp / "sshd" / "drop-copies"
    if case == "unreachable":
        laptop.profiles(port=_closed_port())
    elif case == "unknown_host_key":
        options = laptop.sshd.ssh_options(known_hosts=unknown_host_file(laptop.tmp / case))
        laptop.profiles(ssh_options=options)
    elif case == "refused_key":
        laptop.profiles(ssh_options=laptop.sshd.ssh_options(key=other_key(laptop.tmp / case)))
    elif case == "dropped_mid_copy":
        drop.write_text("")
    try:
        extra = {
            "dropped_mid_copy": ["--no-preflight"],
            "refused_by_sbatch": ["--no-preflight", "--set", "slurm.partition=nonesuch"],
        }
        done = laptop.submit(case, *extra.get(case, []))
    finally:
        laptop.profiles()
        drop.unlink(missing_ok=True)
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and said in errors[0], done.stderr
    assert "Traceback" not in done.stderr
    jobs_after = [
        j["id"] for j in json.loads(laptop.run("jobs", "--format", "json").stdout)["jobs"]
    ]
    assert jobs_after == jobs_before
    assert sorted(p.name for p in laptop.remote_dir.glob("*")) == there_before
    assert not list((laptop.tmp / "data").rglob(f"{case}*"))


def test_dry_run_and_shell_over_ssh(laptop: Laptop) -> None:
    checked = laptop.submit("dry", "--dry-run")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "sbatch --test-only accepts the job" in checked.stdout
    assert not list(laptop.remote_dir.glob("dry*"))
    before = laptop.sshd.sessions()
    opened = laptop.run(
        "shell", str(laptop.config("shell")), "--remote", "lab", "--",
        "sh", "-c", 'echo "job=$SLURM_JOB_ID threads=$OMP_NUM_THREADS"; exit 7',
    )  # fmt: skip
    assert opened.returncode == 7, opened.stdout + opened.stderr
    assert re.search(r"^job=\d+ threads=1$", opened.stdout, re.M), opened.stdout
    assert "note: HF_TOKEN not carried into a shell on lab" in opened.stderr
    assert TOKEN not in opened.stdout + opened.stderr
    assert laptop.sshd.sessions() - before == 2
    assert not laptop.called.exists(), laptop.called.read_text()


def test_a_sweep_runs_as_one_array_on_the_cluster(laptop: Laptop) -> None:
    config = laptop.tmp / "rsweep.yaml"
    config.write_text(CONFIG.format(name="rsweep") + "optimizer:\n  lr: 0.1\n")
    entry = f"{HARNESS / 'sweep_trainer.py'} {{config}}"
    done = laptop.run("submit", str(config), "--remote", "lab", "--entry", entry,
                      "--sweep", "optimizer.lr=0.01,0.1")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    match = re.search(r"^recorded 2 points as sweep (\w+): ", done.stdout, re.M)
    assert match, done.stdout
    ended = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}
    sweep = status_until(
        lambda: laptop.status(match.group(1)), lambda s: set(s["states"]) <= ended, 300, 0.5
    )
    assert sweep["states"] == {"COMPLETED": 2}, sweep
    for index, (point, lr) in enumerate(zip(sweep["points"], ("0.01", "0.1"), strict=True)):
        there = Path(point["remote"]["job_dir"])
        assert there.parent.parent.parent == laptop.remote_dir and there.name == str(index)
        here = Path(point["job_dir"])  # the point's output, copied back with the sweep's
        log = next(here.glob("rsweep_*.out")).read_text()
        assert re.search(rf"^\[rank0\]:point lr={lr} steps=1 ", log, re.M), log
