"""Preflight of a job array against the test cluster's captured description (MaxArraySize
1001; partitions batch: 2 nodes, debug: 1 node of MaxNodes=1, wide: MinNodes=2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from automodel_launch.diagnostics import CODES, Diagnostic, Severity
from automodel_launch.launchers.slurm.cluster import parse
from automodel_launch.launchers.slurm.cluster.model import Cluster, Unreadable
from automodel_launch.launchers.slurm.cluster.preflight import Preflight
from automodel_launch.launchers.slurm.cluster.reader import ClusterReader
from automodel_launch.loading import load_text
from automodel_launch.validation import validate_loaded
from tests.conftest import offline_settings
from tests.launchers.slurm.cluster.test_parse import captured
from tests.launchers.slurm.cluster.test_rules import BARE, the_cluster

CONFIG = "slurm:\n  partition: {partition}\n  nodes: {nodes}\n  ntasks_per_node: 4\n" + BARE


def arrays_cluster(**changes: object) -> Cluster:
    """The captured cluster, its MaxArraySize read as the reader reads it."""
    config = parse.config(captured("scontrol_show_config.txt"))
    return the_cluster(**{"max_array_size": parse.max_array_size(config), **changes})


def array(
    tasks: int, max_parallel: int | None, *, partition: str = "batch", nodes: int = 1,
    **cluster: object,
) -> list[Diagnostic]:  # fmt: skip
    text = CONFIG.format(partition=partition, nodes=nodes)
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    assert report.document is not None, report.diagnostics
    before = list(report.diagnostics)
    reader = ClusterReader(environ={"PATH": ""}, _cluster=arrays_cluster(**cluster))
    Preflight(reader).check_array(report, tasks, max_parallel)
    return [d for d in report.diagnostics if d not in before]


def test_max_array_size_is_read_from_the_configuration() -> None:
    config = parse.config(captured("scontrol_show_config.txt"))
    assert parse.max_array_size(config) == 1001
    notes: list[Unreadable] = []
    assert parse.max_array_size({}, notes) is None  # not printed: unknown, not 0
    assert parse.max_array_size({"MaxArraySize": "0"}, notes) == 0
    for unreadable in ("-1", "1e3", "", "9" * 16, "²"):
        assert parse.max_array_size({"MaxArraySize": unreadable}, notes) is None
    assert [n.said for n in notes][:2] == [
        "cannot read MaxArraySize ('-1')", "cannot read MaxArraySize ('1e3')"
    ]  # fmt: skip
    assert {n.command for n in notes} == {"scontrol show config"}
    assert len(notes) == 5


@pytest.mark.parametrize(("tasks", "refused"), [(1, False), (1001, False), (1002, True)])
def test_an_array_over_max_array_size_is_refused(tasks: int, refused: bool) -> None:
    found = array(tasks, 2, max_array_size=1001)
    if not refused:
        assert found == []
        return
    [d] = found
    assert (d.code, d.severity, d.line, d.column, d.path) == (
        "array-too-large", Severity.ERROR, 1, 1, "slurm"
    )  # fmt: skip
    assert d.message == (
        "an array of 1002 tasks has the indices 0-1001, over the cluster's MaxArraySize 1001 "
        "(indices up to 1000): sbatch refuses it"
    )
    assert d.hint == "sweep at most 1001 points, or split the sweep"


def test_an_unknown_max_array_size_is_never_zero() -> None:
    [d] = array(5000, 2, max_array_size=None)
    assert (d.code, d.severity, d.line, d.column) == ("scheduler-output", Severity.NOTE, 1, 1)
    assert d.message == (
        "`scontrol show config` gave no MaxArraySize: the array's size was not checked"
    )
    [d] = array(1, None, max_array_size=0)
    assert d.message == (
        "an array of 1 tasks has the indices 0-0, the cluster takes no job arrays "
        "(MaxArraySize=0): sbatch refuses it"
    )
    assert (d.hint, d.line, d.column) == ("submit the points one by one", 1, 1)


@pytest.mark.parametrize(
    ("tasks", "max_parallel", "nodes", "partition", "waits"),
    [(4, 2, 1, "batch", None), (2, 5, 1, "batch", None), (4, 5, 1, "batch", 2),
     (1, None, 2, "batch", None),
     (4, 3, 1, "batch", 2), (4, None, 1, "batch", 2), (4, 2, 2, "batch", 1),
     (100, 1, 1, "debug", None), (3, 2, 3, "batch", None), (9, 4, 1, "nope", None)],
)  # fmt: skip
def test_tasks_at_once_against_the_partitions_nodes(
    tasks: int, max_parallel: int | None, nodes: int, partition: str, waits: int | None
) -> None:
    found = [d for d in array(tasks, max_parallel, partition=partition, nodes=nodes)]
    if waits is None:
        assert found == []  # a task that does not fit alone is the one-job rules' finding
        return
    [d] = found
    assert (d.code, d.severity, d.path) == ("array-over-partition", Severity.NOTE, "slurm.nodes")
    at_once = min(tasks, max_parallel or tasks)
    asked = f"--max-parallel {max_parallel}" if max_parallel else "no --max-parallel"
    assert d.message == (
        f"{at_once} tasks at once ({asked}) of {nodes} node(s) each need {at_once * nodes} "
        f"nodes; partition '{partition}' has 2: at most {waits} run at once, the others wait"
    )
    assert d.hint == f"set --max-parallel {waits} to say so, or choose a larger partition"


def test_the_default_partition_is_the_tasks_when_none_is_set() -> None:
    loaded = load_text("slurm:\n  ntasks_per_node: 4\n" + BARE, "c.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    reader = ClusterReader(environ={"PATH": ""}, _cluster=arrays_cluster())
    Preflight(reader).check_array(report, 3, None)
    [d] = [d for d in report.diagnostics if d.code == "array-over-partition"]
    assert "the cluster's default partition 'batch' has 2" in d.message
    assert d.path == "slurm"  # nodes is not written: at the section


def test_an_array_of_no_task_or_no_parallel_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="at least one task"):
        array(0, 1)
    with pytest.raises(ValueError, match="--max-parallel is at least 1"):
        array(4, 0)


def test_the_codes_are_catalogued() -> None:
    assert CODES["array-too-large"][0] == Severity.ERROR
    assert CODES["array-over-partition"][0] == Severity.NOTE


def test_a_partition_of_unknown_size_is_not_checked() -> None:
    from dataclasses import replace

    cluster = arrays_cluster()
    batch = replace(cluster.partitions["batch"], total_nodes=None)
    assert array(50, None, partitions={**cluster.partitions, "batch": batch}) == []


def test_an_array_of_a_split_sweep_is_bounded_by_its_largest_index() -> None:
    text = CONFIG.format(partition="batch", nodes=1)
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    report = validate_loaded(loaded, offline_settings())
    reader = ClusterReader(environ={"PATH": ""}, _cluster=arrays_cluster(max_array_size=1001))
    Preflight(reader).check_array(report, 2, None, last=1001)
    [d] = [d for d in report.diagnostics if d.code == "array-too-large"]
    assert d.message == (
        "an array of 2 tasks has the indices up to 1001, over the cluster's MaxArraySize 1001 "
        "(indices up to 1000): sbatch refuses it"
    )


def test_each_slurm_section_of_a_sweep_is_asked_about_on_its_own_points(tmp_path: Path) -> None:
    """A sweep over slurm.nodes on a partition of MaxNodes=1: the point of 2 nodes (an
    array of its own) is refused, the point of 1 is not."""
    from automodel_launch.commands.preflight import ask_the_cluster
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.plan.sweep import parse_axis
    from automodel_launch.prepare import EntryChoice
    from tests.plan.test_plan_cli import RECIPE

    path = tmp_path / "config.yaml"
    path.write_text(CONFIG.format(partition="debug", nodes=1) + "  time: 00:10:00\n" + RECIPE)
    plan = plan_jobs(
        path, offline_settings(), entry=EntryChoice(), axes=[parse_axis("slurm.nodes=1,2")]
    )
    reader = ClusterReader(environ={"PATH": ""}, _cluster=arrays_cluster())
    ask_the_cluster(plan, Preflight(reader))
    codes = [[d.code for d in job.report.diagnostics if d.is_error] for job in plan.jobs]
    assert codes == [[], ["nodes-outside-partition-limits"]]
    [merged] = [d for d in plan.report.diagnostics if d.is_error]
    assert merged.message == (
        "point 1 (slurm.nodes=2): nodes: 2 is more than partition 'debug' has (1): sbatch "
        "accepts the job and it pends forever (reason PartitionNodeLimit)"
    )
