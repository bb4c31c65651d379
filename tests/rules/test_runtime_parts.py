"""The parts of the startup-size rules: how each AutoModel release builds its mesh, how
AutoModel's loader reads a size, and the ranks each launcher section starts."""

from __future__ import annotations

from typing import Any

import pytest

from automodel_launch.automodel.versions import KNOWN
from automodel_launch.diagnostics import Collector
from automodel_launch.loading import load_text
from automodel_launch.rules import Context
from automodel_launch.rules.mesh import UNKNOWN, Mesh, read_int, read_mesh, release_of
from automodel_launch.rules.sections import validate_sections
from automodel_launch.rules.world import LOCAL, ONE_NODE, World, world_of
from automodel_launch.rules.world import UNKNOWN as NO_WORLD
from tests.conftest import offline_settings

OLD = ("global_batch_size", "local_batch_size", "max_steps", "num_epochs", "val_every_steps")


@pytest.mark.parametrize(
    ("version", "flags", "ep_axes", "positive"),
    [
        # by_target dp_counts_cp takes_dp_size limits (replicas need fsdp2, ddp's dp = world)
        ("0.1.0", (True, True, True, False, False), ("dp",), OLD),
        ("0.1.2", (True, True, True, False, False), ("dp",), OLD),
        ("0.2.0", (True, False, True, False, False), ("dp", "cp"), OLD),
        ("0.3.0", (False, False, True, False, True), ("dp", "cp"),
         (*OLD, "log_remote_every_steps")),
        ("0.4.0", (False, False, True, False, True), ("dp", "cp"),
         (*OLD, "log_remote_every_steps", "gc_every_steps")),
        *[
            (version, (False, False, False, True, True), ("dp", "cp", "tp"),
             (*OLD, "log_remote_every_steps", "gc_every_steps", "loss_average_window_steps"))
            for version in ("0.5.0", "0.6.0", "0.7.0", "main")
        ],
    ],
)  # fmt: skip
def test_each_release_as_its_sources_build_it(
    version: str,
    flags: tuple[bool, ...],
    ep_axes: tuple[str, ...],
    positive: tuple[str, ...],
) -> None:
    rel = release_of(version)
    assert rel.version == version
    assert (rel.by_target, rel.dp_counts_cp, rel.scheduler_takes_dp_size,
            rel.strategy_limits, rel.replicate_needs_fsdp2) == flags  # fmt: skip
    assert rel.ddp_dp_is_world is flags[4]
    assert rel.ep_axes == ep_axes
    assert rel.positive == positive


def test_every_known_release_has_its_rules() -> None:
    assert [release_of(v).version for v in KNOWN] == list(KNOWN)


@pytest.mark.parametrize(
    ("value", "read"),
    [
        (8, 8), (0, 0), (-2, -2), ("8", 8), (" 16 ", 16), ("none", None), ("None", None),
        (None, None), ("${TP_SIZE}", UNKNOWN), ("${oc.env:TP,2}", UNKNOWN), (True, UNKNOWN),
        (8.0, UNKNOWN), ("8.0", UNKNOWN), ("eight", UNKNOWN), ([8], UNKNOWN), ("[8]", UNKNOWN),
        ({"a": 1}, UNKNOWN), ("True", UNKNOWN), ("0x10", 16), ("1_024", 1024),
        ("9" * 1001, UNKNOWN), ("9" * 1000, int("9" * 1000)), ("(", UNKNOWN), ("1e400", UNKNOWN),
    ],
)  # fmt: skip
def test_a_size_is_read_as_automodel_reads_it(value: Any, read: Any) -> None:
    got = read_int({"distributed": {"tp_size": value}}, ("distributed", "tp_size"))
    assert (got, type(got)) == (read, type(read))


@pytest.mark.parametrize(
    "data", [{}, {"distributed": None}, {"distributed": []}, {"distributed": {"cp_size": 2}}]
)
def test_a_size_that_is_not_there_is_none(data: dict[str, Any]) -> None:
    assert read_int(data, ("distributed", "tp_size")) is None


def mesh(text: str, version: str = "0.7.0") -> Mesh | None:
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    return read_mesh(loaded.data, release_of(version))


