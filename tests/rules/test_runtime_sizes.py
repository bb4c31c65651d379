"""AutoModel's startup checks on sizes, reported before the queue at the value to change,
for the release ``automodel_version`` names."""

from __future__ import annotations

import pytest

from automodel_launch.diagnostics import Diagnostic
from tests.conftest import Validate, brief

SLURM_2X8 = "slurm:\n  nodes: 2\n  ntasks_per_node: 8\n  time: '04:00:00'\n"
SKY_3X8 = "skypilot:\n  cloud: gcp\n  accelerators: A100:8\n  num_nodes: 3\n"
K8S_2X8 = "k8s:\n  num_nodes: 2\n  gpus_per_node: 8\n"
RUNTIME = {
    "size-not-positive", "batch-not-divisible", "mesh-not-dividing-ranks", "dp-size-mismatch",
    "ep-size-mismatch", "dp-replicate-mismatch", "strategy-unsupported-size", "mesh-needs-nodes",
}  # fmt: skip


def batch(gbs: object, lbs: object | None = None) -> str:
    text = f"step_scheduler:\n  global_batch_size: {gbs}\n"
    return text + (f"  local_batch_size: {lbs}\n" if lbs is not None else "")


def dist(**sizes: object) -> str:
    return "distributed:\n" + "".join(f"  {key}: {value}\n" for key, value in sizes.items())


def runtime(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.code in RUNTIME]


def only(diags: list[Diagnostic]) -> Diagnostic:
    (found,) = runtime(diags)
    return found


# ----------------------------------------------------------------- the StepScheduler's sizes
def test_a_job_moved_from_one_node_to_two_stops_at_its_batch(validate: Validate) -> None:
    assert validate(batch(64, 8) + SLURM_2X8.replace("nodes: 2", "nodes: 1")) == []
    diags = validate(batch(64, 8) + SLURM_2X8)
    assert brief(diags) == ["2:22 error[batch-not-divisible] step_scheduler.global_batch_size"]
    assert diags[0].message == (
        "global_batch_size 64 is not a multiple of local_batch_size 8 x dp 16 = 128: "
        "AutoModel's StepScheduler stops the job at startup (dp 16: the 16 ranks of slurm "
        "(2 nodes x 8 ranks per node))"
    )
    assert diags[0].hint == (
        "set global_batch_size to a multiple of 128 (local_batch_size 8 x dp 16), e.g. 128"
    )


def test_dp_is_what_tp_cp_and_pp_leave_of_the_ranks(validate: Validate) -> None:
    diag = only(validate(batch(100, 2) + dist(tp_size=2, pp_size=2) + SLURM_2X8))
    assert diag.message.endswith(
        "(dp 4: the 16 ranks of slurm (2 nodes x 8 ranks per node) / (tp_size 2 x pp_size 2))"
    )
    assert diag.hint == (
        "set global_batch_size to a multiple of 8 (local_batch_size 2 x dp 4), e.g. 104"
    )
    assert validate(batch(96, 2) + dist(tp_size=2, pp_size=2) + SLURM_2X8) == []


def test_a_local_batch_size_left_out_is_one(validate: Validate) -> None:
    diag = only(validate(batch(20) + K8S_2X8))
    assert diag.message.startswith(
        "global_batch_size 20 is not a multiple of local_batch_size 1 x dp 16"
    )
    assert runtime(validate(batch(32) + K8S_2X8)) == []


def test_a_global_batch_size_left_out_is_the_recipes(validate: Validate) -> None:
    assert validate("step_scheduler:\n  local_batch_size: 64\n" + SLURM_2X8) == []


