"""A rendered script with ``signal`` and ``requeue`` on the real Slurm: signalled before
its time limit, requeued once, resumed from its checkpoint, completed.

Slurm counts the time limit from the allocation and sends the signal at its first
time-limit check (every 30 s) at most 30 s before the signal's time: with a 4-minute
limit and ``USR1@150`` it comes 60 to 90 s into the allocation. That leaves a minute
for the batch step, torchrun and the stand-in trainer to start on a busy machine, and
the trainer's 120 steps of a second cannot end before it. The first run is stopped part
way (SIGTERM, checkpoint) and requeued; the second run (``SLURM_RESTART_COUNT=1``, the
last one ``max_requeues: 1`` allows) resumes from the checkpoint and finishes.

Slurm holds a requeued job (BeginTime: its credential lifetime, 120 s, and a second)
so that the new run's launch credential is stamped after the revocation of the old
one. The test waits until each job is back in the queue after its own requeue (PENDING,
Restarts=1, EligibleTime about two minutes ahead), then makes it eligible at once
(``scontrol update StartTime=now``, in a later second than the one it was seen pending
in): about two and a half minutes instead of five.

The test waits for states, never for a time; it asserts what the feature promises, not
when each event came. A single job and the two tasks of a sweep's job array run at once
(each task requeued on its own, resuming its own checkpoint), so the array costs the
suite no extra minutes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS, TERMINAL, Cluster

pytestmark = pytest.mark.integration

TOTAL_STEPS = 120
CONFIG = """\
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
    TOTAL_STEPS: {steps}
