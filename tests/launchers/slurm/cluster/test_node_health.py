"""Nodes out of service (down, drained, draining, failing, not responding) are counted
out of their UP partition: a job needing more nodes than the rest is said to wait.

The node lines are the test cluster's own answers (captured with node2 drained, then
node1 down, by ``scontrol update nodename=... state=drain|down reason=...``)."""

from __future__ import annotations

import pytest

from automodel_launch.diagnostics import CODES, Severity
from automodel_launch.launchers.slurm.cluster import parse
from automodel_launch.launchers.slurm.cluster.model import MAX_NAME, Node, broken_state
from automodel_launch.launchers.slurm.cluster.preflight import Preflight
from automodel_launch.launchers.slurm.cluster.reader import ClusterReader
from automodel_launch.loading import load_text
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.launchers.slurm.cluster.test_parse import captured
from tests.launchers.slurm.cluster.test_rules import BARE, found, preflight, the_cluster
from tests.support.fake_slurm import FakeSlurm

TWO = "slurm:\n  nodes: 2\n  ntasks_per_node: 4\n" + BARE


def test_the_captured_drained_and_down_nodes() -> None:
    drained = parse.nodes(captured("scontrol_show_node_drained.txt"))
    assert drained["node2"].state == "IDLE+DRAIN"
    assert drained["node2"].reason == "disk check on /raid (ticket 42)"
    assert drained["node2"].broken == "drained"
    assert (drained["node1"].state, drained["node1"].reason, drained["node1"].broken) == (
        "IDLE", "", None,
    )  # fmt: skip
    down = parse.nodes(captured("scontrol_show_node_down.txt"))
    assert (down["node1"].state, down["node1"].reason) == ("DOWN", "gpu 3 fell off the bus")
    assert down["node1"].broken == "down"
    assert down["node2"].broken is None


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ("IDLE", None),
        ("MIXED", None),
        ("ALLOCATED", None),
        ("COMPLETING", None),
        ("", None),
        ("IDLE+DRAIN", "drained"),
        ("DOWN+DRAIN", "down"),
        ("MIXED+DRAIN", "draining"),
        ("ALLOCATED+DRAIN", "draining"),
        ("COMPLETING+DRAIN", "draining"),
        ("DRAINED", "drained"),
        ("DRAINING", "draining"),
        ("DRAIN", "drained"),
        ("DOWN", "down"),
        ("DOWN*", "down"),
        ("DOWN+NOT_RESPONDING", "down"),
        ("IDLE+FAIL", "failing"),
        ("MIXED+FAIL", "failing"),
        ("FAILING", "failing"),
        ("FAIL", "failing"),
        ("IDLE*", "not responding"),
        ("MIXED*", "not responding"),
        ("IDLE+NOT_RESPONDING", "not responding"),
        ("IDLE+DRAIN*", "drained"),
        ("idle+drain", "drained"),
        ("IDLE+POWERED_DOWN", None),
    ],
)
def test_node_states(state: str, said: str | None) -> None:
    assert broken_state(state) == said
    assert Node(name="n", state=state).broken == said


def test_a_reason_ends_at_its_user_and_time_or_the_next_field() -> None:
    assert parse.reason("NodeName=a State=DOWN Reason=x [root@2026-12-02T03:59:01]") == "x"
    assert parse.reason("NodeName=a Reason=a b=c [slurm@t] Comment=z Extra=y") == "a b=c"
    assert parse.reason("NodeName=a Reason=Not responding Comment=z") == "Not responding"
    assert parse.reason("NodeName=a State=IDLE") == ""
    assert parse.reason("NodeName=a NoReason=x") == ""
    long = parse.reason("NodeName=a Reason=" + "w" * 5000)
    assert len(long) == MAX_NAME and long.endswith("…")
    assert parse.reason("NodeName=a Reason=" + "w" * MAX_NAME) == "w" * MAX_NAME


def test_a_drained_node_makes_a_two_node_job_wait() -> None:
    cluster = the_cluster(nodes=parse.nodes(captured("scontrol_show_node_drained.txt")))
    [d] = preflight(TWO, cluster)
    assert (d.code, d.severity, d.line, d.path) == (
        "nodes-out-of-service", Severity.WARNING, 2, "slurm.nodes",
    )  # fmt: skip
    assert d.message == (
        "nodes: 2, but only 1 of the 2 nodes of the cluster's default partition 'batch' is "
        "in service (node2 drained (disk check on /raid (ticket 42))): sbatch accepts the job "
        "and it pends until 1 more is back"
    )
    assert d.hint == (
        "set nodes: 1 or less, or choose another partition, or wait for the admins to resume "
        "them (`sinfo -R` lists why nodes are out)"
    )
    # one node fits on the one in service; the debug partition holds node1 only
    assert preflight("slurm:\n  ntasks_per_node: 4\n" + BARE, cluster) == []
    text = "slurm:\n  partition: debug\n  ntasks_per_node: 4\n  time: '00:30:00'\n" + BARE
    assert preflight(text, cluster) == []