def test_with_dp_unknown_the_batch_is_still_a_multiple_of_the_local_one(
    validate: Validate,
) -> None:
    diag = only(validate(batch(30, 4)))
    assert (diag.code, diag.path) == ("batch-not-divisible", "step_scheduler.global_batch_size")
    assert diag.message == (
        "global_batch_size 30 is not a multiple of local_batch_size 4: AutoModel's "
        "StepScheduler needs a multiple of local_batch_size x dp, at any dp"
    )
    assert diag.hint == "set global_batch_size to a multiple of 4, e.g. 32"
    assert validate(batch(32, 4)) == []
    assert validate(batch(32, 4) + "nemo_run:\n  executor: local\n") == []


@pytest.mark.parametrize(
    "recipe",
    [
        batch("${GLOBAL_BATCH}", 8) + SLURM_2X8,
        batch(64, "${LOCAL_BATCH}") + SLURM_2X8,
        batch(64.0, 8) + SLURM_2X8,
        batch(64, 8) + dist(tp_size="${TP}") + SLURM_2X8,
        batch(64, 8) + dist(strategy="zero3") + SLURM_2X8,
        batch(64, 8) + "nemo_run:\n  executor: local\n  nodes: 2\n",
        batch(64, 8) + SLURM_2X8 + "  command: automodel finetune llm -c cfg.yaml\n",
        batch(64, 8) + "step_scheduler_extra: 1\n" + SLURM_2X8.replace("nodes: 2", "nodes: x"),
        "step_scheduler: [1]\n" + SLURM_2X8,
        "distributed: fsdp2\n" + SLURM_2X8,
    ],
)
def test_what_cannot_be_known_is_not_guessed_at(validate: Validate, recipe: str) -> None:
    assert runtime(validate(recipe)) == []


def test_sizes_of_zero_or_less(validate: Validate) -> None:
    text = (
        "step_scheduler:\n  global_batch_size: 0\n  local_batch_size: -1\n  max_steps: 0\n"
        "  num_epochs: -1\n  val_every_steps: 0\n  log_remote_every_steps: 0\n"
        "  gc_every_steps: 0\n  loss_average_window_steps: 0\n  ckpt_every_steps: 10\n"
    )
    diags = validate(text + SLURM_2X8)
    assert brief(diags) == [
        f"{line}:{column} error[size-not-positive] step_scheduler.{key}"
        for line, column, key in [
            (2, 22, "global_batch_size"), (3, 21, "local_batch_size"), (4, 14, "max_steps"),
            (5, 15, "num_epochs"), (6, 20, "val_every_steps"),
            (7, 27, "log_remote_every_steps"), (8, 19, "gc_every_steps"),
            (9, 30, "loss_average_window_steps"),
        ]
    ]  # fmt: skip
    assert diags[0].message == (
        "global_batch_size 0 is not more than 0: AutoModel 0.7.0's StepScheduler stops the "
        "job at startup"
    )
    assert diags[0].hint == "set global_batch_size to 1 or more"
    assert diags[1].hint == "set local_batch_size to 1 or more"
    assert diags[2].hint == "set max_steps to 1 or more, or leave it out"


def test_the_sizes_each_release_checks(validate: Validate) -> None:
    text = "step_scheduler:\n  log_remote_every_steps: 0\n  loss_average_window_steps: 0\n"
    # (a keyword the release's StepScheduler lacks is the recipe check's: left out here)
    assert brief(runtime(validate(text, automodel_version="0.2.0"))) == []
    assert [d.path for d in runtime(validate(text, automodel_version="0.4.0"))] == [
        "step_scheduler.log_remote_every_steps"
    ]
    assert len(runtime(validate(text, automodel_version="0.5.0"))) == 2
    assert "AutoModel 0.4.0's" in runtime(validate(text, automodel_version="0.4.0"))[0].message


@pytest.mark.parametrize("value", ["null", "none", "8", "'16'"])
def test_null_and_numbers_in_quotes_are_read_as_automodel_reads_them(
    validate: Validate, value: str
) -> None:
    assert validate(f"step_scheduler:\n  max_steps: {value}\n  val_every_steps: {value}\n") == []


