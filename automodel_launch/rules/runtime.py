"""AutoModel's startup checks on sizes, made before the queue, at the value to change.

What AutoModel refuses after the job has waited for its nodes: a StepScheduler size of
0 or less, a ``global_batch_size`` that is not a multiple of ``local_batch_size x dp``,
and a device mesh that does not fit the ranks the launcher starts (see
:mod:`automodel_launch.rules.mesh` for where each release raises, and
:mod:`automodel_launch.rules.world` for the ranks). The release is
``ctx.release()``.

A ``global_batch_size`` left out is not checked: its default is the recipe's (32 in the
fine-tuning recipes, 8 in the multimodal one). A ``local_batch_size`` left out is 1 in
every recipe.
"""

from __future__ import annotations

from automodel_launch.diagnostics import Loc
from automodel_launch.rules.context import Context
from automodel_launch.rules.mesh import DIST, Mesh, Release, read_int, read_mesh, release_of
from automodel_launch.rules.world import ONE_NODE, World, world_of

SCHED = "step_scheduler"
GBS = (SCHED, "global_batch_size")
LBS = (SCHED, "local_batch_size")
BATCH = (GBS[1], LBS[1])


def runtime_sizes(ctx: Context) -> None:
    release = release_of(ctx.release().version)
    scheduler = ctx.data.get(SCHED)
    if isinstance(scheduler, dict):
        _positive(ctx, release)
    mesh = read_mesh(ctx.data, release)
    world = world_of(ctx)
    mesh_dp = None
    if mesh is not None:
        _strategy_limits(ctx, release, mesh)
        mesh_dp = _mesh(ctx, release, mesh, world)
    if isinstance(scheduler, dict):
        _batch(ctx, _scheduler_dp(ctx, release, mesh, world, mesh_dp))


def _positive(ctx: Context, release: Release) -> None:
    for key in release.positive:
        value = read_int(ctx.data, (SCHED, key))
        if isinstance(value, int) and value <= 0:
            ctx.sink.add(
                "size-not-positive",
                (SCHED, key),
                f"{key} {value} is not more than 0: AutoModel {release.version}'s "
                "StepScheduler stops the job at startup",
                f"set {key} to 1 or more" + ("" if key in BATCH else ", or leave it out"),
            )


def _batch(ctx: Context, dp: tuple[int, str] | None) -> None:
    gbs, lbs = read_int(ctx.data, GBS), read_int(ctx.data, LBS)
    lbs = 1 if lbs is None else lbs
    if not isinstance(gbs, int) or not isinstance(lbs, int) or gbs <= 0 or lbs <= 0:
        return
    if dp is None:
        if gbs % lbs:
            ctx.sink.add(
                "batch-not-divisible",
                GBS,
                f"global_batch_size {gbs} is not a multiple of local_batch_size {lbs}: "
                "AutoModel's StepScheduler needs a multiple of local_batch_size x dp, at any dp",
                f"set global_batch_size to a multiple of {lbs}, e.g. {_multiple(gbs, lbs)}",
            )
        return
    size, why = dp
    step = lbs * size
    if gbs % step:
        ctx.sink.add(
            "batch-not-divisible",
            GBS,
            f"global_batch_size {gbs} is not a multiple of local_batch_size {lbs} x dp {size} "
            f"= {step}: AutoModel's StepScheduler stops the job at startup ({why})",
            f"set global_batch_size to a multiple of {step} (local_batch_size {lbs} x dp "
            f"{size}), e.g. {_multiple(gbs, step)}",
        )


def _scheduler_dp(
    ctx: Context, release: Release, mesh: Mesh | None, world: World, mesh_dp: int | None
) -> tuple[int, str] | None:
    """The dp the StepScheduler is handed, and why: None when it cannot be known."""
    version = release.version
    written = read_int(ctx.data, (SCHED, "dp_size"))
    if written is not None:
        if release.scheduler_takes_dp_size and isinstance(written, int) and written > 0:
            return written, f"step_scheduler.dp_size {written}"
        return None
    if mesh is None:
        return None
    if mesh.strategy == "none":
        return 1, f"dp 1: without a distributed: section AutoModel {version} builds no mesh"
    if mesh.strategy == "ddp":
        if not release.ddp_dp_is_world:
            return 1, f"dp 1: AutoModel {version}'s DDPManager builds no mesh"
        if world.ranks is None:
            return None
        return world.ranks, f"dp {world.ranks}: DDP over the {world.ranks} ranks of {world.text}"
    if mesh_dp is None:
        return None
    why = _dp_why(mesh, world, mesh_dp)
    if release.dp_counts_cp and mesh.cp > 1:
        both = mesh_dp * mesh.cp
        counts = f"AutoModel {version} counts dp {mesh_dp} x cp_size {mesh.cp}"
        return both, f"dp {both}: {counts}; {why}"
    return mesh_dp, why


