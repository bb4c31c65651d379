"""The recipe keys launching depends on, and the rules that join them to a launcher.

Recipe sections stay open: only the keys read here are checked, everything else
passes through untouched. Both the older names (``step_scheduler.checkpoint_interval``,
``restore_from.path``) and current AutoModel's (``step_scheduler.ckpt_every_steps``,
``checkpoint.restore_from``) are accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from automodel_launch.config.types import OpenSection, Restarts, StrictSection
from automodel_launch.diagnostics import Collector

if TYPE_CHECKING:
    from automodel_launch.config.skypilot import SkyPilotConfig
    from automodel_launch.settings import Settings


class StepScheduler(OpenSection):
    """Training loop schedule (only the checkpoint interval is checked here)."""

    ckpt_every_steps: int | None = Field(
        default=None, ge=1, description="Save a checkpoint every N steps (AutoModel's name)."
    )
    checkpoint_interval: int | None = Field(
        default=None,
        ge=1,
        description="Save a checkpoint every N steps (older name of ckpt_every_steps).",
    )

    @property
    def interval(self) -> tuple[str, int] | None:
        """(key used, steps), preferring AutoModel's own key."""
        for key in ("ckpt_every_steps", "checkpoint_interval"):
            value = getattr(self, key)
            if value is not None:
                return key, value
        return None


class Checkpoint(OpenSection):
    """Checkpointing (only what spot recovery depends on is checked here)."""

    enabled: bool | None = Field(default=None, description="Write checkpoints at all.")
    checkpoint_dir: str | None = Field(
        default=None, description="Where checkpoints go; on spot VMs use durable storage."
    )
    restore_from: str | None = Field(
        default=None,
        description="Checkpoint to resume from; absent, null (or LATEST) resumes from the "
        "latest one in checkpoint_dir.",
    )
    is_async: bool | None = Field(
        default=None,
        description="Write checkpoints in the background while training goes on.",
    )


class RestoreFrom(OpenSection):
    """Where to resume (older spelling of checkpoint.restore_from)."""

    path: str | None = Field(default=None, description="Checkpoint path to resume from.")


class FaultTolerance(StrictSection):
    """Restart on failure. Slurm only: renders ``--requeue`` and torchrun ``--max-restarts``."""

    enabled: bool = Field(default=True, description="Turn restart-on-failure on.")
    max_restarts: Restarts = Field(
        default=3, description="torchrun --max-restarts: worker-group restarts per node."
    )
    requeue: bool = Field(
        default=True, description="Requeue the job (`--requeue`, `--open-mode=append`)."
    )


def checkpointing_enabled(checkpoint: Checkpoint | None) -> bool:
    return checkpoint is None or checkpoint.enabled is not False


def checkpointing_async(checkpoint: Checkpoint | None) -> bool:
    """Only an asynchronous checkpoint can still be writing when the time limit comes."""
    return checkpoint is not None and checkpoint.enabled is not False and bool(checkpoint.is_async)


def check_spot(
    sky: SkyPilotConfig,
    scheduler: StepScheduler | None,
    checkpoint: Checkpoint | None,
    sink: Collector,
    settings: Settings,
) -> None:
    """With ``use_spot: true`` the job must survive preemption. Where its checkpoints go is
    judged with every SkyPilot job's (:mod:`automodel_launch.rules.skypilot_results`)."""
    if not sky.use_spot:
        return
    spot = ("skypilot", "use_spot")
    interval = scheduler.interval if scheduler else None
    if interval is None:
        sink.add(
            "spot-no-checkpoint-interval",
            spot,
            "a spot instance can be preempted at any time, but no checkpoint interval is set",
            "add step_scheduler.ckpt_every_steps (e.g. 100)",
        )
    elif interval[1] > settings.spot_checkpoint_interval_warn:
        key, steps = interval
        sink.add(
            "spot-long-checkpoint-interval",
            ("step_scheduler", key),
            f"{key}: {steps} on a spot instance can lose up to {steps} steps per preemption",
            f"use a shorter interval (at most {settings.spot_checkpoint_interval_warn}, "
            "AUTOMODEL_LAUNCH_SPOT_CHECKPOINT_INTERVAL_WARN changes the limit)",
        )
    if checkpoint is not None and checkpoint.enabled is False:
        sink.add(
            "spot-checkpoint-disabled",
            ("checkpoint", "enabled"),
            "checkpointing is off on a spot instance: a preemption loses the whole run",
            "set checkpoint.enabled: true",
        )