"""
TRAINER = re.compile(
    r"trainer: (?P<event>\w+) step=(?P<step>\d+)(?: reason=(?P<reason>\w+))? "
    r"SLURM_RESTART_COUNT=(?P<n>\w+)"
)
# limits for a broken run only: a run to its 4-minute time limit, and a minute more for
# the batch step to start and end on a loaded machine
RUN_TIMEOUT = 4 * 60 + 60


def render(config: Path, job_dir: Path, *options: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "automodel_launch", "render", str(config), "--job-dir",
         str(job_dir), "--entry", str(HARNESS / "requeue_trainer.py"), *options],
        check=True, capture_output=True, text=True,
    )  # fmt: skip


def sbatch(cluster: Cluster, job_dir: Path, torchrun: str) -> str:
    path = f"{Path(torchrun).parent}:{os.environ['PATH']}"
    submitted = cluster.run(
        "sbatch", "--parsable", "job.sbatch", cwd=job_dir, extra_env={"PATH": path}
    )
    assert submitted.returncode == 0, submitted.stderr
    return submitted.stdout.strip().split(";")[0]


def test_job_and_array_tasks_are_requeued_once_resume_and_complete(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    """A single job and a sweep's two array tasks, submitted together (one wait for all
    three): each is signalled, requeued once on its own, and resumes its own checkpoint."""
    config = tmp_path / "requeue.yaml"
    config.write_text(CONFIG.format(port=free_port(), tmp=tmp_path, steps=TOTAL_STEPS))
    render(config, tmp_path / "job")
    render(config, tmp_path / "sweep", "--sweep", "optimizer.lr=0.1,0.2")
    single = sbatch(slurm_cluster, tmp_path / "job", torchrun)
    array = sbatch(slurm_cluster, tmp_path / "sweep", torchrun)
    runs = [(single, tmp_path / "job" / f"requeue_{single}.out")] + [
        (f"{array}_{i}", tmp_path / "sweep" / "points" / str(i) / f"requeue_{array}_{i}.out")
        for i in (0, 1)
    ]
    held = release_when_requeued(slurm_cluster, runs)
    # each was requeued (by its own script) and held by Slurm, not by the test
    assert sorted(held) == sorted(job_id for job_id, _ in runs)
    assert all(seconds > 60 for seconds in held.values()), held
    for job_id, log in runs:
        state = slurm_cluster.wait(job_id, timeout=RUN_TIMEOUT)
        output = log.read_text()
        assert state == "COMPLETED", output
        # requeued once: max_requeues
        assert slurm_cluster.job_field(job_id, "Restarts") == "1", output
        assert_requeued_and_resumed(output, job_id)
    # each task of the array kept its own checkpoints
    assert [(tmp_path / "ckpt" / i / "latest").read_text() for i in "01"] == [str(TOTAL_STEPS)] * 2


def release_when_requeued(cluster: Cluster, runs: list[tuple[str, Path]]) -> dict[str, float]:
    """Wait until each job is back in the queue after its requeue (PENDING with
    Restarts=1: Slurm has set its BeginTime by then), make it eligible now, and return how
    many seconds of Slurm's hold each had left. A job that ends before it is requeued
    fails the test."""
    held: dict[str, float] = {}
    deadline = time.monotonic() + RUN_TIMEOUT
    while len(held) < len(runs):
        for job_id, log in runs:
            if job_id in held:
                continue
            fields = cluster.job_fields(job_id)
            state = fields.get("JobState", "")
            assert state not in TERMINAL, (job_id, state, log.read_text())
            if (state, fields.get("Restarts")) != ("PENDING", "1"):
                continue
            # Slurm revoked the old run's credential at the requeue, at the latest in this
            # second; the new one must be stamped later or slurmd refuses the launch
            seen = time.time()
            time.sleep(int(seen) + 1 - seen)
            eligible = cluster.run("scontrol", "update", f"JobId={job_id}", "StartTime=now")
            assert eligible.returncode == 0, eligible.stderr
            # scontrol shows the job's BeginTime as EligibleTime
            eligible_at = datetime.fromisoformat(fields.get("EligibleTime", "")).timestamp()
            held[job_id] = eligible_at - seen
        assert time.monotonic() < deadline, f"not requeued after {RUN_TIMEOUT}s: {runs}"
        time.sleep(0.5)
    return held


def assert_requeued_and_resumed(output: str, job_id: str) -> None:
    """One run stopped part way by the trap, then the requeued run from its checkpoint
    to the end."""
    events = [m.groupdict() for m in TRAINER.finditer(output)]
    first = [e for e in events if e["n"] == "0"]
    second = [e for e in events if e["n"] == "1"]
    assert len(first) + len(second) == len(events), output
    # the first run's ranks got SIGTERM: a checkpoint of the step reached, then a stop
    assert [e["event"] for e in first[-2:]] == ["checkpoint", "stopped"], output
    assert first[-2]["reason"] == "sigterm" and first[-2]["step"] == first[-1]["step"], output
    stopped = int(first[-1]["step"])
    assert 0 < stopped < TOTAL_STEPS, output
    # the second run starts where the first one stopped, and finishes
    assert [e["event"] for e in second if e["event"] == "start"] == ["start"], output
    assert (second[0]["event"], int(second[0]["step"])) == ("start", stopped), output
    assert (second[-1]["event"], int(second[-1]["step"])) == ("done", TOTAL_STEPS), output

    # the trap fired in the first run and requeued the job
    assert re.search(
        r"^automodel-launch: USR1 at \d+s: SIGTERM to the ranks \(checkpoint and stop\), "
        r"then requeue 1 of 1$", output, re.M
    ), output  # fmt: skip
    # the task requeued itself alone (ARRAYID_INDEX), not the whole array
    assert f"automodel-launch: requeued job {job_id}; Slurm holds it about two minutes" in output
    # the restarted run, the last allowed, trains on when (if) it is signalled
    assert "requeue 2 of" not in output
    assert output.count("then requeue 1 of 1") == 1, output


def test_signal_values_are_what_sbatch_reads(slurm_cluster: Cluster) -> None:
    """sbatch (22.05 here: no ``R:`` yet) agrees with our parser on a sample; what we
    render (always ``B:``) is accepted."""
    from automodel_launch.config import slurm_signal

    accepted = ["USR1@90", "usr2", "SIGUSR1@0", "10@65535", "12", "B:USR1@90", "b:sigusr2@5"]
    rejected = ["FOO@90", "@90", "USR1@70000", "USR1@1.5", "USR1@-5", "USR1@90@2"]
    for value in accepted:
        rendered = slurm_signal.parse(value).sbatch
        for given in (value, rendered):
            checked = slurm_cluster.run(
                "sbatch", "--test-only", f"--signal={given}", "--time=5", "--wrap=true"
            )
            assert checked.returncode == 0, (given, checked.stderr)
    for value in rejected:
        refused = slurm_cluster.run("sbatch", "--test-only", f"--signal={value}", "--wrap=true")
        assert "Invalid --signal specification" in refused.stderr, (value, refused.stderr)
        with pytest.raises(slurm_signal.SignalError):
            slurm_signal.parse(value)
