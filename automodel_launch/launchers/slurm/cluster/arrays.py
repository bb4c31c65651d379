"""Preflight rules on a job array (a sweep on Slurm): its size, and its tasks at once.

An array of N tasks has the indices ``0`` to ``N-1`` (``#SBATCH --array=0-N-1%K``); an
array of a sweep split into several has the indexes of its points (``1-7:2``). sbatch
refuses it when its largest index is not below the cluster's ``MaxArraySize``.

Each task is a job of its own with the script's resources: the partition's MaxNodes,
MinNodes and MaxTime apply to each task, not to the array (a 100-task array of 1 node
and 4 hours each fits a partition of MaxNodes=1 and MaxTime=04:00:00), so the rules of
:mod:`.rules` and :mod:`.resources` check a task as they check one job. What the array
adds is how many tasks run at once: ``--max-parallel K`` (at most N of them; K more
than N is fine) times the task's nodes may be more than the partition has, and then the
others wait their turn: a note, not an error.
"""

from __future__ import annotations

from automodel_launch.launchers.slurm.cluster.model import Cluster, Partition
from automodel_launch.launchers.slurm.cluster.rules import SECTION, Job, describe


def check_array_size(job: Job, cluster: Cluster, tasks: int, last: int | None = None) -> None:
    """An array of ``tasks`` tasks, its largest index ``last`` (None: ``tasks - 1``), is
    refused by sbatch when ``last >= MaxArraySize``; an unknown MaxArraySize is said in a
    note, never taken as 0."""
    if tasks < 1:
        raise ValueError(f"an array has at least one task, not {tasks}")
    last = tasks - 1 if last is None else last
    limit = cluster.max_array_size
    if limit is None:
        job.sink.add(
            "scheduler-output", SECTION,
            "`scontrol show config` gave no MaxArraySize: the array's size was not checked",
            at_key=True,
        )  # fmt: skip
        return
    if last < limit:
        return
    if limit == 0:
        said, hint = (
            "the cluster takes no job arrays (MaxArraySize=0)",
            "submit the points one by one",
        )
    else:
        said = f"over the cluster's MaxArraySize {limit} (indices up to {limit - 1})"
        hint = f"sweep at most {limit} points, or split the sweep"
    job.sink.add(
        "array-too-large", SECTION,
        f"an array of {tasks} tasks has the indices "
        + (f"0-{last}" if last == tasks - 1 else f"up to {last}")
        + f", {said}: sbatch refuses it",
        hint, at_key=True,
    )  # fmt: skip


def check_parallel(job: Job, partition: Partition, tasks: int, max_parallel: int | None) -> None:
    """``max_parallel`` tasks at once (None: all of them), each of the job's nodes, against
    the nodes the partition has. Per-task limits are the one-job rules' (see the module)."""
    if max_parallel is not None and max_parallel < 1:
        raise ValueError(f"--max-parallel is at least 1, not {max_parallel}")
    at_once = min(tasks, max_parallel or tasks)
    nodes, total = job.cfg.nodes, partition.total_nodes
    if total is None or nodes < 1 or nodes > total or at_once * nodes <= total:
        return  # unknown, or one task alone does not fit (the one-job rules say so)
    asked = f"--max-parallel {max_parallel}" if max_parallel else "no --max-parallel"
    job.add(
        "array-over-partition", "nodes",
        f"{at_once} tasks at once ({asked}) of {nodes} node(s) each need {at_once * nodes} "
        f"nodes; {describe(partition, job)} has {total}: at most {total // nodes} run at "
        "once, the others wait",
        f"set --max-parallel {total // nodes} to say so, or choose a larger partition",
    )  # fmt: skip


def partition_of(job: Job, cluster: Cluster) -> Partition | None:
    """The partition the tasks go to (unknown ones are the one-job rules' to report)."""
    name = job.cfg.partition
    return cluster.default_partition if name is None else cluster.partitions.get(name)


def check_array(
    job: Job, cluster: Cluster, tasks: int, max_parallel: int | None, last: int | None = None
) -> None:
    """An array of ``tasks`` tasks (its largest index ``last``; None: ``tasks - 1``), at
    most ``max_parallel`` at once: its size against MaxArraySize and its tasks at once
    against the partition's nodes. MaxNodes, MinNodes and MaxTime apply per task:
    :meth:`~.preflight.Preflight.check` checks them."""
    check_array_size(job, cluster, tasks, last)
    partition = partition_of(job, cluster)
    if partition is not None:
        check_parallel(job, partition, tasks, max_parallel)