def _dp_why(mesh: Mesh, world: World, dp: int) -> str:
    if mesh.dp is not None:
        return f"distributed.dp_size {dp}"
    others = _factors(mesh)
    over = f" / ({others})" if others else ""
    return f"dp {dp}: the {world.ranks} ranks of {world.text}{over}"


def _factors(mesh: Mesh) -> str:
    return " x ".join(f"{key} {size}" for key, size in mesh.axes() if size > 1)


def _mesh(ctx: Context, release: Release, mesh: Mesh, world: World) -> int | None:
    """Report what stops the mesh; the mesh's dp when it builds (None: unknown or not)."""
    if not mesh.has_mesh():
        return None
    ranks = world.ranks
    if ranks is not None and mesh.dp is not None and mesh.dp * mesh.non_dp() != ranks:
        _dp_mismatch(ctx, mesh, world, ranks, mesh.dp)
        return None
    if ranks is not None and mesh.dp is None and ranks % mesh.non_dp():
        _not_dividing(ctx, release, mesh, world, ranks)
        return None
    dp = mesh.dp_for(ranks)
    if dp is None:
        if world.local:
            _needs_nodes(ctx, release, mesh)
        return None
    fits = _replicate(ctx, mesh, dp)
    fits = _expert(ctx, release, mesh, dp) and fits
    if world.local and fits and dp * mesh.non_dp() > ONE_NODE:
        _needs_nodes(ctx, release, mesh)
    return dp if fits else None


def _dp_mismatch(ctx: Context, mesh: Mesh, world: World, ranks: int, dp: int) -> None:
    size = dp * mesh.non_dp()
    others = _factors(mesh)
    shape = f"dp_size {dp} x {others}" if others else f"dp_size {dp}"
    fix = (
        f"set dp_size: {ranks // mesh.non_dp()}, or leave it out (null) to let AutoModel derive "
        "it from the ranks"
        if ranks % mesh.non_dp() == 0
        else f"leave dp_size out (null) to let AutoModel derive it, and make {others} divide "
        f"{ranks}"
    )
    ctx.sink.add(
        "dp-size-mismatch",
        (DIST, "dp_size"),
        f"the device mesh of {shape} holds {size} ranks, but {world.text} starts {ranks}: "
        "AutoModel's mesh must hold every rank, exactly",
        fix,
    )


def _not_dividing(ctx: Context, release: Release, mesh: Mesh, world: World, ranks: int) -> None:
    names = " x ".join(key for key, _ in mesh.axes())
    product = _factors(mesh)
    if " x " in product:
        product += f" = {mesh.non_dp()}"
    culprit = next((k for k, s in mesh.axes() if ranks % s), None)
    key = culprit or [k for k, s in mesh.axes() if s > 1][-1]
    ctx.sink.add(
        "mesh-not-dividing-ranks",
        (DIST, key),
        f"{product} does not divide the {ranks} ranks of {world.text}: "
        f"AutoModel {release.version} cannot build its device mesh (the world size must be "
        f"a multiple of {names})",
        f"use sizes whose product divides {ranks}, or change {world.change} to start a "
        f"multiple of {mesh.non_dp()} ranks",
    )


def _replicate(ctx: Context, mesh: Mesh, dp: int) -> bool:
    replicate = mesh.replicate
    if mesh.strategy != "fsdp2" or replicate == 1:
        return True
    loc: Loc = (DIST, "dp_replicate_size")
    if dp % replicate:
        ctx.sink.add(
            "dp-replicate-mismatch",
            loc,
            f"dp_replicate_size {replicate} does not divide dp {dp}: AutoModel's FSDP2 mesh "
            "splits dp into replicas of equal size",
            _replicate_fix(dp, "or leave dp_replicate_size out"),
        )
        return False
    if replicate >= dp:
        ctx.sink.add(
            "dp-replicate-mismatch",
            loc,
            f"dp_replicate_size {replicate} is not less than dp {dp}: AutoModel's FSDP2 "
            "refuses pure replication (each replica must shard over 2 ranks or more)",
            _replicate_fix(dp, "or DDP for pure replication"),
        )
        return False
    return True


