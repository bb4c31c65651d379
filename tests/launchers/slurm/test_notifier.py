"""The job's own notifier (``notify.py``, automodel_launch/launchers/slurm/notifier.py) and
the script's traps that run it, against a real HTTP receiver on 127.0.0.1.

The notifier runs as the job runs it: ``python3 notify.py EVENT`` in a job directory
written by ``render``. The script runs for real too, with stand-ins for ``srun`` (it runs
the node's command) and ``scontrol``: its exit status, its ``exit_code`` file and what the
receiver got, in order. The webhook's URL is looked for in every file and every output.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.launchers.slurm.notify import KILL_AFTER
from tests.hostile.tokens import make
from tests.render.conftest import render_text
from tests.support.fake_slurm import FakeSlurm

SECRET_PATH = "/hooks/T0-s3cr3t-9f8e7d6c5b4a"
"""The part of the webhook's URL that is the credential."""
VARIABLE = "TEAM_WEBHOOK_URL"


class Receiver:
    """A webhook on 127.0.0.1 that keeps every JSON body it is sent, in order."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name
                size = int(self.headers.get("Content-Length", "0"))
                received.paths.append(self.path)
                received.bodies.append(json.loads(self.rfile.read(size)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{SECRET_PATH}"

    @property
    def events(self) -> list[str]:
        return [body["event"] for body in self.bodies]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()
    found.server.server_close()


@pytest.fixture
def silent() -> Iterator[str]:
    """A URL whose listener takes connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}{SECRET_PATH}"


def refused_url() -> str:
    """A URL on a port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}{SECRET_PATH}"


CONFIG = """\
slurm:
  job_name: notified
  nodes: 1
  ntasks_per_node: 1
  gpus_per_node: 0
  time: "00:30:00"
  container_image: null
  master_port: 29500
  hf_token: ${{HF_TOKEN}}
  notify:
    webhook_env: TEAM_WEBHOOK_URL
    timeout_seconds: {timeout}
    events: [start, end, fail, requeue]
  command: |
{command}
"""
TOKEN = make("hugging-face", 32).value
"""What the job's ``HF_TOKEN`` holds (built at run time: no credential-shaped literal)."""
TORCHRUN_REPORT = """\
[rank0]:step 11 | epoch 0 | loss 2.5000 | grad_norm 1.0000 | lr 1.00e-05 | mem 1.00 GiB
[rank0]:step 12 | epoch 0 | loss 2.4375 | grad_norm 1.0000 | lr 1.00e-05 | mem 1.00 GiB
[rank1]:step 12 | epoch 0 | loss 9.9999 | grad_norm 1.0000 | lr 1.00e-05 | mem 1.00 GiB
[rank0]:[val] name "default" | step 12 | epoch 0 | loss 7.0000
[rank1]:Traceback (most recent call last):
[rank1]:ValueError: the data set has no rows (@TOKEN@)
[rank0]:RuntimeError: Connection closed by peer
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-01-01_10:00:00
  host      : node1
  rank      : 1 (local_rank: 1)
  exitcode  : 3 (pid: 4242)
  error_file: /jobs/x/torchrun/1/attempt_0/1/error.json
============================================================
"""
SLURM_ENV = {"SLURM_JOB_ID": "4242", "SLURM_JOB_NAME": "notified"}


def job_dir(tmp_path: Path, *, timeout: int = 5, command: str = "exit 0") -> Path:
    """A job directory as ``render --job-dir`` writes it."""
    text = CONFIG.format(timeout=timeout, command="    " + command.replace("\n", "\n    "))
    folder = tmp_path / "job"
    files = render_text(text, "notified", job_dir=str(folder))
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(content, encoding="utf-8")
    return folder


