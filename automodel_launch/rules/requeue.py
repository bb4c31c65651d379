"""The ``slurm:`` section's preemption rules: ``signal``, ``requeue``, ``max_requeues``.

How the script behaves is in :mod:`automodel_launch.launchers.slurm.requeue`; these rules say
where a config asks for something that behaviour cannot give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from automodel_launch.config.recipe import Checkpoint, RestoreFrom
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.config.slurm_signal import SlurmSignal
from automodel_launch.diagnostics import Collector
from automodel_launch.rules.context import Context

if TYPE_CHECKING:
    from automodel_launch.settings import Settings

LOC = ("slurm",)
SIGTERM = 15


def check_requeue(
    cfg: SlurmConfig,
    sink: Collector,
    settings: Settings,
    checkpointing: bool,
    invalid: frozenset[str],
) -> None:
    """``invalid`` fields failed and hold defaults: rules reading them are skipped."""
    if invalid.intersection({"signal", "requeue"}):
        return
    margin = settings.checkpoint_margin_minutes
    signal = cfg.warning_signal
    if cfg.requeue and signal is None:
        sink.add(
            "requeue-needs-signal",
            (*LOC, "requeue"),
            "requeue: true needs a signal: Slurm's signal before the time limit is when the "
            "script requeues the job",
            f'add signal: "USR1@{max(margin * 60, 120)}" (seconds before the time limit)',
        )
    if signal is not None and not cfg.requeue:
        sink.add(
            "signal-without-requeue",
            (*LOC, "signal"),
            f"signal: {signal.text} without requeue: true: the script only logs the signal "
            "and training runs on to the time limit",
            "set requeue: true to requeue the job at the signal, or remove signal",
        )
    if "max_requeues" in cfg.model_fields_set and not cfg.requeue and "max_requeues" not in invalid:
        sink.add(
            "max-requeues-without-requeue",
            (*LOC, "max_requeues"),
            f"max_requeues: {cfg.max_requeues} has no effect without requeue: true",
            "set requeue: true (and a signal), or remove max_requeues",
        )
    if cfg.requeue and not checkpointing:
        sink.add(
            "requeue-without-checkpoint",
            (*LOC, "requeue"),
            "requeue: true with checkpointing off: every requeued run starts training "
            "from the beginning",
            "set checkpoint.enabled: true; AutoModel resumes from the latest checkpoint when "
            "checkpoint.restore_from is null",
        )
    if signal is None or "time" in invalid:
        return
    minutes = cfg.time_minutes
    if minutes is not None and signal.seconds >= minutes * 60:
        sink.add(
            "signal-exceeds-time",
            (*LOC, "signal"),
            f"signal: {signal.text} asks for the signal {signal.seconds} s before a "
            f"{cfg.time} limit ({minutes * 60} s): it would come as the job starts",
            f"signal fewer seconds before the limit than {minutes * 60}, or raise time",
        )
    elif cfg.requeue and checkpointing and signal.seconds < margin * 60:
        sink.add(
            "signal-margin-short",
            (*LOC, "signal"),
            f"signal: {signal.text} comes {signal.seconds} s before the time limit, under the "
            f"{margin}-minute checkpoint margin: a checkpoint being written then may not "
            "finish before the job is requeued",
            f"signal at least {margin * 60} s before the limit (signal: "
            f'"{SlurmSignal(signal.name, margin * 60, signal.reservation).text}"), or lower '
            "checkpoint_margin_minutes (AUTOMODEL_LAUNCH_CHECKPOINT_MARGIN_MINUTES)",
        )


def requeue_recipe(ctx: Context) -> None:
    """With ``requeue: true``, the recipe keys a requeued run depends on: where it resumes
    from, and whether the ranks catch the SIGTERM the script stops them with."""
    cfg = ctx.section("slurm", SlurmConfig)
    if cfg is None or not cfg.requeue or "requeue" in ctx.invalid("slurm"):
        return
    checkpoint = ctx.section("checkpoint", Checkpoint)
    restore = ctx.section("restore_from", RestoreFrom)
    fixed = [
        (("checkpoint", "restore_from"), checkpoint.restore_from if checkpoint else None),
        (("restore_from", "path"), restore.path if restore else None),
    ]
    for loc, where in fixed:
        if where is not None and where.upper() != "LATEST":
            ctx.sink.add(
                "requeue-fixed-restore",
                loc,
                f"every requeued run resumes from '{where}', not from the checkpoint the run "
                "before it wrote",
                f"set {loc[0]}.{loc[1]}: null to resume from the latest checkpoint",
            )
    scheduler = ctx.data.get("step_scheduler")
    if isinstance(scheduler, dict) and "preemption_signal" in scheduler:
        value = scheduler["preemption_signal"]
        values = value if isinstance(value, list) else [value]
        if not any(_is_sigterm(v) for v in values):
            ctx.sink.add(
                "requeue-signal-unhandled",
                ("step_scheduler", "preemption_signal"),
                f"the job script stops the ranks with SIGTERM before requeueing, and "
                f"preemption_signal: {_yaml(value)} leaves it uncaught: the ranks die without a "
                "final checkpoint and the requeued run repeats the steps since the last one",
                "set step_scheduler.preemption_signal: SIGTERM (AutoModel's default), or a "
                "list that holds it",
            )


def _yaml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value).lower()
    return "null" if value is None else str(value)


def _is_sigterm(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value == SIGTERM
    return isinstance(value, str) and value.strip().upper().removeprefix("SIG") == "TERM"