def _expert(ctx: Context, release: Release, mesh: Mesh, dp: int) -> bool:
    if mesh.strategy != "fsdp2" or mesh.ep == 1:
        return True
    base = mesh.ep_base(release, dp)
    if base % mesh.ep == 0:
        return True
    sizes = {"dp": dp, "cp": mesh.cp, "tp": mesh.tp}
    names = " x ".join(f"{axis} {sizes[axis]}" for axis in release.ep_axes)
    shown = f"{names} = {base}" if len(release.ep_axes) > 1 else names
    divisor = max(d for d in range(1, mesh.ep) if base % d == 0)
    ctx.sink.add(
        "ep-size-mismatch",
        (DIST, "ep_size"),
        f"ep_size {mesh.ep} does not divide {shown}: AutoModel {release.version} cannot "
        "build the expert-parallel mesh",
        f"use an ep_size that divides {base} (e.g. {divisor}), or more ranks",
    )
    return False


def _needs_nodes(ctx: Context, release: Release, mesh: Mesh) -> None:
    dp = mesh.dp or mesh.least_dp(release)
    needed = dp * mesh.non_dp()
    if needed <= ONE_NODE:
        return
    parts = [f"{key} {size}" for key, size in mesh.axes() if size > 1]
    sizes = {"dp_size": dp} if mesh.dp else {}
    sizes.update(mesh.axes())
    reasons = []
    if mesh.dp:
        parts.insert(0, f"dp_size {dp}")
    elif dp > 1:
        parts.append(f"dp {dp}")
        reasons = _least_dp_reasons(release, mesh)
        sizes.update({"ep_size": mesh.ep, "dp_replicate_size": mesh.replicate})
    key = max(sizes, key=lambda k: sizes[k])
    example = (
        f" (e.g. slurm: with nodes: {needed // ONE_NODE} and ntasks_per_node: {ONE_NODE})"
        if needed % ONE_NODE == 0
        else ""
    )
    ctx.sink.add(
        "mesh-needs-nodes",
        (DIST, key),
        f"the device mesh needs {needed} ranks ({' x '.join(parts)}"
        + "".join(f"; {reason}" for reason in reasons)
        + "), and with no launcher section torchrun runs on this node: one node hosts "
        f"{ONE_NODE} GPUs at most",
        f"add a launcher section that starts a multiple of {needed} ranks{example}",
    )


def _least_dp_reasons(release: Release, mesh: Mesh) -> list[str]:
    reasons = []
    if mesh.ep > 1:
        axes = " x ".join(release.ep_axes)
        reasons.append(f"ep_size {mesh.ep} needs {axes} to be a multiple of {mesh.ep}")
    if mesh.replicate > 1:
        reasons.append(f"dp_replicate_size {mesh.replicate} needs dp a larger multiple of it")
    return reasons


def _strategy_limits(ctx: Context, release: Release, mesh: Mesh) -> None:
    """From 0.5.0 megatron_fsdp and ddp refuse the sizes they do not support; from 0.3.0
    only FSDP2 takes dp_replicate_size (earlier managers do not have the field)."""
    refused: tuple[tuple[str, int, str], ...] = ()
    if release.strategy_limits and mesh.strategy == "megatron_fsdp":
        refused = (("pp_size", mesh.pp, "pipeline"), ("ep_size", mesh.ep, "expert"))
    elif release.strategy_limits and mesh.strategy == "ddp":
        refused = (("tp_size", mesh.tp, "tensor"), ("pp_size", mesh.pp, "pipeline"),
                   ("cp_size", mesh.cp, "context"), ("ep_size", mesh.ep, "expert"))  # fmt: skip
    for key, size, kind in refused:
        if size > 1:
            ctx.sink.add(
                "strategy-unsupported-size",
                (DIST, key),
                f"strategy {mesh.strategy} does not support {kind} parallelism ({key} {size}): "
                f"AutoModel {release.version} stops the job at startup",
                f"set {key}: 1, or strategy: fsdp2",
            )
    if release.replicate_needs_fsdp2 and mesh.strategy != "fsdp2" and mesh.replicate > 1:
        ctx.sink.add(
            "dp-replicate-mismatch",
            (DIST, "dp_replicate_size"),
            f"dp_replicate_size {mesh.replicate} needs strategy fsdp2, not {mesh.strategy}: "
            f"AutoModel {release.version} stops the job at startup",
            "leave dp_replicate_size out, or set strategy: fsdp2",
        )


def _replicate_fix(dp: int, otherwise: str) -> str:
    divisor = max((d for d in range(2, dp) if dp % d == 0), default=1)
    if divisor == 1:
        return f"leave dp_replicate_size out: dp {dp} has no divisor between 1 and itself"
    return f"use a divisor of {dp} below {dp} (e.g. {divisor}), {otherwise}"


def _multiple(value: int, step: int) -> int:
    """The nearest multiple of ``step`` at or above ``value``."""
    return -(-value // step) * step
