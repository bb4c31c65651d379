"""A 3-task job array through the Slurm client on the real test cluster: sbatch's id, one
squeue call for every task, at most one task at once (``%1``), a job that waits for the
array (``--dependency=afterok``), and scancel of the array's id emptying the queue.

The test waits on states (one ``squeue --json`` a look), never on the clock.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from automodel_launch.launchers.slurm.cluster.client import Dependency, SlurmClient
from automodel_launch.launchers.slurm.output import (
    SqueueJob,
    decode_json,
    epoch,
    read_job,
    squeue_jobs,
)
from tests.integration.slurm import TERMINAL, Cluster

pytestmark = pytest.mark.integration

ARRAY = """\
#!/bin/bash
#SBATCH --array=0-2%1
#SBATCH --time=00:05:00
#SBATCH --output=task_%a.log
echo $SLURM_ARRAY_TASK_ID > out_$SLURM_ARRAY_TASK_ID
"""
AFTER = """\
#!/bin/bash
#SBATCH --time=00:05:00
#SBATCH --output=after.log
ls out_* > after
"""
HELD = ARRAY.replace("echo", "sleep 300; echo")


def look(client: SlurmClient, ids: list[str]) -> dict[str, SqueueJob | None]:
    """One squeue call: each id's record (None: not listed)."""
    listed = squeue_jobs(decode_json(client.squeue().stdout, "squeue --json"))
    return {job_id: _read(listed.find(job_id)) for job_id in ids}


def _read(raw: object) -> SqueueJob | None:
    return None if raw is None else read_job(raw)


def states(now: dict[str, SqueueJob | None], ids: list[str]) -> list[str]:
    """Each id's state in one look ("" when it is not listed)."""
    return [job.state if (job := now[i]) is not None else "" for i in ids]


def ended_at(job: SqueueJob | None) -> float:
    assert job is not None
    return epoch(job.end_time) or 0


def wait_until_ended(
    client: SlurmClient, ids: list[str], limit: float = 300
) -> list[dict[str, SqueueJob | None]]:
    """Every look until each id is listed in a final state (``limit``: a broken cluster)."""
    looks = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        now = look(client, ids)
        looks.append(now)
        if all(job is not None and job.state in TERMINAL for job in now.values()):
            return looks
        time.sleep(0.2)
    raise AssertionError(f"not ended after {limit}s: {looks[-1]}")


def test_a_three_task_array_through_the_client(slurm_cluster: Cluster, tmp_path: Path) -> None:
    client = SlurmClient(slurm_cluster.env)
    (tmp_path / "array.sbatch").write_text(ARRAY)
    (tmp_path / "after.sbatch").write_text(AFTER)
    array = client.submit("array.sbatch", cwd=tmp_path)
    assert array.job_id.isdigit() and array.cluster is None
    after = client.submit("after.sbatch", cwd=tmp_path,
                          dependency=Dependency("afterok", (array.job_id,)))  # fmt: skip
    tasks = [f"{array.job_id}_{i}" for i in range(3)]
    looks = wait_until_ended(client, [*tasks, after.job_id])
    # one squeue call listed every task (pending ones within the array's record)
    assert all(all(now[t] is not None for t in tasks) for now in looks)
    assert max(states(now, tasks).count("RUNNING") for now in looks) <= 1  # %1
    final = looks[-1]
    assert states(final, tasks) == ["COMPLETED"] * 3
    assert [(tmp_path / f"out_{i}").read_text() for i in range(3)] == ["0\n", "1\n", "2\n"]
    # the dependent job started only after the last task ended
    ended = max(ended_at(final[t]) for t in tasks)
    done = final[after.job_id]
    assert done is not None and done.state == "COMPLETED"
    assert (epoch(done.start_time) or 0) >= ended
    assert (tmp_path / "after").read_text() == "out_0\nout_1\nout_2\n"
    # no accounting on the test cluster: sacct says so, in one call for every task
    assert client.sacct(tasks) is None


def test_scancel_of_the_array_id_empties_the_queue(slurm_cluster: Cluster, tmp_path: Path) -> None:
    client = SlurmClient(slurm_cluster.env)
    (tmp_path / "held.sbatch").write_text(HELD)
    array = client.submit("held.sbatch", cwd=tmp_path)
    tasks = [f"{array.job_id}_{i}" for i in range(3)]
    deadline = time.monotonic() + 120
    while (first := look(client, tasks)[tasks[0]]) is None or first.state != "RUNNING":
        assert time.monotonic() < deadline, first
        time.sleep(0.2)
    assert states(look(client, tasks), tasks) == ["RUNNING", "PENDING", "PENDING"]
    client.scancel([array.job_id])
    looks = wait_until_ended(client, tasks)
    assert states(looks[-1], tasks) == ["CANCELLED"] * 3
    queued = slurm_cluster.run("squeue", "-h", "--array", f"--jobs={array.job_id}")
    assert (queued.returncode, queued.stdout) == (0, "")
    assert not any((tmp_path / f"out_{i}").exists() for i in range(3))
