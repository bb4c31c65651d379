"""What a node must hold (GPUs, CPUs, memory) and the partition's limits, at their edges.

A job that exactly fits a node's CPUs, memory and GPUs, a partition's MaxTime and
MaxNodes, is no finding; one more is, worded exactly. A value the cluster printed and
preflight could not read (``None``) is never taken for zero.
"""

from __future__ import annotations

import pytest

from automodel_launch.diagnostics import Diagnostic
from automodel_launch.launchers.slurm.cluster.model import Cluster, Node, Partition
from automodel_launch.launchers.slurm.cluster.resources import megabytes
from tests.launchers.slurm.cluster.test_rules import preflight


def cluster_of(*nodes: Node, **limits: object) -> Cluster:
    """One partition ``p`` (the default) over ``nodes``."""
    names = tuple(node.name for node in nodes)
    partition = Partition("p", "UP", default=True, total_nodes=len(nodes), nodes=names, **limits)  # type: ignore[arg-type]
    return Cluster(partitions={"p": partition}, nodes={n.name: n for n in nodes}, pyxis=False)


def node(name: str, gpus: int | None = 8, cpus: int | None = 64, memory: int | None = 8000) -> Node:
    return Node(name, gpus=gpus, cpus=cpus, memory=memory, state="IDLE")


def job(*lines: str) -> str:
    return "slurm:\n  partition: p\n  container_image: null\n" + "".join(f"  {x}\n" for x in lines)


def one(diagnostics: list[Diagnostic]) -> tuple[str, str, str | None]:
    [d] = diagnostics
    return d.code, d.message, d.hint


TWO = (node("n1"), node("n2"))


@pytest.mark.parametrize(
    "lines",
    [
        ("nodes: 2", "gpus_per_node: 8", "ntasks_per_node: 8"),
        ("nodes: 2", "ntasks_per_node: 8"),  # whole nodes, one rank per GPU
        ("nodes: 2", "gpus_per_node: 8", "cpus_per_task: 64", "mem: 8000M"),
        ("nodes: 2", "gpus_per_node: 8", "mem: '8000'"),
        ("gpus_per_node: 0", "ntasks_per_node: 64", "mem: '0'"),
    ],
)
def test_an_exact_fit_is_no_finding(lines: tuple[str, ...]) -> None:
    assert preflight(job(*lines), cluster_of(*TWO)) == []


def test_exact_partition_limits_are_no_finding() -> None:
    cluster = cluster_of(*TWO, max_time=60, max_nodes=2, min_nodes=2, max_cpus_per_node=32,
                         max_mem_per_node=4000)  # fmt: skip
    lines = ("nodes: 2", "time: '01:00:00'", "gpus_per_node: 8", "cpus_per_task: 32", "mem: 4000M")
    assert preflight(job(*lines), cluster) == []
    over = preflight(job("nodes: 3", "time: '01:01:00'", "gpus_per_node: 8"), cluster)
    assert [d.code for d in over] == [
        "nodes-outside-partition-limits", "time-over-partition-limit", "gpus-over-node-gres"
    ]  # fmt: skip


def test_gpus_per_node_one_over() -> None:
    assert one(preflight(job("gpus_per_node: 9", "ntasks_per_node: 8"), cluster_of(*TWO))) == (
        "gpus-over-node-gres",
        "gpus_per_node: 9 on 1 node(s), but the nodes of partition 'p' have at most 8 GPUs: "
        "the job can never start",
        "set gpus_per_node: 8 or less, or choose a partition with larger GPU nodes",
    )
    assert one(preflight(job("gpus_per_node: 9", "ntasks_per_node: 9"), cluster_of(*TWO)))[2] == (
        "set gpus_per_node: 8 or less (and ntasks_per_node with it), or choose a partition with "
        "larger GPU nodes"
    )