# ------------------------------------------------------------------------- the device mesh
def test_tp_times_pp_that_does_not_divide_the_ranks(validate: Validate) -> None:
    diags = runtime(validate(batch(48, 2) + dist(tp_size=8, pp_size=2) + SKY_3X8))
    assert brief(diags) == ["6:12 error[mesh-not-dividing-ranks] distributed.pp_size"]
    assert diags[0].message == (
        "tp_size 8 x pp_size 2 = 16 does not divide the 24 ranks of skypilot (3 nodes x 8 "
        "accelerators per node): AutoModel 0.7.0 cannot build its device mesh (the world "
        "size must be a multiple of tp_size x cp_size x pp_size)"
    )
    assert diags[0].hint == (
        "use sizes whose product divides 24, or change skypilot.num_nodes or "
        "skypilot.accelerators to start a multiple of 16 ranks"
    )


def test_the_size_that_alone_does_not_divide_is_the_one_to_change(validate: Validate) -> None:
    diag = only(validate(dist(tp_size=2, cp_size=16) + SKY_3X8))
    assert diag.path == "distributed.cp_size"
    assert diag.message.startswith("tp_size 2 x cp_size 16 = 32 does not divide the 24 ranks")
    diag = only(validate(dist(tp_size=5) + SKY_3X8))
    assert diag.message.startswith("tp_size 5 does not divide the 24 ranks")


def test_megatron_fsdp_has_no_pp_axis(validate: Validate) -> None:
    text = dist(strategy="megatron_fsdp", tp_size=8, pp_size=3) + SKY_3X8
    assert runtime(validate(text, automodel_version="0.4.0")) == []
    diag = only(validate(dist(strategy="megatron_fsdp", tp_size=16) + SKY_3X8))
    assert "the world size must be a multiple of tp_size x cp_size)" in diag.message


def test_an_explicit_dp_size_must_make_the_mesh_the_ranks(validate: Validate) -> None:
    diags = runtime(validate(batch(32, 4) + dist(dp_size=4, tp_size=2) + K8S_2X8))
    assert brief(diags) == ["5:12 error[dp-size-mismatch] distributed.dp_size"]
    assert diags[0].message == (
        "the device mesh of dp_size 4 x tp_size 2 holds 8 ranks, but k8s (2 pods x 8 GPUs "
        "per pod) starts 16: AutoModel's mesh must hold every rank, exactly"
    )
    assert diags[0].hint == (
        "set dp_size: 8, or leave it out (null) to let AutoModel derive it from the ranks"
    )
    assert runtime(validate(batch(64, 4) + dist(dp_size=8, tp_size=2) + K8S_2X8)) == []


def test_an_explicit_dp_size_beside_sizes_that_do_not_divide(validate: Validate) -> None:
    diag = only(validate(dist(dp_size=2, tp_size=3) + K8S_2X8))
    assert diag.message.startswith("the device mesh of dp_size 2 x tp_size 3 holds 6 ranks")
    assert diag.hint == (
        "leave dp_size out (null) to let AutoModel derive it, and make tp_size 3 divide 16"
    )
    diag = only(validate(dist(dp_size=32) + K8S_2X8))
    assert diag.message.startswith("the device mesh of dp_size 32 holds 32 ranks")


def test_the_batch_uses_an_explicit_dp_size(validate: Validate) -> None:
    diag = only(validate(batch(48, 4) + dist(dp_size=8, tp_size=2) + K8S_2X8))
    assert diag.message.endswith("(distributed.dp_size 8)")