@pytest.mark.parametrize(
    ("text", "version", "read"),
    [
        ("x: 1\n", "0.1.0", Mesh("none")),
        ("x: 1\n", "0.3.0", Mesh("fsdp2")),
        ("distributed:\n  tp_size: 2\n", "0.7.0", Mesh("fsdp2", tp=2)),
        ("distributed:\n  strategy: MFSDP\n  cp_size: 2\n", "0.5.0",
         Mesh("megatron_fsdp", cp=2)),
        ("distributed:\n  strategy: megatron-fsdp\n", "0.7.0", Mesh("megatron_fsdp")),
        ("distributed:\n  strategy: DDP\n", "main", Mesh("ddp")),
        ("distributed:\n  strategy: megatron_fsdp\n", "0.3.0", Mesh("megatron_fsdp")),
        ("distributed:\n  strategy: ddp\n", "0.4.0", Mesh("ddp")),
        ("distributed:\n  _target_: nemo_automodel.components.distributed.fsdp2.FSDP2Manager\n"
         "  cp_size: 2\n  ep_size: 4\n", "0.1.0", Mesh("fsdp2", cp=2, ep=4)),
        ("distributed:\n  _target_: x.megatron_fsdp.MegatronFSDPManager\n", "0.2.0",
         Mesh("megatron_fsdp")),
        ("distributed:\n  _target_: x.ddp.DDPManager\n", "0.1.2", Mesh("ddp")),
        ("distributed:\n  _target_: FSDP2Manager\n", "0.1.0", Mesh("fsdp2")),
        ("distributed:\n  _target_: x.FSDP2Manager\n  strategy: ddp\n", "0.6.0", Mesh("ddp")),
        ("separate_meshes: false\ndistributed:\n  dp_size: 2\n", "0.7.0", Mesh("fsdp2", dp=2)),
        ("separate_meshes: 'False'\n", "0.7.0", Mesh("fsdp2")),
        ("distributed:\n  tp_size: 0\n  cp_size: -2\n  pp_size: null\n  ep_size: none\n"
         "  dp_size: 0\n  dp_replicate_size: -1\n", "0.7.0", Mesh("fsdp2")),
        ("distributed:\n  dp_size: 4\n  dp_replicate_size: 2\n  pp_size: '2'\n", "0.7.0",
         Mesh("fsdp2", pp=2, dp=4, replicate=2)),
    ],
)  # fmt: skip
def test_the_mesh_as_the_release_reads_it(text: str, version: str, read: Mesh) -> None:
    assert mesh(text, version) == read


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("distributed: fsdp2\n", "0.7.0"),
        ("distributed:\n  strategy: mfsdp\n", "0.4.0"),  # the aliases came in 0.5.0
        ("distributed:\n  strategy: FSDP2\n", "0.3.0"),  # and the letter case
        ("distributed:\n  strategy: zero3\n", "0.7.0"),
        ("distributed:\n  strategy: null\n", "0.7.0"),
        ("distributed:\n  tp_size: 2\n", "0.1.0"),  # no _target_: no manager
        ("distributed:\n  _target_: my.own.Manager\n", "0.2.0"),
        ("distributed:\n  _target_: 3\n", "0.2.0"),
        ("distributed:\n  tp_size: ${TP}\n", "0.7.0"),
        ("distributed:\n  dp_replicate_size: 2.0\n", "0.7.0"),
        ("separate_meshes: true\ndistributed:\n  dp_size: 2\n", "0.7.0"),
    ],
)
def test_a_mesh_that_cannot_be_known_is_none(text: str, version: str) -> None:
    assert mesh(text, version) is None


def test_the_mesh_axes_beside_dp() -> None:
    fsdp2 = Mesh("fsdp2", tp=2, cp=3, pp=5, ep=7)
    megatron = Mesh("megatron_fsdp", tp=2, cp=3, pp=5)
    assert fsdp2.axes() == (("tp_size", 2), ("cp_size", 3), ("pp_size", 5))
    assert megatron.axes() == (("tp_size", 2), ("cp_size", 3))
    assert (fsdp2.non_dp(), megatron.non_dp()) == (30, 6)
    assert [Mesh(s).has_mesh() for s in ("fsdp2", "megatron_fsdp", "ddp", "none")] == [
        True, True, False, False,
    ]  # fmt: skip


def test_dp_is_explicit_or_what_the_ranks_leave() -> None:
    assert Mesh("fsdp2", tp=2, dp=3).dp_for(None) == 3
    assert Mesh("fsdp2", tp=2, dp=3).dp_for(16) == 3
    assert Mesh("fsdp2", tp=2, pp=2).dp_for(16) == 4
    assert Mesh("fsdp2", tp=2, pp=2).dp_for(12) == 3
    assert Mesh("fsdp2", tp=2, pp=2).dp_for(10) is None
    assert Mesh("fsdp2", tp=2).dp_for(None) is None


@pytest.mark.parametrize(
    ("version", "base", "least"),
    [("0.1.0", 4, 8), ("0.2.0", 12, 8), ("0.4.0", 12, 8), ("0.5.0", 24, 4), ("main", 24, 4)],
)
def test_what_ep_must_divide_per_release(version: str, base: int, least: int) -> None:
    rel = release_of(version)
    expert = Mesh("fsdp2", tp=2, cp=3, ep=8)
    assert expert.ep_base(rel, 4) == base
    assert expert.least_dp(rel) == least