def test_gpus_on_too_few_nodes() -> None:
    cluster = cluster_of(node("n1"), node("n2", gpus=4), node("n3", gpus=8))
    assert preflight(job("nodes: 2", "gpus_per_node: 8", "ntasks_per_node: 8"), cluster) == []
    assert one(preflight(job("nodes: 3", "gpus_per_node: 8", "ntasks_per_node: 8"), cluster)) == (
        "gpus-over-node-gres",
        "gpus_per_node: 8 on 3 node(s), but only 2 node(s) of partition 'p' have 8 GPUs: the "
        "job can never start",
        "set gpus_per_node: 8 or less, or choose a partition with larger GPU nodes",
    )


def test_whole_nodes_one_rank_over() -> None:
    assert one(preflight(job("ntasks_per_node: 9"), cluster_of(*TWO))) == (
        "gpus-over-node-gres",
        "ntasks_per_node: 9 ranks, one GPU each, but the nodes of partition 'p' have at most 8 "
        "GPUs (gpus_per_node is null: whole nodes)",
        "set ntasks_per_node: 8 or less",
    )
    assert preflight(job("ntasks_per_node: 9", "exclusive: false"), cluster_of(*TWO)) == []


def test_gpus_on_nodes_without_any() -> None:
    cluster = cluster_of(node("n1", gpus=0), node("n2", gpus=0))
    assert one(preflight(job("gpus_per_node: 1", "ntasks_per_node: 1"), cluster))[1] == (
        "gpus_per_node: 1 on 1 node(s), but the nodes of partition 'p' have at most 0 GPUs: "
        "the job can never start"
    )
    # a CPU job on more nodes than the partition has: the nodes are the finding, not GPUs
    assert [d.code for d in preflight(job("nodes: 3", "gpus_per_node: 0"), cluster)] == [
        "nodes-outside-partition-limits"
    ]


def test_ranks_on_nodes_without_gpus() -> None:
    cluster = cluster_of(node("n1", gpus=0))
    assert one(preflight(job("ntasks_per_node: 2"), cluster)) == (
        "no-gpus-on-partition",
        "the nodes of partition 'p' have no GPUs (no gpu GRES): the 2 rank(s) per node run "
        "without one",
        "choose a GPU partition, or set gpus_per_node: 0 for a CPU job",
    )
    assert preflight(job("gpus_per_node: 0", "ntasks_per_node: 2"), cluster) == []


def test_cpus_one_over() -> None:
    assert one(preflight(job("gpus_per_node: 8", "cpus_per_task: 65"), cluster_of(*TWO))) == (
        "cpus-over-node",
        "cpus_per_task: 65 (one task per node) is more than the CPUs of the 2 node(s) of "
        "partition 'p': sbatch refuses the job (CPU count per node can not be satisfied)",
        "set cpus_per_task: 64 or less, or choose a partition with larger nodes",
    )
    capped = cluster_of(*TWO, max_cpus_per_node=32)
    assert one(preflight(job("gpus_per_node: 8", "cpus_per_task: 33"), capped))[1:] == (
        "cpus_per_task: 33 (one task per node) is more than the MaxCPUsPerNode of partition "
        "'p' (32): sbatch refuses the job (CPU count per node can not be satisfied)",
        "set cpus_per_task: 32 or less, or choose a partition with larger nodes",
    )


def test_mem_one_over() -> None:
    assert one(preflight(job("gpus_per_node: 8", "mem: 8001M"), cluster_of(*TWO))) == (
        "mem-over-node",
        "mem: 8001M (8001M per node) is more than the memory of the 2 node(s) of partition "
        "'p': sbatch refuses the job (Memory specification can not be satisfied)",
        "set mem: 8000M or less, or mem: 0 for all the memory of each node",
    )
    capped = cluster_of(*TWO, max_mem_per_node=4000)
    assert one(preflight(job("gpus_per_node: 8", "mem: 4001M"), capped))[1:] == (
        "mem: 4001M (4001M per node) is more than the MaxMemPerNode of partition 'p' (4000M): "
        "sbatch refuses the job (Memory specification can not be satisfied)",
        "set mem: 4000M or less, or mem: 0 for all the memory of each node",
    )


