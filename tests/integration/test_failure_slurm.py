"""On the real local Slurm cluster: ``status`` of failed jobs says which rank failed first,
why, and what to change.

Three jobs run ``harness/failing_rank.py`` (decorated with torch's ``@record``), submitted
at once and waited for together: on two nodes, rank 1 exits 3 while rank 0 waits in an
all_reduce (Slurm then stops rank 0's node: the job's own exit code is not 3); on one
node, rank 0 dies of a CUDA-out-of-memory-shaped error; a sleeper runs past its 1-minute
limit (Slurm checks limits about every 30 s: this job takes the test 1 to 2 minutes).
The last is read again as once Slurm no longer knows it (the cluster keeps finished
jobs for MinJobAge=600 s and has no accounting): from its job directory alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import free_port
from tests.integration.slurm import HARNESS, Cluster
from tests.integration.tool import Tool

pytestmark = pytest.mark.integration

CONFIG = """\
slurm:
  job_name: {name}
  nodes: {nodes}
  ntasks_per_node: {ranks}
  gpus_per_node: 0
  time: "{time}"
  container_image: null
  master_port: {port}
  job_dir: {jobs}
  env_vars:
    OMP_NUM_THREADS: 1
"""


class Cli(Tool):
    def submit(self, name: str, mode: str, *, nodes: int = 1, ranks: int = 1,
               time_limit: str = "00:05:00") -> str:  # fmt: skip
        config = self.tmp / f"{name}.yaml"
        config.write_text(CONFIG.format(name=name, nodes=nodes, ranks=ranks, time=time_limit,
                                        port=free_port(), jobs=self.tmp / "jobs"))  # fmt: skip
        return self.submitted(config, f"{HARNESS / 'failing_rank.py'} {mode}")


@pytest.fixture
def cli(slurm_cluster: Cluster, torchrun: str, tmp_path: Path) -> Cli:
    return Cli(slurm_cluster, torchrun, tmp_path)


def test_status_says_which_rank_failed_and_why(cli: Cli) -> None:
    sleeper = cli.submit("sleeper", "sleep", time_limit="00:01:00")
    exits = cli.submit("exits", "exit", nodes=2)
    oom = cli.submit("oom", "oom", ranks=2)

    shown = cli.wait_for_end(exits)
    assert shown["state"] == "FAILED", shown
    assert shown["exit_code"] != 3  # the batch script's: torchrun's, or Slurm's signal
    failure = shown["failure"]
    assert (failure["rank"], failure["exit_code"], failure["signal"], failure["cause"]) == (
        1, 3, None, "exit-code"
    ), failure  # fmt: skip
    assert failure["summary"] == "Rank 1 exited with code 3: its last lines say why."
    assert failure["log_tail"] == ["rank 1 gives up"]
    text = cli.run("status", exits)
    assert text.returncode == 0, text.stderr
    assert text.stdout.endswith(
        "failure    exit-code: Rank 1 exited with code 3: its last lines say why.\n"
        "last lines of rank 1:\n"
        "  rank 1 gives up\n"
    ), text.stdout

    shown = cli.wait_for_end(oom)
    assert shown["state"] == "FAILED", shown
    failure = shown["failure"]
    assert (failure["rank"], failure["exit_code"], failure["cause"]) == (0, 1, "oom-gpu"), failure
    assert failure["summary"].startswith("Rank 0 ran out of GPU memory: lower `local_batch_size`")
    assert len(failure["log_tail"]) <= 20
    # the rank's stdout and stderr reach the log through two of torchrun's tail threads:
    # which of "rank 0 allocates" (stdout) and the traceback (stderr) comes last varies
    assert "rank 0 allocates" in failure["log_tail"]
    assert any(
        line.startswith("RuntimeError: CUDA out of memory. Tried to")
        for line in failure["log_tail"][-2:]
    ), failure["log_tail"]
    text = cli.run("status", oom)
    assert "failure    oom-gpu: Rank 0 ran out of GPU memory" in text.stdout, text.stdout

    shown = cli.wait_for_end(sleeper)
    assert (shown["state"], shown["scheduler_state"]) == ("TIMEOUT", "TIMEOUT"), shown
    assert shown["failure"]["cause"] == "time-limit", shown
    assert shown["failure"]["summary"] == (
        "The job ran past its time limit (0:01:00): raise `slurm.time`, or checkpoint "
        "more often and resume."
    )
    forgotten = _as_if_forgotten(Path(shown["job_dir"]))
    assert forgotten.state == "TIMEOUT", forgotten
    assert forgotten.scheduler_state is None
    assert forgotten.failure is not None
    assert (forgotten.failure.cause, forgotten.failure.summary) == (
        "time-limit",
        "The job ran past its time limit (00:01:00): raise `slurm.time`, or checkpoint "
        "more often and resume.",
    )


def _as_if_forgotten(job_dir: Path) -> Any:
    """The status ``status`` shows once neither squeue nor sacct knows the job: what its
    directory says (the path :func:`automodel_launch.launchers.slurm.jobs.statuses` takes then)."""
    from automodel_launch.jobs.manifest import read_manifest
    from automodel_launch.launchers.dispatch import with_failure
    from automodel_launch.launchers.slurm.jobs import from_job_dir

    return with_failure(from_job_dir(read_manifest(job_dir), None))
