"""On the real local Slurm cluster: jobs notify a receiver on 127.0.0.1 themselves.

A job whose rank fails sends ``start`` then ``fail`` with the failure's cause; a job that
is requeued before its time limit sends ``requeue`` and, once its second run completes,
``end``, in that order; a job whose receiver never answers ends with its own exit status,
later by at most the notifications' bound. The webhook's URL reaches the jobs through the
submitting environment only: it is in no file of their job directories (their logs are
there), in no output of the command line and in no file of its registry.

The jobs of each test are submitted at once and waited for together; the tests wait on
states, never on the clock (the requeued job is made eligible as soon as Slurm holds it,
as in test_slurm_requeue.py).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.launchers.slurm.notify import KILL_AFTER
from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS, Cluster
from tests.integration.test_slurm_requeue import RUN_TIMEOUT, release_when_requeued
from tests.integration.tool import Tool

pytestmark = pytest.mark.integration

VARIABLE = "TEAM_WEBHOOK_URL"
SECRET_PATH = "/hooks/T0-s3cr3t-1a2b3c4d5e6f"
NOTIFY = """\
  notify:
    webhook_env: {variable}
    timeout_seconds: {timeout}
    events: [start, end, fail, requeue]
"""
CONFIG = """\
slurm:
  job_name: {name}
  nodes: {nodes}
  ntasks_per_node: {ranks}
  gpus_per_node: 0
  time: "00:05:00"
  container_image: null
  master_port: {port}
  job_dir: {jobs}
  env_vars:
    OMP_NUM_THREADS: 1
"""
REQUEUE_CONFIG = """\
optimizer:
  lr: 0.1
slurm:
  job_name: requeue
  nodes: 1
  ntasks_per_node: 1
  gpus_per_node: 0
  time: "4"
  signal: USR1@150
  requeue: true
  max_requeues: 1
  container_image: null
  master_port: {port}
  env_vars:
    OMP_NUM_THREADS: 1
    CKPT_DIR: {tmp}/ckpt
    TOTAL_STEPS: 120
