"""The ``slurm:`` section's rules across fields, and its warnings.

pydantic has checked each field on its own; these read several fields together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.config import slurm_time
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.diagnostics import Collector

if TYPE_CHECKING:
    from automodel_launch.settings import Settings


def check_slurm(
    cfg: SlurmConfig,
    raw: dict[str, Any],
    sink: Collector,
    settings: Settings,
    checkpointing: bool,
    invalid: frozenset[str] = frozenset(),
) -> None:
    """Rules across fields, and warnings; pydantic has already checked each field.

    ``invalid`` names fields that failed (and hold defaults here): rules reading them are
    skipped rather than judged on a default the user never wrote.
    """
    loc = ("slurm",)

    def usable(*fields: str) -> bool:
        return not invalid.intersection(fields)

    gpus = cfg.gpus_per_node
    if usable("ntasks_per_node", "gpus_per_node") and gpus and cfg.ntasks_per_node > gpus:
        sink.add(
            "tasks-exceed-gpus",
            (*loc, "ntasks_per_node"),
            f"ntasks_per_node {cfg.ntasks_per_node} is more than gpus_per_node {gpus}: "
            "ranks would share GPUs",
            f"set ntasks_per_node: {gpus}, or request more GPUs",
        )
    if usable("time"):
        _check_time(cfg, raw.get("time"), sink)
        _check_margin(cfg, sink, settings, checkpointing)
    if usable("hf_home", "repo_root", "nemo_mount", "extra_mounts"):
        _check_mount_dests(cfg, sink)
    if usable("nsys_enabled") and cfg.nsys_enabled:
        sink.add(
            "nsys-diagnostic-only",
            (*loc, "nsys_enabled"),
            "nsys profiling slows training and writes large .nsys-rep files into the job directory",
            "profile a short run; turn it off for production training",
        )


def _check_time(cfg: SlurmConfig, raw_time: Any, sink: Collector) -> None:
    if isinstance(raw_time, str) and slurm_time.looks_like_hours_minutes(raw_time):
        sink.add(
            "ambiguous-time",
            ("slurm", "time"),
            f'Slurm reads "{raw_time}" as minutes:seconds ({cfg.time})',
            f'for hours write "{raw_time}:00"; to keep minutes write "{cfg.time}"',
        )
    if isinstance(raw_time, int) and not isinstance(raw_time, bool):
        sink.add(
            "ambiguous-time",
            ("slurm", "time"),
            f"a bare number is minutes to Slurm: {raw_time} is {cfg.time}",
            f'write it as text: time: "{cfg.time}"',
        )


def _check_margin(
    cfg: SlurmConfig, sink: Collector, settings: Settings, checkpointing: bool
) -> None:
    minutes = cfg.time_minutes
    margin = settings.checkpoint_margin_minutes
    if checkpointing and minutes is not None and minutes < 2 * margin:
        sink.add(
            "time-leaves-no-checkpoint-margin",
            ("slurm", "time"),
            f"a {cfg.time} limit is under twice the {margin}-minute checkpoint margin "
            f"({2 * margin} minutes): an async checkpoint may not finish before Slurm kills "
            "the job, and a checkpoint cut off mid-write is lost",
            f"raise time to at least {2 * margin} minutes, or end training at least {margin} "
            "minutes before the limit",
        )


def _check_mount_dests(cfg: SlurmConfig, sink: Collector) -> None:
    seen: dict[str, str] = {}
    for where, mount in cfg.named_mounts():
        loc = ("slurm", "extra_mounts", where) if isinstance(where, int) else ("slurm", where)
        dest = mount.dest.rstrip("/") or "/"
        if dest in seen:
            sink.add(
                "duplicate-mount-dest",
                loc,
                f"two mounts land on {mount.dest} (also {seen[dest]})",
                "give each mount its own container path",
            )
        seen.setdefault(
            dest, "slurm." + (f"extra_mounts[{where}]" if isinstance(where, int) else str(where))
        )
