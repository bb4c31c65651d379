"""The ``slurm:`` section's preemption rules: ``signal``, ``requeue``, ``max_requeues``.

How the script behaves is in :mod:`automodel_launch.render.requeue`; these rules say
where a config asks for something that behaviour cannot give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.config.slurm_signal import SlurmSignal
from automodel_launch.diagnostics import Collector

if TYPE_CHECKING:
    from automodel_launch.settings import Settings

LOC = ("slurm",)


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
