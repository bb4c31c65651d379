"""Parsing what Slurm prints: real output captured from the test cluster (Slurm 22.05).

``captured/`` holds the answers of ``scontrol show partition -o``, ``scontrol show
node -o``, ``scontrol show config`` and ``srun --help`` on the cluster of
tests/integration/harness/slurm_cluster.sh (no pyxis, no accounting).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.launchers.slurm.cluster import parse
from automodel_launch.launchers.slurm.cluster.commands import Answer
from automodel_launch.launchers.slurm.cluster.model import (
    MAX_HOSTS,
    MAX_NUMBER,
    MAX_QOS,
    Association,
    Cluster,
    Node,
    Partition,
    Unreadable,
)
from automodel_launch.launchers.slurm.cluster.reader import _output

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


def test_the_test_clusters_answers_are_read_whole() -> None:
    notes: list[Unreadable] = []
    parse.partitions(captured("scontrol_show_partition.txt"), notes)
    parse.nodes(captured("scontrol_show_node.txt"), notes)
    assert notes == []


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
        ("n[1,3-4]", ("n1", "n3", "n4")),
        ("gpu[08-10,12],cpu7", ("gpu08", "gpu09", "gpu10", "gpu12", "cpu7")),
        ("r[1-2]n[1-2]", ("r1n1", "r1n2", "r2n1", "r2n2")),
        ("n[1-2]-ib", ("n1-ib", "n2-ib")),
        ("[3-4]", ("3", "4")),
        ("n[9-10]", ("n9", "n10")),
        (",a,,b,", ("a", "b")),
        ("(null)", ()),
        ("", ()),
    ],
)
def test_host_lists_expand(expression: str, names: tuple[str, ...]) -> None:
    assert parse.hostnames(expression) == names


@pytest.mark.parametrize(
    "expression",
    [
        "n[1-999999999999]", "a[1-99]b[1-99]c[1-99]", "n[0-65535],m1", "x[1-9]" * 40,
        "n[1-65535],m[1-2]", "a[1-256]b[1-257]", "n[1-65536],m1", "n[1-40000,1-40000]",
    ],
)  # fmt: skip
def test_host_lists_too_large_to_expand_are_unknown(expression: str) -> None:
    """A hostile or broken Nodes= must not take all the memory or time."""
    assert parse.hostnames(expression) is None


@pytest.mark.parametrize(
    "expression",
    [
        "n[1-2[3]]", "n[[1]]", "n[1", "n]", "n[1-2]]", "n1]", "]n[", "n[a-b]", "n[2-1]",
        "n[²]", "n[1-²]", "n[١]", "n[1-]", "n[-1]", "n[]", "n[1-2]x]", "n[1-2]x[", "n[1-2-3]",
        "n[1 ,2]", "x" * 257, "x" * 256 + "[1-2]", "n[0000000001-0000000002]",
    ],
)  # fmt: skip
def test_what_is_no_host_list_is_unknown(expression: str) -> None:
    assert parse.hostnames(expression) is None


def test_host_lists_up_to_the_limit_expand() -> None:
    names = parse.hostnames(f"n[1-{MAX_HOSTS}]")
    assert names is not None
    assert (len(names), names[0], names[-1]) == (MAX_HOSTS, "n1", f"n{MAX_HOSTS}")
    names = parse.hostnames(f"n[1-{MAX_HOSTS - 1}],m1")
    assert names is not None and (len(names), names[-1]) == (MAX_HOSTS, "m1")
    names = parse.hostnames("a[1-256]b[1-256]")
    assert names is not None and (len(names), names[-1]) == (MAX_HOSTS, "a256b256")
    names = parse.hostnames(f"n[1-{MAX_HOSTS // 2},1-{MAX_HOSTS // 2}]")
    assert names is not None and len(names) == MAX_HOSTS
    assert parse.hostnames("x" * 256) == ("x" * 256,)
    assert parse.hostnames("n[000000001-000000002]") == ("n000000001", "n000000002")
    assert parse.hostnames("x" * 255 + "[1-2]") == ("x" * 255 + "1", "x" * 255 + "2")


def test_range_lists_are_bounded_by_their_room() -> None:
    assert parse._values("1-2,3-4", 4) == ["1", "2", "3", "4"]
    assert parse._values("1-2,3-4", 3) is None
    assert parse._values("1-3", 3) == ["1", "2", "3"]
    assert parse._values("1-4", 3) is None
    assert parse._values("7", 1) == ["7"]
    assert parse._values("7", 0) is None


def test_split_top() -> None:
    assert parse.split_top("n[1,3],m1") == ["n[1,3]", "m1"]
    assert parse.split_top("a,,b,") == ["a", "b"]
    assert parse.split_top("") == []
    assert parse.split_top("n[1,[2]]") is None
    assert parse.split_top("n[1[2]") is None
    assert parse.split_top("n[1") is None
    assert parse.split_top("n]1[") is None


@pytest.mark.parametrize(
    ("gres", "count"),
    [
        ("gpu:4", 4),
        ("gpu:a100:8(S:0-1)", 8),
        ("gpu:a100:4(S:0),gpu:v100:2(S:1)", 6),
        ("gpu:h100:8(S:0-1),mps:800", 8),
        ("craynetwork:4,gpu:8", 8),
        ("gpu:8,craynetwork:4", 8),
        ("craynetwork:4,gpu:a100:8(S:0-1),nic:2", 8),
        ("gpus:4", 0),
        ("mps:100", 0),
        ("gpu", 1),
        ("gpu:tesla", 1),
        ("gpu:0", 0),
        ("(null)", 0),
        ("", 0),
        ("gpu:" + "9" * 15, MAX_NUMBER),
        ("gpu:4,gpu", 5),
        ("gpu:a,gpu:4,gpu:b", 6),
    ],
)
def test_gpu_gres(gres: str, count: int) -> None:
    assert parse.gpu_count(gres) == count


@pytest.mark.parametrize(
    "gres",
    [
        "gpu:²", "gpu:a100:²", "gpu:½", "gpu:" + "9" * 16, "gpu:" + "9" * 5000, "gpu:a:b:c",
        "gpu:a100:", "gpu:[4", "gpu:" + "9" * 15 + ",gpu:1", "gpu:4,gpu:x:y",
    ],
)  # fmt: skip
def test_gpu_gres_that_cannot_be_read_is_unknown(gres: str) -> None:
    assert parse.gpu_count(gres) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("64000", 64000), ("64000M", 64000), ("0", 0), ("9" * 15, MAX_NUMBER),
        ("9" * 15 + "M", MAX_NUMBER), ("9" * 16, None), ("9" * 5000, None), ("M", None),
        ("", None), ("²", None), ("١٢", None), ("-1", None), (" 5", None), ("5G", None),
        ("UNLIMITED", None),
    ],
)  # fmt: skip
def test_numbers_are_ascii_and_bounded(text: str, value: int | None) -> None:
    assert parse.number(text) == value


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("UNLIMITED", (None, True)), ("NONE", (None, True)), ("infinite", (None, True)),
        ("", (None, True)), ("0", (None, True)), ("00:30:00", (30, True)),
        ("1-00:00:00", (1440, True)), ("0" * 28 + "30", (30, True)), ("oops", (None, False)),
        ("0" * 29 + "30", (None, False)), ("9" * 5000, (None, False)), ("²", (None, False)),
        ("١٢", (None, False)), ("99999999999:00", (None, False)),
    ],
)  # fmt: skip
def test_partition_times(text: str, read: tuple[int | None, bool]) -> None:
    assert parse.read_time(text) == read


LIMITS = (
    "PartitionName=p State=up Default=yes MaxTime=1:00:00 DefaultTime=10 MaxNodes=4 "
    "MinNodes=1 TotalNodes=8 Nodes=n[1-2] MaxCPUsPerNode=64 MaxMemPerNode=128000M"
)


def test_a_partition_every_field_read() -> None:
    notes: list[Unreadable] = []
    assert parse.partitions(LIMITS, notes) == {
        "p": Partition("p", "UP", default=True, max_time=60, default_time=10, max_nodes=4,
                       min_nodes=1, total_nodes=8, nodes=("n1", "n2"), max_cpus_per_node=64,
                       max_mem_per_node=128000),
    }  # fmt: skip
    assert notes == []
    assert parse.partitions("PartitionName=q", notes) == {"q": Partition("q", "UP")}
    assert notes == []


@pytest.mark.parametrize(
    "word", ["UNLIMITED", "unlimited", "INFINITE", "NONE", "N/A", "(null)", ""]
)
def test_the_words_of_no_limit_are_read_as_none(word: str) -> None:
    notes: list[Unreadable] = []
    text = f"PartitionName=p MaxNodes={word} MaxTime={word} Nodes={word}"
    assert parse.partitions(text, notes) == {"p": Partition("p", "UP")}
    assert notes == []


def test_a_partition_field_that_cannot_be_read_is_unknown_and_noted() -> None:
    hostile = (
        "PartitionName=p State=" + "X" * 257 + " MaxTime=²:00 DefaultTime=oops MaxNodes=² "
        "MinNodes=" + "9" * 5000 + " TotalNodes=-1 Nodes=n[1-2[3]] MaxCPUsPerNode=1e3 "
        "MaxMemPerNode=64G\nPartitionName=" + "p" * 257 + " State=UP\n"
    )
    notes: list[Unreadable] = []
    assert parse.partitions(hostile, notes) == {"p": Partition("p", "")}
    about = "of partition 'p'"
    assert notes == [
        Unreadable(parse.PARTITIONS, f"State {about}", None, 257),
        Unreadable(parse.PARTITIONS, f"MaxTime {about}", "²:00", 4),
        Unreadable(parse.PARTITIONS, f"DefaultTime {about}", "oops", 4),
        Unreadable(parse.PARTITIONS, f"MaxNodes {about}", "²", 1),
        Unreadable(parse.PARTITIONS, f"MinNodes {about}", None, 5000),
        Unreadable(parse.PARTITIONS, f"TotalNodes {about}", "-1", 2),
        Unreadable(parse.PARTITIONS, f"Nodes {about}", "n[1-2[3]]", 9),
        Unreadable(parse.PARTITIONS, f"MaxCPUsPerNode {about}", "1e3", 3),
        Unreadable(parse.PARTITIONS, f"MaxMemPerNode {about}", "64G", 3),
        Unreadable(parse.PARTITIONS, "a partition name", None, 257),
    ]
    assert notes[1].said == "cannot read MaxTime of partition 'p' ('²:00')"
    assert notes[4].said == "cannot read MinNodes of partition 'p' (5000 characters)"


def test_a_name_up_to_the_bound_is_read() -> None:
    name = "p" * 256
    assert list(parse.partitions(f"PartitionName={name}x\nPartitionName=ok")) == ["ok"]
    assert list(parse.partitions(f"PartitionName={name} State={'U' * 256}")) == [name]
    assert parse.partitions(f"PartitionName={name} State={'U' * 256}")[name].state == "U" * 256
    assert list(parse.nodes(f"NodeName={name}")) == [name]
    notes: list[Unreadable] = []
    assert list(parse.nodes(f"NodeName={name}x\nNodeName=ok", notes)) == ["ok"]
    assert notes == [Unreadable(parse.NODES, "a node name", None, 257)]


@pytest.mark.parametrize(
    ("state", "read"),
    [("idle+drain", "IDLE+DRAIN"), ("DOWN*", "DOWN*"), ("mixed~", "MIXED~"), ("up", "UP"),
     ("ß", ""), ("\x1b[2J", ""), ("a=b", ""), ("", "")],
)  # fmt: skip
def test_a_state_is_a_word_in_capitals(state: str, read: str) -> None:
    notes: list[Unreadable] = []
    assert parse.partitions("PartitionName=p State=" + state, notes)["p"].state == read
    assert parse.nodes("NodeName=n State=" + state)["n"].state == read
    assert [n.said for n in notes] == (
        [] if read else [f"cannot read State of partition 'p' ('{state}')"]
    )


def test_nodes_with_fields_that_cannot_be_read() -> None:
    notes: list[Unreadable] = []
    text = "NodeName=a Gres=gpu:² CPUTot=² RealMemory=" + "9" * 41 + " State=idle\nNodeName=b\n"
    assert parse.nodes(text, notes) == {
        "a": Node("a", gpus=None, cpus=None, memory=None, state="IDLE"),
        "b": Node("b", gpus=0, cpus=None, memory=None, state=""),
    }
    assert notes == [
        Unreadable(parse.NODES, "Gres of node 'a'", "gpu:²", 5),
        Unreadable(parse.NODES, "CPUTot of node 'a'", "²", 1),
        Unreadable(parse.NODES, "RealMemory of node 'a'", None, 41),
    ]
    assert notes[2].said == "cannot read RealMemory of node 'a' (41 characters)"


def test_notes_show_a_value_only_whole() -> None:
    notes: list[Unreadable] = []
    parse.Notes("c", notes).unreadable("x", "v" * 40)
    parse.Notes("c", notes).unreadable("y", "v" * 41)
    parse.Notes("c", notes).unreadable("z", "")
    assert notes == [
        Unreadable("c", "x", "v" * 40, 40),
        Unreadable("c", "y", None, 41),
        Unreadable("c", "z", "", 0),
    ]
    assert Unreadable("c", "did not answer within 5s").said == "did not answer within 5s"


def test_the_cluster_name_is_used_only_when_it_is_one() -> None:
    assert Cluster(config={"ClusterName": "automodel-launch_1.a"}).name == "automodel-launch_1.a"
    for bad in ("a b", "x" * 65, "", "-", "a=b", "é"):
        expected = "-" if bad == "-" else None
        assert Cluster(config={"ClusterName": bad}).name == expected, bad
    assert Cluster(config={"ClusterName": "x" * 64}).name == "x" * 64
    assert Cluster().name is None


def test_associations() -> None:
    # `sacctmgr -nP show assoc format=account,partition,qos`: one row per association
    text = "|||\nresearch|batch|normal,high\nstudents||normal\nshort|\n"
    assert parse.associations(text) == [
        Association("research", "batch", ("normal", "high")),
        Association("students", "", ("normal",)),
    ]


def test_associations_that_cannot_be_read_are_skipped_and_noted() -> None:
    long = "a" * 257
    many = ",".join(f"q{i}" for i in range(MAX_QOS + 1))
    text = f"{long}||\nok|{long}|\nok||{long}\nok||{many}\nfine|" + "p" * 256 + "|\n"
    assert parse.associations(f"{long}||\nfine||") == [Association("fine")]
    notes: list[Unreadable] = []
    assert parse.associations(text, notes) == [Association("fine", "p" * 256)]
    assert [(n.command, n.what, n.length) for n in notes] == [
        (parse.SACCTMGR, "an association", 259),
        (parse.SACCTMGR, "an association", 261),
        (parse.SACCTMGR, "an association", 261),
        (parse.SACCTMGR, "an association", len(many) + 4),
    ]
    most = ",".join(f"q{i}" for i in range(MAX_QOS))
    assert len(parse.associations(f"ok||{most}")[0].qos) == MAX_QOS


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("3.4.1\n", (3, 4, 1)), ("4.0\n", (4, 0)), ("enroot 3.5.0 (abc)", (3, 5, 0)),
        ("123456.1", (123456, 1)), ("\n 3.4.1\n", (3, 4, 1)), ("", None),
        ("1234567.1", None), ("1.1234567", None), ("9" * 5000 + ".1", None),
        ("١.٢", None), ("x\n3.4.1", None), ("v" * 300 + "3.4", None), ("v" * 250 + "3.4", (3, 4)),
    ],
)  # fmt: skip
def test_enroot_version(text: str, version: tuple[int, ...] | None) -> None:
    assert parse.version(text) == version


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


def test_test_only_answer_is_fit_to_show() -> None:
    """No token, no escape, at most ten lines: sbatch's words reach a diagnostic as text."""
    token = "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH"  # built, so no literal credential
    said = f"sbatch: error: \x1b[2J{token} refused\n" + "".join(f"l{i}\n" for i in range(20))
    assert parse.test_only_answer(said) == (
        "error: \\x1b[2J*** refused; " + "; ".join(f"l{i}" for i in range(9))
    )
    assert parse.test_only_answer("sbatch: " + "x " * 10000) == "x " * 300 + "..."