@pytest.mark.parametrize(
    ("version", "error"),
    [
        ("0.1.0", "ep_size 16 does not divide dp 8: AutoModel 0.1.0"),
        ("0.2.0", "ep_size 16 does not divide dp 8 x cp 1 = 8: AutoModel 0.2.0"),
        ("0.4.0", "ep_size 16 does not divide dp 8 x cp 1 = 8: AutoModel 0.4.0"),
        ("0.7.0", None),
    ],
)
def test_what_ep_must_divide_depends_on_the_release(
    validate: Validate, version: str, error: str | None
) -> None:
    sizes = {"_target_": "nemo_automodel.components.distributed.fsdp2.FSDP2Manager",
             "tp_size": 2, "ep_size": 16}  # fmt: skip
    diags = runtime(validate(dist(**sizes) + SLURM_2X8, automodel_version=version))
    if error is None:
        assert diags == []
        return
    assert brief(diags) == ["4:12 error[ep-size-mismatch] distributed.ep_size"]
    assert diags[0].message == f"{error} cannot build the expert-parallel mesh"
    assert diags[0].hint == "use an ep_size that divides 8 (e.g. 8), or more ranks"


def test_an_ep_size_hint_names_the_largest_divisor_below_it(validate: Validate) -> None:
    diag = only(validate(dist(ep_size=12) + SLURM_2X8))
    assert diag.message.startswith("ep_size 12 does not divide dp 16 x cp 1 x tp 1 = 16")
    assert diag.hint == "use an ep_size that divides 16 (e.g. 8), or more ranks"


def test_replicas_must_split_dp(validate: Validate) -> None:
    diags = validate(dist(dp_replicate_size=3) + SLURM_2X8)
    assert brief(diags) == ["2:22 error[dp-replicate-mismatch] distributed.dp_replicate_size"]
    assert diags[0].message == (
        "dp_replicate_size 3 does not divide dp 16: AutoModel's FSDP2 mesh splits dp into "
        "replicas of equal size"
    )
    assert diags[0].hint == (
        "use a divisor of 16 below 16 (e.g. 8), or leave dp_replicate_size out"
    )
    diag = only(validate(dist(dp_replicate_size=16) + SLURM_2X8))
    assert diag.message == (
        "dp_replicate_size 16 is not less than dp 16: AutoModel's FSDP2 refuses pure "
        "replication (each replica must shard over 2 ranks or more)"
    )
    assert diag.hint == "use a divisor of 16 below 16 (e.g. 8), or DDP for pure replication"
    assert validate(dist(dp_replicate_size=2) + SLURM_2X8) == []
    assert validate(dist(dp_replicate_size=1, dp_size=1) + SLURM_2X8.replace("nodes: 2",
                                                                              "nodes: 1").replace(
        "ntasks_per_node: 8", "ntasks_per_node: 1")) == []  # fmt: skip


def test_a_prime_dp_has_no_replica_to_suggest(validate: Validate) -> None:
    sky = SKY_3X8.replace("A100:8", "A100:1").replace("num_nodes: 3", "num_nodes: 7")
    diag = only(validate(dist(dp_replicate_size=7) + sky))
    assert diag.hint == "leave dp_replicate_size out: dp 7 has no divisor between 1 and itself"


@pytest.mark.parametrize(
    ("strategy", "key", "kind"),
    [
        ("megatron_fsdp", "pp_size", "pipeline"), ("megatron_fsdp", "ep_size", "expert"),
        ("ddp", "tp_size", "tensor"), ("ddp", "pp_size", "pipeline"),
        ("ddp", "cp_size", "context"), ("ddp", "ep_size", "expert"),
    ],
)  # fmt: skip
def test_sizes_a_strategy_does_not_support(
    validate: Validate, strategy: str, key: str, kind: str
) -> None:
    text = dist(strategy=strategy, **{key: 2})
    diags = runtime(validate(text, automodel_version="0.5.0"))
    assert brief(diags) == [f"3:{len(key) + 5} error[strategy-unsupported-size] distributed.{key}"]
    assert diags[0].message == (
        f"strategy {strategy} does not support {kind} parallelism ({key} 2): AutoModel 0.5.0 "
        "stops the job at startup"
    )
    assert diags[0].hint == f"set {key}: 1, or strategy: fsdp2"
    assert runtime(validate(text, automodel_version="0.4.0")) == []