def test_the_most_that_fits_is_what_the_jobs_nodes_have_at_best() -> None:
    """Three nodes of 16, 8 and 4 CPUs: one node asked for 20 can have 16; two, 8."""
    cluster = cluster_of(node("a", cpus=16), node("b", cpus=8), node("c", cpus=4))
    d = one(preflight(job("gpus_per_node: 8", "cpus_per_task: 20"), cluster))
    assert d[1].startswith("cpus_per_task: 20 (one task per node) is more than the CPUs of the 3 ")
    assert d[2] == "set cpus_per_task: 16 or less, or choose a partition with larger nodes"
    d = one(preflight(job("nodes: 2", "gpus_per_node: 8", "cpus_per_task: 10"), cluster))
    assert d[1].startswith("cpus_per_task: 10 (one task per node) is more than the CPUs of 2 of ")
    assert d[2] == "set cpus_per_task: 8 or less, or choose a partition with larger nodes"
    assert preflight(job("nodes: 2", "gpus_per_node: 8", "cpus_per_task: 8"), cluster) == []
    exact = cluster_of(node("a", cpus=8), node("b", cpus=4), node("c", cpus=8))
    d = one(preflight(job("nodes: 3", "gpus_per_node: 8", "cpus_per_task: 8"), exact))
    assert d[1].startswith("cpus_per_task: 8 (one task per node) is more than the CPUs of 1 of ")
    capped = cluster_of(node("a", cpus=16), max_cpus_per_node=12)
    assert one(preflight(job("gpus_per_node: 8", "cpus_per_task: 20"), capped))[2] == (
        "set cpus_per_task: 12 or less, or choose a partition with larger nodes"
    )


def test_unknown_node_values_are_not_zero() -> None:
    """A node whose GPUs, CPUs or memory could not be read: the rule judges by the
    partition's limits only (a scheduler-output note says what was not read)."""
    unknown = cluster_of(node("n1", gpus=None, cpus=None, memory=None), node("n2"))
    lines = ("nodes: 2", "gpus_per_node: 8", "cpus_per_task: 64", "mem: 8000M")
    assert preflight(job(*lines), unknown) == []
    assert preflight(job("nodes: 2", "ntasks_per_node: 9"), unknown) == []
    assert preflight(job("gpus_per_node: 9", "cpus_per_task: 99", "mem: 9G"), unknown) == []
    capped = cluster_of(node("n1", memory=None), max_mem_per_node=4000)
    assert one(preflight(job("gpus_per_node: 8", "mem: 4001M"), capped))[2] == (
        "set mem: 4000M or less, or mem: 0 for all the memory of each node"
    )


def test_unknown_partition_values_skip_their_rules() -> None:
    unknown = Cluster(
        partitions={"p": Partition("p", "", default=True, total_nodes=None, nodes=())},
        pyxis=False,
    )
    assert preflight(job("nodes: 99", "gpus_per_node: 8"), unknown) == []
    capped = Cluster(
        partitions={"p": Partition("p", "UP", total_nodes=None, max_nodes=2)}, pyxis=False
    )
    assert one(preflight(job("nodes: 3", "gpus_per_node: 8"), capped))[1].startswith(
        "nodes: 3 is over the MaxNodes of partition 'p' (2): "
    )


@pytest.mark.parametrize(
    ("size", "mb"),
    [
        ("64G", 65536), ("64g", 65536), ("512", 512), ("512M", 512), ("2048K", 2), ("1K", 1),
        ("1536K", 2), ("1T", 1048576), ("9" * 15, 10**15 - 1), ("0", None), ("0G", None),
        (None, None), ("", None), ("G", None), ("64X", None), ("²G", None), ("1.5G", None),
        ("9" * 16, None), ("9" * 5000 + "G", None), ("64MM", None),
    ],
)  # fmt: skip
def test_megabytes(size: str | None, mb: int | None) -> None:
    assert megabytes(size) == mb
