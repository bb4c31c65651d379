"""Rules across sections: one launcher, the launcher's own rules, spot, fault tolerance,
environment references and secrets. Each is ``rule(context)``."""

from __future__ import annotations

from automodel_launch.config import environment
from automodel_launch.config.document import (
    LAUNCHERS,
    UNRELEASED_LAUNCHERS,
    UNSUPPORTED_LAUNCHERS,
)
from automodel_launch.config.recipe import (
    Checkpoint,
    StepScheduler,
    check_spot,
    checkpointing_async,
    checkpointing_enabled,
)
from automodel_launch.config.recipe_secrets import check_comment_secrets, check_recipe_secrets
from automodel_launch.config.skypilot import SkyPilotConfig, check_skypilot
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.diagnostics import Severity
from automodel_launch.launcher_names import PLUGGED
from automodel_launch.rules.context import Context
from automodel_launch.rules.slurm import check_slurm


def launcher_keys(ctx: Context) -> None:
    present = [name for name in LAUNCHERS if ctx.data.get(name) is not None]
    if len(present) > 1:
        ctx.sink.add(
            "multiple-launchers",
            (present[1],),
            f"both {present[0]}: and {present[1]}: are present; a recipe has one launcher",
            "keep one of them (or none, to run torchrun on this node)",
            at_key=True,
        )
    for name, advice in UNSUPPORTED_LAUNCHERS.items():
        if name in ctx.data:
            ctx.sink.add(
                "unsupported-launcher",
                (name,),
                f"{name}: is not launched by automodel-launch",
                advice,
                at_key=True,
            )
    for name, advice in UNRELEASED_LAUNCHERS.items():
        if name in ctx.data:
            ctx.sink.add(
                "unreleased-launcher",
                (name,),
                f"{name}: is launched neither by automodel-launch nor by any AutoModel release "
                "(its launcher never left a development branch): a released `automodel` "
                "ignores it",
                advice,
                at_key=True,
            )


def launcher_environment(ctx: Context) -> None:
    """``${VAR}`` references and credentials in the launcher sections."""
    for name in LAUNCHERS:
        raw = ctx.data.get(name)
        if isinstance(raw, dict):
            environment.check_references(name, raw, ctx.sink)
            environment.check_secrets(name, raw, ctx.sink)


def slurm_rules(ctx: Context) -> None:
    slurm = ctx.section("slurm", SlurmConfig)
    if slurm is None:
        return
    checkpoint = ctx.section("checkpoint", Checkpoint)
    raw = ctx.data["slurm"]
    check_slurm(
        slurm,
        raw,
        ctx.sink,
        ctx.settings,
        checkpointing_enabled(checkpoint),
        ctx.invalid("slurm"),
        async_checkpoint=checkpointing_async(checkpoint),
    )


def skypilot_rules(ctx: Context) -> None:
    sky = ctx.section("skypilot", SkyPilotConfig)
    if sky is None:
        return
    # a failed skypilot field falls back to a default that no rule acts on
    check_skypilot(sky, ctx.sink)
    check_spot(
        sky,
        ctx.section("step_scheduler", StepScheduler),
        ctx.section("checkpoint", Checkpoint),
        ctx.sink,
        ctx.settings,
    )


def fault_tolerance(ctx: Context) -> None:
    data = ctx.data
    if data.get("fault_tolerance") is None or data.get("slurm") is not None:
        return
    with_skypilot = data.get("skypilot") is not None
    plugged = next((name for name in PLUGGED if data.get(name) is not None), None)
    where = "next to skypilot:" if with_skypilot else "without a launcher"
    hint = (
        "SkyPilot recovers with skypilot.job_recovery (managed jobs)"
        if with_skypilot
        else "add a slurm: section, or remove it"
    )
    if plugged is not None and not with_skypilot:
        where, hint = f"next to {plugged}:", f"remove it, or launch with slurm: not {plugged}:"
    ctx.sink.add(
        "fault-tolerance-needs-slurm",
        ("fault_tolerance",),
        f"fault_tolerance works only with Slurm, not {where}",
        hint,
        at_key=True,
    )


def recipe_secrets(ctx: Context) -> None:
    """A credential in a recipe section is carried into the job directory by the job
    config: a warning while validating, an error when a job is rendered."""
    severity = Severity.WARNING if ctx.purpose == "validate" else Severity.ERROR
    check_recipe_secrets(ctx.data, ctx.sink, severity)


def comment_secrets(ctx: Context) -> None:
    """A token in a comment: the job config redacts it, and says so here."""
    check_comment_secrets(ctx.text, ctx.sink)