def test_replicas_need_fsdp2_from_0_3_0(validate: Validate) -> None:
    text = dist(strategy="megatron_fsdp", dp_replicate_size=2)
    diag = only(validate(text, automodel_version="0.3.0"))
    assert diag.message == (
        "dp_replicate_size 2 needs strategy fsdp2, not megatron_fsdp: AutoModel 0.3.0 stops "
        "the job at startup"
    )
    assert diag.hint == "leave dp_replicate_size out, or set strategy: fsdp2"
    assert runtime(validate(dist(strategy="megatron_fsdp", dp_replicate_size=1))) == []


# ---------------------------------------------------------- the dp each release hands over
def test_before_0_3_0_no_distributed_section_means_dp_1(validate: Validate) -> None:
    assert runtime(validate(batch(64, 8) + SLURM_2X8, automodel_version="0.2.0")) == []
    diag = only(validate(batch(60, 8) + SLURM_2X8, automodel_version="0.1.0"))
    assert diag.message.endswith(
        "(dp 1: without a distributed: section AutoModel 0.1.0 builds no mesh)"
    )
    assert only(validate(batch(64, 8) + SLURM_2X8, automodel_version="0.3.0"))


def test_ddp_hands_over_the_world_from_0_3_0(validate: Validate) -> None:
    old = "distributed:\n  _target_: nemo_automodel.components.distributed.ddp.DDPManager\n"
    diag = only(validate(batch(60, 8) + old + SLURM_2X8, automodel_version="0.1.2"))
    assert diag.message.endswith("(dp 1: AutoModel 0.1.2's DDPManager builds no mesh)")
    diag = only(validate(batch(64, 8) + dist(strategy="ddp") + SLURM_2X8))
    assert diag.message.endswith(
        "(dp 16: DDP over the 16 ranks of slurm (2 nodes x 8 ranks per node))"
    )
    assert runtime(validate(batch(64, 8) + dist(strategy="ddp"))) == []


def test_0_1_x_counts_context_parallel_ranks_as_data_parallel(validate: Validate) -> None:
    sizes = dist(_target_="nemo_automodel.components.distributed.fsdp2.FSDP2Manager", cp_size=2)
    text = batch(64, 8) + sizes + SLURM_2X8
    diag = only(validate(text, automodel_version="0.1.0"))
    assert diag.message.endswith(
        "(dp 16: AutoModel 0.1.0 counts dp 8 x cp_size 2; dp 8: the 16 ranks of slurm (2 "
        "nodes x 8 ranks per node) / (cp_size 2))"
    )
    assert runtime(validate(text, automodel_version="0.2.0")) == []


def test_a_scheduler_dp_size_counts_up_to_0_4_0(validate: Validate) -> None:
    text = batch(64, 8) + "  dp_size: 2\n" + SLURM_2X8
    assert runtime(validate(text, automodel_version="0.4.0")) == []
    diag = only(validate(batch(60, 8) + "  dp_size: 2\n" + SLURM_2X8, automodel_version="0.4.0"))
    assert diag.message.endswith("(step_scheduler.dp_size 2)")
    # from 0.5.0 the fine-tuning recipe drops it, the multimodal one keeps it: unknown
    assert runtime(validate(text, automodel_version="0.7.0")) == []
    assert only(validate(batch(60, 8) + "  dp_size: 2\n" + SLURM_2X8))


# ------------------------------------------------------------- no launcher: this node
def test_a_mesh_no_single_node_hosts_is_a_warning(validate: Validate) -> None:
    diags = runtime(validate(dist(tp_size=4, pp_size=4)))  # (and too few micro-batches)
    assert brief(diags) == ["2:12 warning[mesh-needs-nodes] distributed.tp_size"]
    assert diags[0].message == (
        "the device mesh needs 16 ranks (tp_size 4 x pp_size 4), and with no launcher section "
        "torchrun runs on this node: one node hosts 8 GPUs at most"
    )
    assert diags[0].hint == (
        "add a launcher section that starts a multiple of 16 ranks (e.g. slurm: with nodes: 2 "
        "and ntasks_per_node: 8)"
    )
    assert runtime(validate(dist(tp_size=4, pp_size=2))) == []