def run_notifier(folder: Path, url: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], **SLURM_ENV}
    if url is not None:
        env[VARIABLE] = url
    return subprocess.run(
        [sys.executable, str(folder / "notify.py"), *args],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def assert_url_nowhere(url: str, folder: Path, *outputs: str) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            assert SECRET_PATH not in path.read_text(errors="replace"), path
    for output in outputs:
        assert SECRET_PATH not in output and url not in output, output


# ------------------------------------------------------------------ the notifier alone
def test_start_is_sent_with_the_job(tmp_path: Path, receiver: Receiver) -> None:
    folder = job_dir(tmp_path)
    done = run_notifier(folder, receiver.url, "start")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "automodel-launch: notify start: webhook: sent\n"
    assert receiver.paths == [SECRET_PATH]
    [body] = receiver.bodies
    keys = ("event", "state", "job_id", "job_name", "restart", "exit_code", "cause", "summary",
            "step", "loss")  # fmt: skip
    assert {k: body[k] for k in keys} == {
        "event": "start", "state": "RUNNING", "job_id": "4242", "job_name": "notified",
        "restart": 0, "exit_code": None, "cause": None, "summary": None, "step": None,
        "loss": None,
    }  # fmt: skip
    assert body["text"] == f"Job notified (4242) started on {socket.gethostname()}."
    assert body["job_dir"] == str(folder)
    assert_url_nowhere(receiver.url, folder, done.stderr)


def test_fail_says_which_rank_failed_why_and_where_training_was(
    tmp_path: Path, receiver: Receiver
) -> None:
    folder = job_dir(tmp_path)
    token = TOKEN
    (folder / "notified_4242.out").write_text(TORCHRUN_REPORT.replace("@TOKEN@", token))
    env_token = {"HF_TOKEN": token}
    done = subprocess.run(
        [sys.executable, str(folder / "notify.py"), "fail", "--exit-code", "1"],
        env={"PATH": os.environ["PATH"], **SLURM_ENV, VARIABLE: receiver.url, **env_token},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [body] = receiver.bodies
    keys = ("event", "state", "exit_code", "cause", "rank", "step", "epoch", "loss")
    assert {k: body[k] for k in keys} == {
        "event": "fail", "state": "FAILED", "exit_code": 1, "cause": "exit-code", "rank": 1,
        "step": 12, "epoch": 0, "loss": 2.4375,
    }  # fmt: skip
    # the failed rank's exception, not the one rank 0 died of after it; its token masked
    assert body["error"] == "ValueError: the data set has no rows (***)"
    assert (
        body["summary"] == "Rank 1 exited with code 3: ValueError: the data set has no rows (***)"
    )
    assert body["text"] == (
        "Job notified (4242) failed (exit 1) at step 12, loss 2.438: Rank 1 exited with code "
        "3: ValueError: the data set has no rows (***)"
    )
    assert token not in json.dumps(body)


def test_the_error_file_names_the_cause(tmp_path: Path, receiver: Receiver) -> None:
    """torch's error file of the first failed rank (the agent's copy) says it first."""
    folder = job_dir(tmp_path)
    (folder / "errors").mkdir()
    (folder / "errors" / "node0.json").write_text(json.dumps({"message": {
        "message": "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB",
        "extraInfo": {"py_callstack": "Traceback ...", "timestamp": "1700000000"},
        "errorCode": 1,
    }}))  # fmt: skip
    (folder / "notified_4242.out").write_text("[rank0]:step 3 | epoch 1 | loss nan\n")
    run_notifier(folder, receiver.url, "fail", "--exit-code", "1")
    [body] = receiver.bodies
    assert (body["cause"], body["error"], body["rank"]) == (
        "oom-gpu", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB", None
    )  # fmt: skip
    assert body["summary"] == (
        "The job exited with code 1: RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB"
    )
    assert (body["step"], body["epoch"], body["loss"]) == (3, 1, None)  # NaN is no JSON number


def test_end_and_requeue_carry_the_step_reached(tmp_path: Path, receiver: Receiver) -> None:
    folder = job_dir(tmp_path)
    (folder / "notified_4242.out").write_text("step 120 | epoch 2 | loss 0.1234 | tps 1.0\n")
    run_notifier(folder, receiver.url, "requeue")
    run_notifier(folder, receiver.url, "end", "--exit-code", "0")
    assert receiver.events == ["requeue", "end"]
    assert [b["text"] for b in receiver.bodies] == [
        "Job notified (4242) was requeued at step 120, loss 0.1234; it resumes from its "
        "latest checkpoint.",
        "Job notified (4242) completed at step 120, loss 0.1234.",
    ]
    assert [b["state"] for b in receiver.bodies] == ["REQUEUED", "COMPLETED"]


def test_an_event_not_asked_for_is_not_sent(tmp_path: Path, receiver: Receiver) -> None:
    folder = job_dir(tmp_path)
    done = run_notifier(folder, receiver.url, "time_limit_near")
    assert (done.returncode, done.stderr, receiver.bodies) == (0, "", [])


def test_logs_are_read_through_no_link(tmp_path: Path, receiver: Receiver) -> None:
    folder = job_dir(tmp_path)
    elsewhere = tmp_path / "elsewhere.log"
    elsewhere.write_text("step 7 | epoch 0 | loss 1.0000\n")
    (folder / "notified_4242.out").symlink_to(elsewhere)
    (tmp_path / "errs").mkdir()
    (tmp_path / "errs" / "node0.json").write_text('{"message": "ValueError: not mine"}')
    (folder / "errors").symlink_to(tmp_path / "errs")
    run_notifier(folder, receiver.url, "fail", "--exit-code", "2")
    [body] = receiver.bodies
    assert (body["step"], body["error"], body["cause"]) == (None, None, "exit-code")
    assert body["summary"] == "The job exited with code 2: its last lines say why."


def test_a_refused_connection_is_retried_once_and_exits_0(tmp_path: Path) -> None:
    folder = job_dir(tmp_path)
    url = refused_url()
    done = run_notifier(folder, url, "start")
    assert done.returncode == 0
    assert done.stderr == (
        "automodel-launch: notify start: webhook: not sent (ConnectionRefusedError; retry: "
        "ConnectionRefusedError)\n"
    )
    assert_url_nowhere(url, folder, done.stdout, done.stderr)


def test_a_receiver_that_never_answers_costs_the_bound(tmp_path: Path, silent: str) -> None:
    folder = job_dir(tmp_path, timeout=2)
    began = time.monotonic()
    done = run_notifier(folder, silent, "end", "--exit-code", "0")
    took = time.monotonic() - began
    assert done.returncode == 0
    assert done.stderr == (
        "automodel-launch: notify end: webhook: not sent (no answer in time; retry: no answer "
        "in time)\n"
    )
    assert 1.5 < took < 2 + KILL_AFTER, took
    assert_url_nowhere(silent, folder, done.stdout, done.stderr)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (None, "webhook: TEAM_WEBHOOK_URL is not set"),
        ("ftp://example.org" + SECRET_PATH,
         "webhook: TEAM_WEBHOOK_URL does not hold an http(s) URL"),
        ("http://[bad" + SECRET_PATH, "webhook: not sent (ValueError; retry: ValueError)"),
    ],
)  # fmt: skip
def test_a_missing_or_bad_url_is_said_without_the_url(
    tmp_path: Path, url: str | None, said: str
) -> None:
    folder = job_dir(tmp_path)
    done = run_notifier(folder, url, "start")
    assert (done.returncode, done.stderr) == (0, f"automodel-launch: notify start: {said}\n")


