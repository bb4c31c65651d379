"""Parsing what Slurm prints: real output captured from the test cluster (Slurm 22.05).

``captured/`` holds the answers of ``scontrol show partition -o``, ``scontrol show
node -o``, ``scontrol show config`` and ``srun --help`` on the cluster of
tests/integration/harness/slurm_cluster.sh (no pyxis, no accounting).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.cluster import parse
from automodel_launch.cluster.model import Association, Cluster, Node, Partition

CAPTURED = Path(__file__).parent / "captured"


def captured(name: str) -> str:
    return (CAPTURED / name).read_text(encoding="utf-8")


def test_partitions_of_the_test_cluster() -> None:
    found = parse.partitions(captured("scontrol_show_partition.txt"))
    assert found == {
        "batch": Partition("batch", "UP", default=True, max_time=None, default_time=None,
                           max_nodes=None, min_nodes=0, total_nodes=2, nodes=("node1", "node2")),
        "debug": Partition("debug", "UP", max_time=30, default_time=10, max_nodes=1,
                           total_nodes=1, nodes=("node1",)),
        "wide": Partition("wide", "UP", max_time=120, min_nodes=2, total_nodes=2,
                          nodes=("node1", "node2")),
        "maint": Partition("maint", "DOWN", total_nodes=1, nodes=("node2",)),
    }  # fmt: skip


def test_nodes_of_the_test_cluster() -> None:
    # a value with spaces (OS=Linux 6.18 #1 SMP ...) does not shift the fields after it
    found = parse.nodes(captured("scontrol_show_node.txt"))
    assert found == {
        "node1": Node("node1", gpus=4, cpus=8, memory=12052, state="IDLE"),
        "node2": Node("node2", gpus=4, cpus=8, memory=12052, state="IDLE"),
    }


def test_config_of_the_test_cluster() -> None:
    cluster = Cluster(config=parse.config(captured("scontrol_show_config.txt")))
    assert cluster.config["ClusterName"] == "automodel-launch"
    assert cluster.config["SLURM_VERSION"] == "22.05.8"
    assert not cluster.accounting
    assert not cluster.enforces_limits
    assert Cluster(config={"EnforcePartLimits": "ALL"}).enforces_limits
    assert Cluster(config={"AccountingStorageType": "accounting_storage/slurmdbd"}).accounting


def test_pyxis_is_told_by_its_srun_option() -> None:
    # Slurm 22.05's own --container (an OCI bundle) is not pyxis
    assert "--container " in captured("srun_help.txt")
    assert not parse.has_pyxis(captured("srun_help.txt"))
    with_pyxis = (  # the lines pyxis adds, as its README shows them
        "      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH\n"
        "                              [pyxis] the image to use for the container\n"
    )
    assert parse.has_pyxis(captured("srun_help.txt") + with_pyxis)


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ("node[1-2]", ("node1", "node2")),
        ("node1", ("node1",)),
        ("gpu[08-10,12],cpu7", ("gpu08", "gpu09", "gpu10", "gpu12", "cpu7")),
        ("r[1-2]n[1-2]", ("r1n1", "r1n2", "r2n1", "r2n2")),
        ("(null)", ()),
        ("", ()),
    ],
)
def test_host_lists_expand(expression: str, names: tuple[str, ...]) -> None:
    assert parse.hostnames(expression) == names


@pytest.mark.parametrize(
    "expression",
    ["n[1-999999999999]", "a[1-99]b[1-99]c[1-99]", "n[0-65535],m1", "x[1-9]" * 40],
)
def test_host_lists_too_large_to_expand_keep_no_names(expression: str) -> None:
    """A hostile or broken Nodes= must not take all the memory or time."""
    assert parse.hostnames(expression) == ()


def test_host_list_up_to_the_limit_expands() -> None:
    names = parse.hostnames(f"n[1-{parse.MAX_HOSTS}]")
    assert (len(names), names[0], names[-1]) == (parse.MAX_HOSTS, "n1", f"n{parse.MAX_HOSTS}")


@pytest.mark.parametrize(
    ("gres", "count"),
    [
        ("gpu:4", 4),
        ("gpu:a100:8(S:0-1)", 8),
        ("gpu:a100:4(S:0),gpu:v100:2(S:1)", 6),
        ("gpu:h100:8(S:0-1),mps:800", 8),
        ("mps:100", 0),
        ("(null)", 0),
        ("", 0),
    ],
)
def test_gpu_gres(gres: str, count: int) -> None:
    assert parse.gpu_count(gres) == count


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("UNLIMITED", None), ("NONE", None), ("00:30:00", 30), ("1-00:00:00", 1440), ("oops", None)],
)
def test_partition_times(text: str, minutes: int | None) -> None:
    assert parse.minutes(text) == minutes


def test_associations() -> None:
    # `sacctmgr -nP show assoc format=account,partition,qos`: one row per association
    text = "research|batch|normal,high\nstudents||normal\n|||\n"
    assert parse.associations(text) == [
        Association("research", "batch", ("normal", "high")),
        Association("students", "", ("normal",)),
    ]


def test_enroot_version() -> None:
    assert parse.version("3.4.1\n") == (3, 4, 1)
    assert parse.version("4.0\n") == (4, 0)
    assert parse.version("") is None


def test_test_only_answer() -> None:
    said = (
        "sbatch: Job 19 to start at 2026-11-30T16:43:18 using 2 processors on nodes "
        "node[1-2] in partition batch\n"
    )
    assert parse.test_only_answer(said) == (
        "Job 19 to start at 2026-11-30T16:43:18 using 2 processors on nodes node[1-2] "
        "in partition batch"
    )
    assert (
        parse.test_only_answer(
            "sbatch: error: invalid partition specified: nope\n"
            "allocation failure: Invalid partition name specified\n"
        )
        == "error: invalid partition specified: nope; "
        "allocation failure: Invalid partition name specified"
    )


def test_lines_without_a_name_are_skipped() -> None:
    """Noise between the ``-o`` lines (a warning, an empty name) names no partition or node."""
    text = "scontrol: warning: x=1\nPartitionName= State=DOWN\nPartitionName=p Nodes=n1\n"
    assert list(parse.partitions(text)) == ["p"]
    assert list(parse.nodes(text.replace("Partition", "Node"))) == ["p"]
    assert [name for name, _ in parse.records(text, "PartitionName")] == ["p"]
