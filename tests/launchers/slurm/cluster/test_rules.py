"""Preflight rules against the test cluster's own description (captured, see test_parse).

The real validator and the real :class:`Preflight` run on each config; the cluster is
the one the integration tests start, read from its captured answers instead of asked.
"""

from __future__ import annotations

from dataclasses import replace

from automodel_launch.diagnostics import Diagnostic
from automodel_launch.launchers.slurm.cluster import parse
from automodel_launch.launchers.slurm.cluster.access import reads_as_docker_hub
from automodel_launch.launchers.slurm.cluster.model import Association, Cluster
from automodel_launch.launchers.slurm.cluster.preflight import Preflight
from automodel_launch.launchers.slurm.cluster.reader import ClusterReader
from automodel_launch.launchers.slurm.cluster.resources import megabytes
from automodel_launch.loading import load_text
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.launchers.slurm.cluster.test_parse import captured

BARE = "  container_image: null\n"
ENFORCED = {
    "AccountingStorageType": "accounting_storage/slurmdbd",
    "AccountingStorageEnforce": "associations,limits,qos",
}


def the_cluster(**changes: object) -> Cluster:
    cluster = Cluster(
        partitions=parse.partitions(captured("scontrol_show_partition.txt")),
        nodes=parse.nodes(captured("scontrol_show_node.txt")),
        config=parse.config(captured("scontrol_show_config.txt")),
        pyxis=False,
    )
    for name, value in changes.items():
        setattr(cluster, name, value)
    return cluster


def preflight(text: str, cluster: Cluster | None = None) -> list[Diagnostic]:
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    assert report.document is not None, report.diagnostics
    before = list(report.diagnostics)
    reader = ClusterReader(environ={"PATH": ""}, _cluster=cluster or the_cluster())
    Preflight(reader).check(report)
    return [d for d in report.diagnostics if d not in before]


def found(diagnostics: list[Diagnostic]) -> list[tuple[str, int, str]]:
    return [(d.code, d.line, d.path) for d in diagnostics]


def test_a_config_that_fits_finds_nothing() -> None:
    text = "slurm:\n  partition: debug\n  ntasks_per_node: 4\n  time: '00:30:00'\n" + BARE
    assert preflight(text) == []


def test_an_unknown_partition_with_did_you_mean() -> None:
    [d] = preflight("slurm:\n  partition: debgu\n  ntasks_per_node: 4\n" + BARE)
    assert (d.code, d.line, d.column, d.path) == ("unknown-partition", 2, 14, "slurm.partition")
    assert d.message == "the cluster has no partition 'debgu': sbatch refuses the job"
    assert d.hint == "did you mean 'debug'?"
    [d] = preflight("slurm:\n  partition: zzz\n  ntasks_per_node: 4\n" + BARE)
    assert d.hint == "partitions: batch, debug, maint, wide"


def test_a_down_partition_pends() -> None:
    [d] = preflight("slurm:\n  partition: maint\n  ntasks_per_node: 4\n" + BARE)
    assert (d.code, d.line, d.path) == ("partition-unavailable", 2, "slurm.partition")
    assert d.message == (
        "partition 'maint' is DOWN: sbatch accepts the job and it pends until the partition "
        "is UP again (reason PartitionDown)"
    )
    assert d.hint == "choose a partition that is UP: batch, debug, wide"


def test_time_over_max_time_at_its_line() -> None:
    [d] = preflight("slurm:\n  partition: debug\n  time: '01:00:00'\n  ntasks_per_node: 4\n" + BARE)
    assert (d.code, d.line, d.column, d.path) == ("time-over-partition-limit", 3, 9, "slurm.time")
    assert d.message == (
        "time 01:00:00 is over the MaxTime of partition 'debug' (00:30:00): sbatch accepts "
        "the job and it pends forever (reason PartitionTimeLimit)"
    )
    assert d.hint == 'set time: "00:30:00" or less, or choose a partition with a longer MaxTime'


def test_an_absent_time_is_the_default_four_hours_not_default_time() -> None:
    [d] = preflight("slurm:\n  partition: debug\n  ntasks_per_node: 4\n" + BARE)
    assert (d.code, d.line, d.column, d.path) == ("time-over-partition-limit", 1, 1, "slurm")
    assert d.message == (
        "time is not set, so the job asks for 04:00:00, automodel-launch's default (the "
        "partition's DefaultTime 00:10:00 does not apply: the script always sets --time); "
        "that is over the MaxTime of partition 'debug' (00:30:00): sbatch accepts the job "
        "and it pends forever (reason PartitionTimeLimit)"
    )