def test_a_command_gets_the_message_on_its_stdin(tmp_path: Path) -> None:
    folder = job_dir(tmp_path)
    settings = json.loads((folder / "notify.json").read_text())
    sink = tmp_path / "got.json"
    settings["webhook_env"] = None
    copy = f"import sys; open({str(sink)!r}, 'w').write(sys.stdin.read())"
    settings["command"] = [sys.executable, "-c", copy]
    (folder / "notify.json").write_text(json.dumps(settings))
    done = run_notifier(folder, None, "fail", "--exit-code", "137")
    assert done.stderr == "automodel-launch: notify fail: command: sent\n"
    body = json.loads(sink.read_text())
    assert (body["event"], body["exit_code"], body["cause"]) == ("fail", 137, "exit-code")


# ------------------------------------------------------------------ the script's traps
@pytest.fixture
def slurm_stand_ins(fake_slurm: FakeSlurm) -> FakeSlurm:
    """``srun`` runs what follows its options (the node's command), ``scontrol`` names
    this host; the rest of PATH stays (bash, python3, timeout)."""
    fake_slurm.tool("srun", '#!/bin/bash\nwhile [ "${1#--}" != "$1" ]; do shift; done\nexec "$@"')
    fake_slurm.answer("scontrol", "localhost\n")
    fake_slurm.in_front()
    return fake_slurm