def test_the_least_dp_for_replicas_and_experts() -> None:
    rel = release_of("0.7.0")
    assert Mesh("fsdp2").least_dp(rel) == 1
    assert Mesh("fsdp2", ep=2).least_dp(rel) == 2
    assert Mesh("fsdp2", replicate=4).least_dp(rel) == 8  # a multiple, and above it
    assert Mesh("fsdp2", replicate=4, ep=8).least_dp(rel) == 8
    assert Mesh("fsdp2", replicate=2, ep=3).least_dp(rel) == 6
    assert Mesh("megatron_fsdp", ep=8, replicate=2).least_dp(rel) == 1


def world(text: str) -> World:
    loaded = load_text(text, "config.yaml").loaded
    assert loaded is not None
    ctx = Context(loaded.data, Collector(), offline_settings())
    validate_sections(ctx)
    return world_of(ctx)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("slurm:\n  nodes: 2\n  ntasks_per_node: 4\n",
         World(8, text="slurm (2 nodes x 4 ranks per node)",
               change="slurm.nodes or slurm.ntasks_per_node")),
        ("slurm: {}\n", World(8, text="slurm (1 node x 8 ranks per node)",
                              change="slurm.nodes or slurm.ntasks_per_node")),
        ("skypilot:\n  cloud: aws\n  accelerators: H100:8\n  num_nodes: 3\n",
         World(24, text="skypilot (3 nodes x 8 accelerators per node)",
               change="skypilot.num_nodes or skypilot.accelerators")),
        ("skypilot:\n  cloud: aws\n  accelerators: H100:8\n  gpus_per_node: 4\n",
         World(4, text="skypilot (1 node x 4 ranks per node)",
               change="skypilot.num_nodes or skypilot.accelerators")),
        ("skypilot:\n  cloud: aws\n  num_nodes: 2\n",
         World(2, text="skypilot (2 nodes x 1 accelerators per node)",
               change="skypilot.num_nodes or skypilot.accelerators")),
        ("k8s:\n  num_nodes: 2\n  gpus_per_node: 4\n",
         World(8, text="k8s (2 pods x 4 GPUs per pod)",
               change="k8s.num_nodes or k8s.gpus_per_node")),
        ("k8s: {}\n", World(8, text="k8s (1 pod x 8 GPUs per pod)",
                            change="k8s.num_nodes or k8s.gpus_per_node")),
        ("model: {}\n", LOCAL),
        ("slurm: null\nmodel: {}\n", LOCAL),
        ("nemo_run:\n  executor: local\n  nodes: 2\n", NO_WORLD),
        ("kubernetes:\n  replicas: 2\n", NO_WORLD),
        ("lepton:\n  resource_shape: gpu.8xh100\n", NO_WORLD),
        ("slurm:\n  nodes: 2\nskypilot:\n  cloud: aws\n", NO_WORLD),
        ("slurm:\n  nodes: 2\n  command: automodel finetune llm -c cfg.yaml\n", NO_WORLD),
        ("slurm:\n  nodes: 2\n  script: my_job.sbatch\n", NO_WORLD),
        ("slurm:\n  nodes: zero\n", NO_WORLD),
        ("slurm:\n  ntasks_per_node: 0\n", NO_WORLD),
        ("slurm:\n  nodes: 2\n  time: 4h\n", World(16, text="slurm (2 nodes x 8 ranks per node)",
                                                   change="slurm.nodes or slurm.ntasks_per_node")),
        ("slurm: [1]\n", NO_WORLD),
        ("skypilot:\n  cloud: aws\n  accelerators: H100\n  num_nodes: x\n", NO_WORLD),
        ("skypilot:\n  cloud: aws\n  accelerators: 'H100:x'\n", NO_WORLD),
        ("skypilot:\n  cloud: aws\n  gpus_per_node: 0\n", NO_WORLD),
        ("skypilot:\n  cloud: mars\n", NO_WORLD),
        ("k8s:\n  num_nodes: 0\n", NO_WORLD),
        ("k8s:\n  gpus_per_node: x\n", NO_WORLD),
        ("k8s:\n  image: /x.sqsh\n", World(8, text="k8s (1 pod x 8 GPUs per pod)",
                                           change="k8s.num_nodes or k8s.gpus_per_node")),
    ],
)  # fmt: skip
def test_the_ranks_each_launcher_starts(text: str, found: World) -> None:
    assert world(text) == found


def test_one_node_is_an_eight_gpu_node() -> None:
    assert ONE_NODE == 8
    assert (LOCAL.ranks, LOCAL.local, NO_WORLD.ranks, NO_WORLD.local) == (None, True, None, False)