def test_unlimited_time_is_over_any_max_time() -> None:
    text = "slurm:\n  partition: wide\n  nodes: 2\n  time: UNLIMITED\n  ntasks_per_node: 4\n"
    assert found(preflight(text + BARE)) == [("time-over-partition-limit", 4, "slurm.time")]


def test_a_sbatch_refusal_is_said_when_limits_are_enforced() -> None:
    cluster = the_cluster(config={"EnforcePartLimits": "ALL"})
    [d] = preflight(
        "slurm:\n  partition: debug\n  time: '45'\n  ntasks_per_node: 4\n" + BARE, cluster
    )
    assert d.message.endswith(": sbatch refuses the job (EnforcePartLimits)")


def test_nodes_against_the_partition() -> None:
    over_total = preflight("slurm:\n  nodes: 3\n  ntasks_per_node: 4\n" + BARE)
    assert found(over_total) == [("nodes-outside-partition-limits", 2, "slurm.nodes")]
    assert over_total[0].message == (
        "nodes: 3 is more than the cluster's default partition 'batch' has (2): sbatch "
        "accepts the job and it pends forever (reason PartitionNodeLimit)"
    )
    under_min = preflight(
        "slurm:\n  partition: wide\n  ntasks_per_node: 4\n  time: '1:00:00'\n" + BARE
    )
    assert found(under_min) == [("nodes-outside-partition-limits", 1, "slurm")]
    assert under_min[0].message.startswith("nodes: 1 is under the MinNodes of partition 'wide' (2)")
    assert under_min[0].hint == "set nodes: 2 or more, or choose another partition"
    wide = the_cluster()
    wide.partitions["batch"] = parse.partitions(
        captured("scontrol_show_partition.txt").replace("MaxNodes=UNLIMITED", "MaxNodes=1", 1)
    )["batch"]
    over_max = preflight("slurm:\n  nodes: 2\n  ntasks_per_node: 4\n" + BARE, wide)
    assert over_max[0].message.startswith(
        "nodes: 2 is over the MaxNodes of the cluster's default partition 'batch' (1)"
    )
    assert over_max[0].hint == "set nodes: 1 or less, or choose a partition with more nodes"


def test_a_partition_without_nodes_is_no_hint_to_ask_for_none() -> None:
    """Nodes=(null), TotalNodes=0 (a placeholder partition): "set nodes: 0" would not do."""
    cluster = the_cluster()
    cluster.partitions["batch"] = replace(cluster.partitions["batch"], nodes=(), total_nodes=0)
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n" + BARE, cluster)
    assert (d.code, d.line, d.path) == ("nodes-outside-partition-limits", 1, "slurm")
    assert d.message.startswith("nodes: 1 is more than the cluster's default partition 'batch' ")
    assert d.hint == "choose a partition that has nodes"


def test_gpus_per_node_over_the_gres_of_the_nodes() -> None:
    [d] = preflight("slurm:\n  gpus_per_node: 8\n  ntasks_per_node: 8\n" + BARE)
    assert (d.code, d.line, d.path) == ("gpus-over-node-gres", 2, "slurm.gpus_per_node")
    assert d.message == (
        "gpus_per_node: 8 on 1 node(s), but the nodes of the cluster's default partition "
        "'batch' have at most 4 GPUs: the job can never start"
    )
    assert d.hint == (
        "set gpus_per_node: 4 or less (and ntasks_per_node with it), or choose a partition "
        "with larger GPU nodes"
    )


def test_whole_nodes_fit_one_rank_per_gpu() -> None:
    # gpus_per_node: null renders --exclusive: the ranks share the node's GPUs
    [d] = preflight("slurm:\n  ntasks_per_node: 8\n" + BARE)
    assert (d.code, d.line, d.path) == ("gpus-over-node-gres", 2, "slurm.ntasks_per_node")
    assert d.hint == "set ntasks_per_node: 4 or less"
    # the default of 8 ranks, written nowhere: reported at slurm:
    assert found(preflight("slurm:\n" + BARE)) == [("gpus-over-node-gres", 1, "slurm")]
    assert preflight("slurm:\n  gpus_per_node: 0\n  ntasks_per_node: 16\n" + BARE) == []


def test_ranks_on_a_partition_without_gpus_are_a_warning() -> None:
    cluster = the_cluster()
    cluster.nodes = parse.nodes(
        captured("scontrol_show_node.txt").replace("Gres=gpu:4", "Gres=(null)")
    )
    [d] = preflight("slurm:\n  ntasks_per_node: 2\n" + BARE, cluster)
    assert (d.code, d.severity.value, d.line) == ("no-gpus-on-partition", "warning", 2)


