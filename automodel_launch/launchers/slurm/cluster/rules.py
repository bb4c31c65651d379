"""Preflight rules on the partition: exists and is UP, time and node limits.

The other rules (:mod:`.resources`, :mod:`.access`) share :class:`Job` and the wording
helpers here.

Each finding points at the field concerned (or at ``slurm:`` when the field is absent
and its default is what the cluster would get), says what Slurm will do with the job,
and how to fix it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from automodel_launch.config import slurm_time
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.diagnostics import Collector, Loc
from automodel_launch.launchers.slurm.cluster.model import Cluster, Partition

SECTION: Loc = ("slurm",)


@dataclass
class Job:
    """A validated ``slurm:`` section, the keys written in the file, and where to report."""

    cfg: SlurmConfig
    written: Mapping[str, Any]
    sink: Collector

    def loc(self, name: str) -> Loc:
        """The field's own line when it is written, else the ``slurm:`` key."""
        return (*SECTION, name) if name in self.written else SECTION

    def add(self, code: str, name: str, message: str, hint: str | None = None) -> None:
        loc = self.loc(name)
        self.sink.add(code, loc, message, hint, at_key=loc == SECTION)


def pending(cluster: Cluster, reason: str) -> str:
    """What Slurm does with a job over a partition's limit, under this cluster's setting."""
    if cluster.enforces_limits:
        return "sbatch refuses the job (EnforcePartLimits)"
    return f"sbatch accepts the job and it pends forever (reason {reason})"


def clock(value: int | None) -> str:
    return slurm_time.SlurmTime(value).normalized


def check_partition(job: Job, cluster: Cluster) -> Partition | None:
    """The partition the job goes to, or None (reported) when there is none to check."""
    name = job.cfg.partition
    names = sorted(cluster.partitions)
    if name is None:
        default = cluster.default_partition
        if default is None:
            job.add(
                "unknown-partition", "partition",
                "no partition is set and the cluster has no default partition: "
                "sbatch refuses the job",
                "set partition: to one of " + ", ".join(names),
            )  # fmt: skip
        return default
    partition = cluster.partitions.get(name)
    if partition is None:
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        hint = f"did you mean '{close[0]}'?" if close else "partitions: " + ", ".join(names)
        job.add(
            "unknown-partition", "partition",
            f"the cluster has no partition '{name}': sbatch refuses the job",
            hint,
        )  # fmt: skip
    return partition


def describe(partition: Partition, job: Job) -> str:
    """``partition 'debug'`` or ``the cluster's default partition 'batch'``."""
    if job.cfg.partition is None:
        return f"the cluster's default partition '{partition.name}'"
    return f"partition '{partition.name}'"


def check_state(job: Job, cluster: Cluster, partition: Partition) -> None:
    if partition.state in ("UP", ""):
        return  # "": unknown
    up = sorted(n for n, p in cluster.partitions.items() if p.state == "UP")
    what = {
        "DOWN": "sbatch accepts the job and it pends until the partition is UP again "
        "(reason PartitionDown)",
        "DRAIN": "it accepts no new jobs",
        "INACTIVE": "it accepts no jobs",
    }.get(partition.state, "the job will not start there")
    job.add(
        "partition-unavailable", "partition",
        f"{describe(partition, job)} is {partition.state}: {what}",
        ("choose a partition that is UP: " + ", ".join(up)) if up else None,
    )  # fmt: skip


def check_time(job: Job, cluster: Cluster, partition: Partition) -> None:
    limit = partition.max_time
    asked = job.cfg.time_minutes
    if limit is None or (asked is not None and asked <= limit):
        return
    where = f"the MaxTime of {describe(partition, job)} ({clock(limit)})"
    if "time" in job.written:
        said = f"time {clock(asked)} is over {where}"
    else:
        default = (
            f" (the partition's DefaultTime {clock(partition.default_time)} does not apply: "
            "the script always sets --time)"
            if partition.default_time is not None
            else ""
        )
        said = (
            f"time is not set, so the job asks for {clock(asked)}, automodel-launch's "
            f"default{default}; that is over {where}"
        )
    job.add(
        "time-over-partition-limit", "time",
        f"{said}: {pending(cluster, 'PartitionTimeLimit')}",
        f'set time: "{clock(limit)}" or less, or choose a partition with a longer MaxTime',
    )  # fmt: skip


def check_nodes(job: Job, cluster: Cluster, partition: Partition) -> None:
    asked = job.cfg.nodes
    name = describe(partition, job)
    total = partition.total_nodes
    if total is not None and asked > total:
        said = f"nodes: {asked} is more than {name} has ({total})"
        most = total
    elif partition.max_nodes is not None and asked > partition.max_nodes:
        said = f"nodes: {asked} is over the MaxNodes of {name} ({partition.max_nodes})"
        most = partition.max_nodes
    elif asked < partition.min_nodes:
        job.add(
            "nodes-outside-partition-limits", "nodes",
            f"nodes: {asked} is under the MinNodes of {name} ({partition.min_nodes}): "
            + pending(cluster, "PartitionNodeLimit"),
            f"set nodes: {partition.min_nodes} or more, or choose another partition",
        )  # fmt: skip
        return
    else:
        return
    job.add(
        "nodes-outside-partition-limits", "nodes",
        f"{said}: {pending(cluster, 'PartitionNodeLimit')}",
        f"set nodes: {most} or less, or choose a partition with more nodes"
        if most
        else "choose a partition that has nodes",
    )  # fmt: skip


OUT_OF_SERVICE = "nodes-out-of-service"
"""The job pends for nodes that are out: sbatch accepts it, ``--test-only`` refuses it
(``Requested node configuration is not available``), so it is not asked."""
SHOWN_NODES = 4
"""Out-of-service nodes named in a finding; the others are counted."""


def check_health(job: Job, cluster: Cluster, partition: Partition) -> None:
    """Nodes DOWN, DRAINED or DRAINING, FAILING or not responding take no new job: a job
    that needs more nodes than the others of its UP partition pends (sbatch accepts it;
    squeue says "Nodes required for job are DOWN, DRAINED or reserved...").
    A job over the partition's node count is :func:`check_nodes`' to report."""
    if partition.state not in ("UP", "") or not partition.nodes:
        return
    out = [node for node in cluster.nodes_of(partition) if node.broken]
    total, asked = len(partition.nodes), job.cfg.nodes
    healthy = total - len(out)
    if not out or asked <= healthy or asked > total:
        return
    said = [f"{n.name} {n.broken}" + (f" ({n.reason})" if n.reason else "") for n in out]
    more = len(said) - SHOWN_NODES
    listed = ", ".join(said[:SHOWN_NODES]) + (f" and {more} more" if more > 0 else "")
    verb = "is" if healthy == 1 else "are"
    job.add(
        OUT_OF_SERVICE, "nodes",
        f"nodes: {asked}, but only {healthy} of the {total} nodes of {describe(partition, job)} "
        f"{verb} in service ({listed}): sbatch accepts the job and it pends until "
        f"{asked - healthy} more {'is' if asked - healthy == 1 else 'are'} back",
        (f"set nodes: {healthy} or less, or " if healthy else "")
        + "choose another partition, or wait for the admins to resume them "
        "(`sinfo -R` lists why nodes are out)",
    )  # fmt: skip