def run_script(folder: Path, url: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """The job's script as sbatch runs it: its output in the job's log."""
    log = folder / "notified_4242.out"
    python3 = shutil.which("python3")
    assert python3 is not None
    with log.open("a") as out:
        done = subprocess.run(
            ["bash", str(folder / "job.sbatch")], stdout=out, stderr=subprocess.STDOUT,
            env={"PATH": os.environ["PATH"], "HOME": str(folder), "HF_TOKEN": "x" * 40,
                 "SLURM_JOB_NODELIST": "localhost", **SLURM_ENV, VARIABLE: url, **(env or {})},
            cwd=folder, timeout=120,
        )  # fmt: skip
    return done.returncode, log.read_text()


@pytest.mark.usefixtures("slurm_stand_ins")
def test_a_failing_job_sends_start_then_fail_and_keeps_its_status(
    tmp_path: Path, receiver: Receiver
) -> None:
    command = 'echo "step 5 | epoch 0 | loss 3.2500"\necho "KeyError: \'labels\'" >&2\nexit 3'
    folder = job_dir(tmp_path, command=command)
    status, log = run_script(folder, receiver.url)
    assert status == 3, log
    assert (folder / "exit_code").read_text() == "3\n"
    assert receiver.events == ["start", "fail"], log
    fail = receiver.bodies[1]
    assert (fail["exit_code"], fail["cause"], fail["error"], fail["step"]) == (
        3, "exit-code", "KeyError: 'labels'", 5
    )  # fmt: skip
    assert "automodel-launch: notify fail: webhook: sent" in log
    assert_url_nowhere(receiver.url, folder, log)


@pytest.mark.usefixtures("slurm_stand_ins")
def test_a_job_that_ends_well_sends_start_then_end(tmp_path: Path, receiver: Receiver) -> None:
    folder = job_dir(tmp_path, command='echo "step 9 | epoch 1 | loss 0.5000"')
    status, log = run_script(folder, receiver.url)
    assert status == 0, log
    assert receiver.events == ["start", "end"], log
    assert (receiver.bodies[1]["exit_code"], receiver.bodies[1]["step"]) == (0, 9)


@pytest.mark.usefixtures("slurm_stand_ins")
def test_a_dead_receiver_delays_the_end_by_the_bound_and_changes_nothing(
    tmp_path: Path, silent: str
) -> None:
    folder = job_dir(tmp_path, timeout=2, command="exit 5")
    began = time.monotonic()
    status, log = run_script(folder, silent)
    took = time.monotonic() - began
    assert status == 5, log
    assert (folder / "exit_code").read_text() == "5\n"
    # two notifications (start, fail), each at most its bound
    assert took < 2 * (2 + KILL_AFTER) + 5, took
    assert log.count("not sent (no answer in time; retry: no answer in time)") == 2, log
    assert_url_nowhere(silent, folder, log)


@pytest.mark.usefixtures("slurm_stand_ins")
def test_without_python3_the_job_runs_as_without_notify(
    tmp_path: Path, receiver: Receiver, fake_slurm: FakeSlurm
) -> None:
    """A node with no python3: nothing is sent, and the job's status is its own."""
    folder = job_dir(tmp_path, command="exit 4")
    bare = tmp_path / "bare"
    bare.mkdir()
    for tool in ("bash", "mkdir", "rm", "mv", "sed", "cat", "timeout"):
        found = shutil.which(tool)
        assert found is not None
        (bare / tool).symlink_to(found)
    status, log = run_script(folder, receiver.url, {"PATH": f"{fake_slurm.bin}:{bare}"})
    assert status == 4, log
    assert receiver.bodies == []


def test_the_notifier_finds_its_settings_by_its_own_name() -> None:
    """notify.py reads the JSON of its own name beside it (it imports nothing of ours)."""
    from automodel_launch.layout import NOTIFIER, NOTIFY_CONFIG

    assert NOTIFIER.removesuffix(".py") + ".json" == NOTIFY_CONFIG


def test_the_first_failure_is_the_rank_that_exited_not_the_one_slurm_stopped() -> None:
    from automodel_launch.launchers.slurm.notifier import first_root

    stopped = ("2026-12-07_21:30:01", "0", "-15")  # node 0's agent: its rank got SIGTERM
    exited = ("2026-12-07_21:30:05", "1", "3")  # node 1's: its rank exited with 3
    later = ("2026-12-07_21:30:09", "2", "4")
    assert first_root([stopped, exited, later]) == (1, 3)
    assert first_root([later, exited]) == (1, 3)
    assert first_root([stopped]) == (0, -15)
    assert first_root([]) == (None, None)