def test_accounts_without_accounting_are_noted_not_checked() -> None:
    [d] = preflight("slurm:\n  account: research\n  ntasks_per_node: 4\n" + BARE)
    assert (d.code, d.severity.value, d.line) == ("associations-not-checked", "note", 2)
    assert d.message == (
        "account 'research' was not checked: the cluster keeps no accounting "
        "(AccountingStorageType=accounting_storage/none), so Slurm accepts any"
    )


def test_accounts_against_associations() -> None:
    cluster = the_cluster(
        config=ENFORCED,
        associations=[Association("research", "", ("normal",)), Association("ops")],
    )
    assert preflight("slurm:\n  account: research\n  ntasks_per_node: 4\n" + BARE, cluster) == []
    [d] = preflight("slurm:\n  account: reserch\n  ntasks_per_node: 4\n" + BARE, cluster)
    assert (d.code, d.line, d.hint) == ("unknown-account", 2, "did you mean 'research'?")


def test_a_container_without_pyxis() -> None:
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  container_image: /images/nemo.sqsh\n")
    assert (d.code, d.line, d.path) == ("no-pyxis", 3, "slurm.container_image")
    assert d.hint == "set container_image: null to run on the nodes without a container"
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n")
    assert (d.code, d.line) == ("no-pyxis", 1)
    assert d.message.startswith(
        "container_image is not set, so the job uses nvcr.io/nvidia/nemo:dev (the default), "
        "but the cluster has no pyxis"
    )


def test_docker_hub_reading_only_with_enroot_3() -> None:
    text = "slurm:\n  ntasks_per_node: 4\n  container_image: nvcr.io/nvidia/nemo:dev\n"
    [d] = preflight(text, the_cluster(pyxis=True, enroot_version=(3, 5, 0)))
    assert (d.code, d.line, d.hint) == (
        "image-read-as-docker-hub",
        3,
        "write nvcr.io#nvidia/nemo:dev",
    )
    assert preflight(text, the_cluster(pyxis=True, enroot_version=(4, 0, 1))) == []
    assert preflight(text, the_cluster(pyxis=True)) == []  # no enroot here: not known


def test_which_images_enroot_3_reads_as_docker_hub() -> None:
    assert reads_as_docker_hub("nvcr.io/nvidia/nemo:dev")
    assert reads_as_docker_hub("user@gitlab.example.com:5005/team/img")
    assert reads_as_docker_hub("localhost/img")
    assert not reads_as_docker_hub("nvcr.io#nvidia/nemo:dev")
    assert not reads_as_docker_hub("nvidia/cuda:12.4.0-base")
    assert not reads_as_docker_hub("ubuntu:24.04")
    assert not reads_as_docker_hub("/images/nemo.sqsh")


def test_cpus_per_task_over_the_cpus_of_the_nodes() -> None:
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  cpus_per_task: 16\n" + BARE)
    assert (d.code, d.line, d.path) == ("cpus-over-node", 3, "slurm.cpus_per_task")
    assert d.message == (
        "cpus_per_task: 16 (one task per node) is more than the CPUs of the 2 node(s) of the "
        "cluster's default partition 'batch': sbatch refuses the job (CPU count per node can "
        "not be satisfied)"
    )
    assert preflight("slurm:\n  ntasks_per_node: 4\n  cpus_per_task: 8\n" + BARE) == []


def test_mem_over_the_memory_of_the_nodes() -> None:
    # the captured nodes have RealMemory=12052 (MB)
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  mem: 12G\n" + BARE)
    assert (d.code, d.line, d.path) == ("mem-over-node", 3, "slurm.mem")
    assert d.message.startswith("mem: 12G (12288M per node) is more than the memory of the 2 ")
    assert d.hint == "set mem: 12052M or less, or mem: 0 for all the memory of each node"
    for fits in ("11G", "12052", "0"):
        assert preflight(f"slurm:\n  ntasks_per_node: 4\n  mem: '{fits}'\n" + BARE) == [], fits


def test_megabytes() -> None:
    assert [megabytes(s) for s in ("64G", "512", "2048K", "1T", "0", None)] == [
        65536, 512, 2, 1048576, None, None,
    ]  # fmt: skip


def test_qos_against_associations() -> None:
    cluster = the_cluster(
        config=ENFORCED,
        associations=[Association("research", "", ("normal", "high"))],
    )
    text = "slurm:\n  account: research\n  qos: hihg\n  ntasks_per_node: 4\n" + BARE
    [d] = preflight(text, cluster)
    assert (d.code, d.line, d.hint) == ("unknown-qos", 3, "did you mean 'high'?")
    assert d.message == (
        "your associations under account 'research' do not allow qos 'hihg': sbatch refuses the job"
    )
    assert preflight(text.replace("hihg", "high"), cluster) == []