def test_lines_without_a_name_are_skipped() -> None:
    """Noise between the ``-o`` lines (a warning, an empty name) names no partition or node."""
    text = "scontrol: warning: x=1\nPartitionName= State=DOWN\nPartitionName=p Nodes=n1\n"
    assert list(parse.partitions(text)) == ["p"]
    assert list(parse.nodes(text.replace("Partition", "Node"))) == ["p"]
    assert parse.partitions("\udcff\x00 PartitionName=\x1b[2J State=UP") == {
        "\x1b[2J": Partition("\x1b[2J", "UP")
    }
    assert [name for name, _ in parse.records(text, "PartitionName")] == ["p"]


def test_a_failed_or_cut_answer_is_noted() -> None:
    notes: list[Unreadable] = []
    assert _output(Answer(0, "PartitionName=p", "", truncated=True), "c", notes) == (
        "PartitionName=p"
    )
    assert _output(Answer(2, "PartitionName=p", "fatal: no\n"), "c", notes) == ""
    assert _output(Answer(0, "ok", ""), "c", notes) == "ok"
    assert [n.said for n in notes] == [
        "its answer was too long and was cut",
        "exit status 2: fatal: no",
    ]


def test_fields_and_config_lines() -> None:
    assert parse.fields("A=1 A=2 word =x B=a=b") == {"A": "1", "B": "a=b"}
    assert parse.config("X = a=b\nword\n= x\na b = c\nX = again\nY=1\n") == {
        "X": "a=b",
        "Y": "1",
    }