def test_the_ranks_experts_need_name_why(validate: Validate) -> None:
    diag = only(validate(dist(ep_size=32, pp_size=4)))
    assert diag.path == "distributed.ep_size"
    assert diag.message.startswith(
        "the device mesh needs 128 ranks (pp_size 4 x dp 32; ep_size 32 needs dp x cp x tp to "
        "be a multiple of 32)"
    )
    old = dist(_target_="x.fsdp2.FSDP2Manager", cp_size=2, ep_size=32, pp_size=4)
    diag = only(validate(old, automodel_version="0.1.0"))
    assert diag.path == "distributed.ep_size"
    assert diag.message.startswith(
        "the device mesh needs 256 ranks (cp_size 2 x pp_size 4 x dp 32; ep_size 32 needs dp to "
        "be a multiple of 32)"
    )
    diag = only(validate(dist(dp_replicate_size=8)))
    assert diag.message.startswith(
        "the device mesh needs 16 ranks (dp 16; dp_replicate_size 8 needs dp a larger "
        "multiple of it)"
    )
    assert diag.path == "distributed.dp_replicate_size"


def test_an_explicit_dp_size_without_a_launcher(validate: Validate) -> None:
    diag = only(validate(dist(dp_size=4, tp_size=3)))
    assert diag.path == "distributed.dp_size"
    assert diag.message.startswith("the device mesh needs 12 ranks (dp_size 4 x tp_size 3)")
    assert diag.hint == "add a launcher section that starts a multiple of 12 ranks"
    assert validate(dist(dp_size=4, tp_size=2)) == []
    diag = only(validate(dist(dp_size=4, ep_size=8)))
    assert diag.code == "ep-size-mismatch"


@pytest.mark.parametrize(
    "recipe",
    [
        dist(strategy="ddp", tp_size=1),
        dist(strategy="megatron_fsdp", ep_size=64),
        "model: {}\n",
        dist(tp_size=16) + "nemo_run:\n  executor: local\n",
    ],
)
def test_no_warning_where_no_mesh_or_no_count(validate: Validate, recipe: str) -> None:
    assert [d.code for d in validate(recipe) if d.code == "mesh-needs-nodes"] == []


# ------------------------------------------------------------------ the edges of each rule
def test_sizes_of_one_pass(validate: Validate) -> None:
    keys = ("global_batch_size", "local_batch_size", "max_steps", "num_epochs",
            "val_every_steps", "log_remote_every_steps", "gc_every_steps",
            "loss_average_window_steps")  # fmt: skip
    text = "step_scheduler:\n" + "".join(f"  {key}: 1\n" for key in keys)
    assert validate(text) == []


@pytest.mark.parametrize(("gbs", "lbs", "path"), [(-30, 4, "global"), (30, -4, "local")])
def test_a_batch_size_below_one_is_not_also_a_bad_multiple(
    validate: Validate, gbs: int, lbs: int, path: str
) -> None:
    assert [(d.code, d.path) for d in validate(batch(gbs, lbs) + SLURM_2X8)] == [
        ("size-not-positive", f"step_scheduler.{path}_batch_size")
    ]


def test_a_batch_of_one_on_sixteen_ranks(validate: Validate) -> None:
    diag = only(validate(batch(1, 1) + SLURM_2X8))
    assert diag.hint == (
        "set global_batch_size to a multiple of 16 (local_batch_size 1 x dp 16), e.g. 16"
    )