def test_account_and_qos_without_accounting_are_one_note() -> None:
    [d] = preflight("slurm:\n  qos: high\n  account: research\n  ntasks_per_node: 4\n" + BARE)
    assert (d.code, d.severity.value, d.line, d.path) == (
        "associations-not-checked", "note", 3, "slurm.account",
    )  # fmt: skip
    assert d.message.startswith("account 'research' and qos 'high' were not checked: ")
    [d] = preflight("slurm:\n  qos: high\n  ntasks_per_node: 4\n" + BARE)
    assert (d.line, d.path) == (2, "slurm.qos")
    assert d.message.startswith("qos 'high' was not checked: ")


def test_ranks_are_not_counted_against_gpus_on_shared_nodes() -> None:
    # exclusive: false with gpus_per_node: null asks for no GPU at all; GPUs asked for
    # in sbatch_args are not ours to count either
    assert preflight("slurm:\n  ntasks_per_node: 8\n  exclusive: false\n" + BARE) == []
    text = "slurm:\n  ntasks_per_node: 8\n  sbatch_args: ['--gres=gpu:8']\n" + BARE
    assert preflight(text) == []


def test_an_association_on_another_partition() -> None:
    cluster = the_cluster(
        config=ENFORCED,
        associations=[Association("research", "debug", ("normal",))],
    )
    text = "slurm:\n  account: research\n  ntasks_per_node: 4\n  time: '00:20:00'\n" + BARE
    [d] = preflight(text, cluster)
    assert (d.code, d.line) == ("unknown-account", 2)
    assert d.message == (
        "your association with account 'research' holds on partition(s) debug, not on "
        "'batch': sbatch refuses the job"
    )
    assert preflight(text.replace("slurm:\n", "slurm:\n  partition: debug\n"), cluster) == []


def test_associations_slurm_does_not_enforce_are_noted_not_checked() -> None:
    lax = {**ENFORCED, "AccountingStorageEnforce": "none"}
    cluster = the_cluster(config=lax, associations=[Association("ops")])
    [d] = preflight("slurm:\n  account: research\n  ntasks_per_node: 4\n" + BARE, cluster)
    assert (d.code, d.severity.value) == ("associations-not-checked", "note")
    assert d.message == (
        "account 'research' was not checked: Slurm does not enforce associations here "
        "(AccountingStorageEnforce=none)"
    )
    # associations enforced, qos not: a qos outside the associations is no error
    lax = {**ENFORCED, "AccountingStorageEnforce": "associations"}
    cluster = the_cluster(config=lax, associations=[Association("ops", "", ("normal",))])
    assert (
        preflight("slurm:\n  account: ops\n  qos: high\n  ntasks_per_node: 4\n" + BARE, cluster)
        == []
    )
    assert the_cluster(config={**ENFORCED, "AccountingStorageEnforce": "safe"}).enforces(
        "associations"
    )


def test_a_partition_cap_is_the_limit_and_the_hint() -> None:
    """MaxMemPerNode/MaxCPUsPerNode below the nodes' own: the hint names the cap."""
    cluster = the_cluster()
    cluster.partitions["batch"] = replace(
        cluster.partitions["batch"], max_mem_per_node=4000, max_cpus_per_node=2
    )
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  mem: 8G\n" + BARE, cluster)
    assert (d.code, d.line, d.path) == ("mem-over-node", 3, "slurm.mem")
    assert d.message.startswith("mem: 8G (8192M per node) is more than the MaxMemPerNode of ")
    assert d.hint == "set mem: 4000M or less, or mem: 0 for all the memory of each node"
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  cpus_per_task: 4\n" + BARE, cluster)
    assert (d.code, d.path) == ("cpus-over-node", "slurm.cpus_per_task")
    assert d.hint == "set cpus_per_task: 2 or less, or choose a partition with larger nodes"


def test_a_partition_cap_without_known_nodes_is_no_crash() -> None:
    """Nodes= the reader could not expand (or nodes it could not list): the cap still holds."""
    cluster = the_cluster(nodes={})
    cluster.partitions["batch"] = replace(cluster.partitions["batch"], max_mem_per_node=4000)
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  mem: 8G\n" + BARE, cluster)
    assert (d.code, d.hint) == (
        "mem-over-node",
        "set mem: 4000M or less, or mem: 0 for all the memory of each node",
    )


def test_the_hint_is_what_enough_nodes_have() -> None:
    """Two nodes asked, one of them smaller: the hint is what both have, not the larger."""
    cluster = the_cluster()
    cluster.nodes["node2"] = replace(cluster.nodes["node2"], memory=8000)
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n  nodes: 2\n  mem: 10G\n" + BARE, cluster)
    assert d.message.startswith("mem: 10G (10240M per node) is more than the memory of 1 of ")
    assert d.hint == "set mem: 8000M or less, or mem: 0 for all the memory of each node"
