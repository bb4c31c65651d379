"""A rendered script with ``signal`` and ``requeue`` on the real Slurm: signalled before
its time limit, requeued once, resumed from its checkpoint, completed.

The job has a 2-minute limit and ``USR1@90``; the stand-in trainer needs about 60 s
of steps, so the first run is stopped part way (SIGTERM, checkpoint) and requeued,
and the second run (``SLURM_RESTART_COUNT=1``, the last one ``max_requeues: 1``
allows) resumes and finishes. Slurm holds a requeued job about two minutes
(BeginTime), so this takes about four minutes.
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

TOTAL_STEPS = 60
CONFIG = """\
slurm:
  job_name: requeue
  nodes: 1
  ntasks_per_node: 1
  gpus_per_node: 0
  time: "2"
  signal: USR1@90
  requeue: true
  max_requeues: 1
  container_image: null
  master_port: {port}
  env_vars:
    OMP_NUM_THREADS: 1
    CKPT_DIR: {tmp}/ckpt
    TOTAL_STEPS: {steps}
"""
TRAINER = re.compile(r"trainer: (?P<event>\w+) step=(?P<step>\d+).* SLURM_RESTART_COUNT=(?P<n>\w+)")


def test_job_is_requeued_once_resumes_and_completes(
    slurm_cluster: Cluster, torchrun: str, tmp_path: Path
) -> None:
    config = tmp_path / "requeue.yaml"
    config.write_text(CONFIG.format(port=free_port(), tmp=tmp_path, steps=TOTAL_STEPS))
    job_dir = tmp_path / "job"
    subprocess.run(
        [sys.executable, "-m", "automodel_launch", "render", str(config), "--job-dir",
         str(job_dir), "--entry", str(HARNESS / "requeue_trainer.py")],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    path = f"{Path(torchrun).parent}:{os.environ['PATH']}"
    submitted = slurm_cluster.run(
        "sbatch", "--parsable", "job.sbatch", cwd=job_dir, extra_env={"PATH": path}
    )
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip().split(";")[0]

    state = slurm_cluster.wait(job_id, timeout=420)
    output = (job_dir / f"requeue_{job_id}.out").read_text()
    assert state == "COMPLETED", output
    assert slurm_cluster.job_field(job_id, "Restarts") == "1", output

    events = [(m["event"], int(m["step"]), m["n"]) for m in TRAINER.finditer(output)]
    starts = [(step, n) for event, step, n in events if event == "start"]
    assert starts[0] == (0, "0"), output
    stopped = [(step, n) for event, step, n in events if event == "stopped"]
    assert len(stopped) == 1 and stopped[0][1] == "0", output
    assert 0 < stopped[0][0] < TOTAL_STEPS, output
    # the second run sees SLURM_RESTART_COUNT=1 and starts where the first one stopped
    assert starts[1:] == [(stopped[0][0], "1")], output
    assert events[-1] == ("done", TOTAL_STEPS, "1"), output

    assert "automodel-launch: USR1 at " in output
    assert "then requeue 1 of 1" in output
    assert f"requeued job {job_id}; Slurm holds it about two minutes" in output
    # the restarted run, the last allowed, trains on when (if) it is signalled
    second_run = output[output.index("SLURM_RESTART_COUNT=1") :]
    assert "requeue 2 of" not in second_run


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