def test_a_scheduler_dp_size_is_taken_only_as_its_release_takes_it(validate: Validate) -> None:
    # 48 is a multiple of 8 x 2 but not of 8 x 16: the dp decides
    text = batch(48, 8) + "  dp_size: 2\n" + SLURM_2X8
    assert runtime(validate(text, automodel_version="0.4.0")) == []
    assert runtime(validate(text, automodel_version="0.7.0")) == []
    assert only(validate(batch(48, 8) + SLURM_2X8, automodel_version="0.4.0"))
    zero = batch(40, 8) + "  dp_size: 0\n" + SLURM_2X8
    assert runtime(validate(zero, automodel_version="0.4.0")) == []
    one = batch(12, 8) + "  dp_size: 1\n" + SLURM_2X8
    diag = only(validate(one, automodel_version="0.4.0"))
    assert diag.message.endswith("(step_scheduler.dp_size 1)")


def test_dp_1_without_a_distributed_section_before_0_3_0(validate: Validate) -> None:
    assert runtime(validate(batch(8, 8) + SLURM_2X8, automodel_version="0.2.0")) == []
    assert only(validate(batch(8, 8) + SLURM_2X8, automodel_version="0.3.0"))


@pytest.mark.parametrize(
    ("sizes", "launcher", "path"),
    [
        ({"tp_size": 2, "pp_size": 3},
         SKY_3X8.replace("A100:8", "A100:1"), "tp_size"),  # 3 ranks: 2 does not divide
        ({"tp_size": 16, "pp_size": 2}, SKY_3X8, "tp_size"),
        ({"tp_size": 4, "cp_size": 4}, SKY_3X8, "cp_size"),  # each divides 24, not both
        ({"tp_size": 2, "cp_size": 2, "pp_size": 2},
         K8S_2X8.replace("num_nodes: 2", "num_nodes: 3").replace("gpus_per_node: 8",
                                                                 "gpus_per_node: 4"),
         "pp_size"),
    ],
)  # fmt: skip
def test_the_size_to_change(
    validate: Validate, sizes: dict[str, int], launcher: str, path: str
) -> None:
    diag = only(validate(dist(**sizes) + launcher))
    assert (diag.code, diag.path) == ("mesh-not-dividing-ranks", f"distributed.{path}")


def test_every_reason_for_the_least_dp_is_named(validate: Validate) -> None:
    diag = only(validate(dist(ep_size=2, pp_size=8)))
    assert diag.message.startswith(
        "the device mesh needs 16 ranks (pp_size 8 x dp 2; ep_size 2 needs dp x cp x tp to be a "
        "multiple of 2), and"
    )
    assert diag.path == "distributed.pp_size"
    diag = only(validate(dist(tp_size=8, dp_replicate_size=2)))
    assert diag.message.startswith(
        "the device mesh needs 32 ranks (tp_size 8 x dp 4; dp_replicate_size 2 needs dp a "
        "larger multiple of it), and"
    )
    diag = only(validate(dist(tp_size=8, ep_size=3, dp_replicate_size=2)))
    assert diag.message.startswith(
        "the device mesh needs 48 ranks (tp_size 8 x dp 6; ep_size 3 needs dp x cp x tp to be "
        "a multiple of 3; dp_replicate_size 2 needs dp a larger multiple of it), and"
    )


@pytest.mark.parametrize(("ranks", "message"), [
    ("1", "dp_replicate_size 2 does not divide dp 1"),
    ("2", "dp_replicate_size 2 is not less than dp 2"),
])  # fmt: skip
def test_a_dp_too_small_for_replicas(validate: Validate, ranks: str, message: str) -> None:
    sky = SKY_3X8.replace("A100:8", f"A100:{ranks}").replace("num_nodes: 3", "num_nodes: 1")
    diag = only(validate(dist(dp_replicate_size=2) + sky))
    assert diag.message.startswith(message)
    assert diag.hint == (
        f"leave dp_replicate_size out: dp {ranks} has no divisor between 1 and itself"
    )
