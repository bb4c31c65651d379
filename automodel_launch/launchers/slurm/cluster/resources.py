"""Preflight rules on what a node must hold: GPUs (gpu GRES), CPUs and memory.

A job that asks each node for more than any (or enough) of the partition's nodes
have is refused by sbatch at once, or, where Slurm cannot tell yet, never starts.
"""

from __future__ import annotations

from automodel_launch.launchers.slurm.cluster.model import Cluster, Partition
from automodel_launch.launchers.slurm.cluster.parse import number
from automodel_launch.launchers.slurm.cluster.rules import Job, describe


def check_gpus(job: Job, cluster: Cluster, partition: Partition) -> None:
    """GPUs asked per node against the gpu GRES of the partition's nodes.

    ``gpus_per_node: null`` renders ``--exclusive``: whole nodes, all their GPUs, one
    rank per GPU; ``0`` is a CPU job.
    """
    gpus = known([node.gpus for node in cluster.nodes_of(partition)])
    if not gpus:
        return
    most = max(gpus)
    name = describe(partition, job)
    asked = job.cfg.gpus_per_node
    if asked == 0:
        return
    if asked is not None:
        enough = sum(g >= asked for g in gpus)
        if enough >= job.cfg.nodes:
            return
        job.add(
            "gpus-over-node-gres", "gpus_per_node",
            f"gpus_per_node: {asked} on {job.cfg.nodes} node(s), but "
            + (f"only {enough} node(s) of {name} have {asked} GPUs" if enough else
               f"the nodes of {name} have at most {most} GPUs")
            + ": the job can never start",
            f"set gpus_per_node: {most} or less"
            + (" (and ntasks_per_node with it)" if job.cfg.ntasks_per_node > most else "")
            + ", or choose a partition with larger GPU nodes",
        )  # fmt: skip
        return
    if not job.cfg.whole_nodes:
        return  # exclusive: false, or GPUs asked for in sbatch_args: not ours to count
    ranks = job.cfg.ntasks_per_node
    if most == 0:
        job.add(
            "no-gpus-on-partition", "ntasks_per_node",
            f"the nodes of {name} have no GPUs (no gpu GRES): the {ranks} rank(s) per node "
            "run without one",
            "choose a GPU partition, or set gpus_per_node: 0 for a CPU job",
        )  # fmt: skip
    elif ranks > most:
        job.add(
            "gpus-over-node-gres", "ntasks_per_node",
            f"ntasks_per_node: {ranks} ranks, one GPU each, but the nodes of {name} have at "
            f"most {most} GPUs (gpus_per_node is null: whole nodes)",
            f"set ntasks_per_node: {most} or less",
        )  # fmt: skip


def check_cpus(job: Job, cluster: Cluster, partition: Partition) -> None:
    """``cpus_per_task``: one Slurm task per node, so the CPUs each node must have."""
    asked = job.cfg.cpus_per_task
    if asked is None:
        return
    have = known([node.cpus for node in cluster.nodes_of(partition)])
    over = _over_node(job, partition, asked, ("MaxCPUsPerNode", partition.max_cpus_per_node), have)
    if over is None:
        return
    limit, most = over
    job.add(
        "cpus-over-node", "cpus_per_task",
        f"cpus_per_task: {asked} (one task per node) is more than {limit}: "
        "sbatch refuses the job (CPU count per node can not be satisfied)",
        f"set cpus_per_task: {most} or less, or choose a partition with larger nodes",
    )  # fmt: skip


def check_mem(job: Job, cluster: Cluster, partition: Partition) -> None:
    asked = megabytes(job.cfg.mem)
    if asked is None:
        return
    have = known([node.memory for node in cluster.nodes_of(partition)])
    over = _over_node(job, partition, asked, ("MaxMemPerNode", partition.max_mem_per_node), have)
    if over is None:
        return
    limit, most = over
    job.add(
        "mem-over-node", "mem",
        f"mem: {job.cfg.mem} ({asked}M per node) is more than {limit}: sbatch refuses the "
        "job (Memory specification can not be satisfied)",
        f"set mem: {most}M or less, or mem: 0 for all the memory of each node",
    )  # fmt: skip


def known(values: list[int | None]) -> list[int]:
    """The values of a partition's nodes; none when one is unknown (the rule then
    judges by the partition's own limits only, or not at all)."""
    return [] if None in values else [v for v in values if v is not None]


def _over_node(
    job: Job, partition: Partition, asked: int, cap: tuple[str, int | None], have: list[int]
) -> tuple[str, int] | None:
    """What ``asked`` per node is more than: the partition's ``cap`` (``MaxMemPerNode``,
    its value), else the nodes too few of which ``have`` it; and the most that fits.
    None when it fits, or nothing is known."""
    name = describe(partition, job)
    cap_name, cap_value = cap
    ranked = sorted(have, reverse=True)[: job.cfg.nodes]  # the job's nodes at best
    most = min(v for v in (cap_value, ranked[-1] if ranked else None, asked) if v is not None)
    if cap_value is not None and asked > cap_value:
        unit = "M" if cap_name == "MaxMemPerNode" else ""
        return f"the {cap_name} of {name} ({cap_value}{unit})", most
    if not have or sum(h >= asked for h in have) >= job.cfg.nodes:
        return None
    kind = "memory" if cap_name == "MaxMemPerNode" else "CPUs"
    return f"the {kind} of {_short(have, asked)} node(s) of {name}", most


def _short(have: list[int], asked: int) -> str:
    """``the 2`` (all of them) or ``1 of the 3``: how many nodes fall short."""
    short = sum(h < asked for h in have)
    return f"the {len(have)}" if short == len(have) else f"{short} of the {len(have)}"


_UNITS = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


def megabytes(size: str | None) -> int | None:
    """``64G`` -> 65536; None for no size or ``0`` (all the memory of each node)."""
    if not size:
        return None
    unit = size[-1].upper() if size[-1].isalpha() else "M"
    digits = size[:-1] if size[-1].isalpha() else size
    value = number(digits) if digits.isdigit() else None
    if not value or unit not in _UNITS:
        return None
    return max(1, round(value * _UNITS[unit]))