def test_no_node_in_service_and_several_named() -> None:
    cluster = the_cluster(
        nodes={
            "node1": Node(name="node1", gpus=4, state="DOWN*"),
            "node2": Node(name="node2", gpus=4, state="MIXED+DRAIN", reason="reboot"),
        }
    )
    [d] = preflight("slurm:\n  partition: wide\n  nodes: 2\n  time: '1:00:00'\n  "
                    "ntasks_per_node: 4\n" + BARE, cluster)  # fmt: skip
    assert (d.code, d.line, d.path) == ("nodes-out-of-service", 3, "slurm.nodes")
    assert d.message == (
        "nodes: 2, but only 0 of the 2 nodes of partition 'wide' are in service (node1 down, "
        "node2 draining (reboot)): sbatch accepts the job and it pends until 2 more are back"
    )
    assert d.hint == (
        "choose another partition, or wait for the admins to resume them "
        "(`sinfo -R` lists why nodes are out)"
    )


def test_many_nodes_out_are_counted_past_the_first_four() -> None:
    names = [f"n{i}" for i in range(8)]
    cluster = the_cluster(nodes={n: Node(name=n, gpus=4, state="IDLE+FAIL") for n in names})
    from dataclasses import replace

    batch = cluster.partitions["batch"]
    cluster.partitions["batch"] = replace(batch, nodes=tuple(names), total_nodes=8)
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n" + BARE, cluster)
    assert d.message.startswith(
        "nodes: 1, but only 0 of the 8 nodes of the cluster's default partition 'batch' are "
        "in service (n0 failing, n1 failing, n2 failing, n3 failing and 4 more): "
    )
    assert d.message.endswith("it pends until 1 more is back")


@pytest.mark.parametrize(("out", "listed"), [(4, "n3 failing): "), (5, "n3 failing and 1 more): ")])
def test_four_nodes_are_named_and_the_rest_counted(out: int, listed: str) -> None:
    from dataclasses import replace

    names = [f"n{i}" for i in range(out)]
    cluster = the_cluster(nodes={n: Node(name=n, gpus=4, state="IDLE+FAIL") for n in names})
    batch = replace(cluster.partitions["batch"], nodes=tuple(names), total_nodes=out)
    cluster.partitions["batch"] = batch
    [d] = preflight("slurm:\n  ntasks_per_node: 4\n" + BARE, cluster)
    assert "are in service (n0 failing, n1 failing, n2 failing, " + listed in d.message


def test_a_partition_of_unknown_state_is_checked() -> None:
    from dataclasses import replace

    cluster = the_cluster(nodes=parse.nodes(captured("scontrol_show_node_drained.txt")))
    cluster.partitions["batch"] = replace(cluster.partitions["batch"], state="")
    assert found(preflight(TWO, cluster)) == [("nodes-out-of-service", 2, "slurm.nodes")]


def test_what_is_no_finding_of_its_own() -> None:
    drained = parse.nodes(captured("scontrol_show_node_drained.txt"))
    # more nodes than the partition has: nodes-outside-partition-limits only
    over = preflight(
        "slurm:\n  nodes: 3\n  ntasks_per_node: 4\n" + BARE, the_cluster(nodes=drained)
    )
    assert found(over) == [("nodes-outside-partition-limits", 2, "slurm.nodes")]
    # a DOWN partition: partition-unavailable only
    down = preflight("slurm:\n  partition: maint\n  ntasks_per_node: 4\n" + BARE,
                     the_cluster(nodes=drained))  # fmt: skip
    assert found(down) == [("partition-unavailable", 2, "slurm.partition")]
    # node states unknown (no node lines): nothing said
    assert preflight(TWO, the_cluster(nodes={})) == []
    assert preflight(TWO) == []


def test_the_code_is_a_warning() -> None:
    assert CODES["nodes-out-of-service"][0] == Severity.WARNING


REFUSED = "sbatch: error: allocation failure: Requested node configuration is not available\n"
"""What ``sbatch --test-only`` answers a job for more nodes than are in service."""


def test_sbatch_test_only_is_not_asked_about_a_job_that_pends_for_nodes(
    fake_slurm: FakeSlurm,
) -> None:
    """The cluster: the test cluster's captured answers, its sbatch refusing the job."""
    drained = the_cluster(nodes=parse.nodes(captured("scontrol_show_node_drained.txt")))
    fake_slurm.answer("sbatch", stderr=REFUSED, code=1)

    def checked(text: str) -> tuple[list[str], list[list[str]]]:
        loaded = load_text(text, "config.yaml").loaded
        assert loaded is not None
        report = validate_loaded(loaded, offline_settings())
        before, asked = list(report.diagnostics), len(fake_slurm.argv())
        reader = ClusterReader(environ={"PATH": fake_slurm.path}, _cluster=drained)
        Preflight(reader).check(report, lambda _report, _dir: "#!/bin/bash\n")
        return [d.code for d in report.diagnostics if d not in before], fake_slurm.argv()[asked:]

    assert checked(TWO) == (["nodes-out-of-service"], [])
    # a job that fits is asked about, and the refusal is said
    assert checked("slurm:\n  ntasks_per_node: 4\n" + BARE) == (
        ["sbatch-refused"], [["sbatch", "--export=ALL", "--test-only", "job.sbatch"]]
    )  # fmt: skip