"""


class Receiver:
    """A webhook on 127.0.0.1 that keeps every JSON body it is sent, by job, in order."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name
                size = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(size))
                with received.lock:
                    received.bodies.append(body)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{SECRET_PATH}"

    def of(self, job_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return [body for body in self.bodies if body["job_id"] == job_id]

    def events(self, job_id: str) -> list[str]:
        return [body["event"] for body in self.of(job_id)]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()
    found.server.server_close()


class Cli(Tool):
    """The command line as a user runs it, the webhook's URL in its environment."""

    def __init__(self, cluster: Cluster, torchrun: str, tmp_path: Path, url: str) -> None:
        super().__init__(cluster, torchrun, tmp_path, **{VARIABLE: url})

    def submit(self, name: str, entry: str, *, nodes: int = 1, ranks: int = 1,
               timeout: int = 5) -> str:  # fmt: skip
        config = self.tmp / f"{name}.yaml"
        config.write_text(
            CONFIG.format(name=name, nodes=nodes, ranks=ranks, port=free_port(),
                          jobs=self.tmp / "jobs")
            + NOTIFY.format(variable=VARIABLE, timeout=timeout)
        )  # fmt: skip
        return self.submitted(config, entry)


def assert_url_nowhere(url: str, folders: list[Path], outputs: list[str]) -> None:
    """Not in any file under ``folders`` (job directories, their logs, the registry), not
    in any output."""
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                text = path.read_bytes()
                assert SECRET_PATH.encode() not in text, path
    for output in outputs:
        assert SECRET_PATH not in output and url not in output, output


def scheduler_id(shown: dict[str, Any]) -> str:
    return str(shown["scheduler_id"])


def test_a_failing_rank_sends_start_then_fail_with_its_cause(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path, receiver: Receiver
) -> None:
    cli = Cli(slurm_cluster, torchrun, tmp_path, receiver.url)
    oom = cli.submit("oom", f"{HARNESS / 'failing_rank.py'} oom", ranks=2)
    exits = cli.submit("exits", f"{HARNESS / 'failing_rank.py'} exit", nodes=2)

    shown = cli.wait_for_end(oom)
    assert shown["state"] == "FAILED", shown
    job = scheduler_id(shown)
    # the EXIT trap sends before the batch step ends: by the state's change it is there
    assert receiver.events(job) == ["start", "fail"], receiver.bodies
    fail = receiver.of(job)[1]
    assert (fail["state"], fail["cause"], fail["job_name"]) == ("FAILED", "oom-gpu", "oom")
    assert fail["error"].startswith("RuntimeError: CUDA out of memory. Tried to allocate"), fail
    written = (Path(shown["job_dir"]) / "exit_code").read_text()
    assert fail["exit_code"] == int(written) != 0, (fail, written)
    assert fail["text"].startswith(f"Job oom ({job}) failed (exit {fail['exit_code']})"), fail

    shown = cli.wait_for_end(exits)
    assert shown["state"] == "FAILED", shown
    job = scheduler_id(shown)
    assert receiver.events(job) == ["start", "fail"], receiver.bodies
    fail = receiver.of(job)[1]
    assert (fail["cause"], fail["rank"]) == ("exit-code", 1), fail
    assert fail["summary"].startswith("Rank 1 exited with code 3"), fail

    folders = [Path(cli.status(j)["job_dir"]) for j in (oom, exits)] + [tmp_path / "state"]
    assert_url_nowhere(receiver.url, folders, cli.outputs)


def test_a_requeued_job_sends_requeue_then_end(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path, receiver: Receiver
) -> None:
    config = tmp_path / "requeue.yaml"
    config.write_text(
        REQUEUE_CONFIG.format(port=free_port(), tmp=tmp_path)
        + NOTIFY.format(variable=VARIABLE, timeout=5)
    )
    env = {"PATH": f"{Path(torchrun).parent}:{os.environ['PATH']}", VARIABLE: receiver.url}
    rendered = slurm_cluster.run(
        sys.executable, "-m", "automodel_launch", "render", str(config), "--job-dir",
        str(tmp_path / "job"), "--entry", str(HARNESS / "requeue_trainer.py"),
        extra_env=env, timeout=120,
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    submitted = slurm_cluster.run(
        "sbatch", "--parsable", "job.sbatch", cwd=tmp_path / "job", extra_env=env
    )
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]
    log = tmp_path / "job" / f"requeue_{job}.out"

    release_when_requeued(slurm_cluster, [(job, log)])
    state = slurm_cluster.wait(job, timeout=RUN_TIMEOUT)
    output = log.read_text()
    assert state == "COMPLETED", output
    # each run starts; the first is requeued (no end for it), the second completes
    assert receiver.events(job) == ["start", "requeue", "start", "end"], (
        receiver.bodies, output
    )  # fmt: skip
    bodies = receiver.of(job)
    assert [b["restart"] for b in bodies] == [0, 0, 1, 1], bodies
    assert [b["state"] for b in bodies] == ["RUNNING", "REQUEUED", "RUNNING", "COMPLETED"]
    assert bodies[3]["exit_code"] == 0
    assert "automodel-launch: notify requeue: webhook: sent" in output
    outputs = [rendered.stdout, rendered.stderr, submitted.stdout, submitted.stderr]
    assert_url_nowhere(receiver.url, [tmp_path / "job"], outputs)


def test_a_dead_receiver_changes_nothing_but_a_bounded_delay(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    """Its listener takes connections and never answers: each notification (start and
    fail) ends at its 2 s bound; the job's exit status is the one it had."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}{SECRET_PATH}"
        cli = Cli(slurm_cluster, torchrun, tmp_path, url)
        job = cli.submit("dead", f"{HARNESS / 'failing_rank.py'} exit", nodes=2, timeout=2)
        shown = cli.wait_for_end(job)
    assert shown["state"] == "FAILED", shown
    job_dir = Path(shown["job_dir"])
    # the job's own status, as without notify: the batch script's (torchrun's or Slurm's)
    assert (job_dir / "exit_code").read_text() == f"{shown['exit_code']}\n"
    assert shown["failure"]["rank"] == 1, shown
    log = next(job_dir.glob("dead_*.out")).read_text()
    said = "webhook: not sent (no answer in time; retry: no answer in time)"
    assert log.count(said) == 2, log
    # the run lasted its work and at most two bounds more (Slurm's RunTime, whole seconds)
    run = slurm_cluster.job_field(scheduler_id(shown), "RunTime")
    if run:
        hours, minutes, seconds = (int(x) for x in run.split("-")[-1].split(":"))
        assert hours * 3600 + minutes * 60 + seconds < 2 * (2 + KILL_AFTER) + 60, run
    assert_url_nowhere(url, [job_dir, tmp_path / "state"], cli.outputs)
