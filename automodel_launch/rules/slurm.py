"""The ``slurm:`` section's rules across fields, and its warnings.

pydantic has checked each field on its own; these read several fields together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from automodel_launch.config import slurm_time
from automodel_launch.config.mounts import same_path
from automodel_launch.config.sbatch_options import option_name
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.diagnostics import Collector
from automodel_launch.layout import JOB_CONFIG
from automodel_launch.rules.requeue import check_requeue

if TYPE_CHECKING:
    from automodel_launch.settings import Settings


def check_slurm(
    cfg: SlurmConfig,
    raw: dict[str, Any],
    sink: Collector,
    settings: Settings,
    checkpointing: bool,
    invalid: frozenset[str] = frozenset(),
    async_checkpoint: bool = False,
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
    if usable("gpus_per_node", "exclusive", "sbatch_args") and _ranks_without_gpus(cfg):
        sink.add(
            "ranks-without-gpus",
            (*loc, "ntasks_per_node"),
            f"{cfg.ntasks_per_node} ranks per node and no GPU request (gpus_per_node is null "
            "and exclusive is false): on clusters that enforce GRES the ranks get no GPU",
            f"set gpus_per_node: {cfg.ntasks_per_node}, or remove exclusive: false to take whole "
            "nodes; gpus_per_node: 0 for a CPU job",
        )
    _check_options(cfg, sink, usable)
    if usable("time"):
        _check_time(cfg, raw.get("time"), sink)
        _check_margin(cfg, sink, settings, async_checkpoint)
    check_requeue(cfg, sink, settings, checkpointing, invalid)
    if usable("hf_home", "repo_root", "nemo_mount", "extra_mounts"):
        _check_mount_dests(cfg, sink)
    if usable("nsys_enabled") and cfg.nsys_enabled:
        sink.add(
            "nsys-diagnostic-only",
            (*loc, "nsys_enabled"),
            "nsys profiling is on: it slows training and writes large .nsys-rep files into "
            "the job directory",
            "profile a short run; turn it off for production training",
        )


def _ranks_without_gpus(cfg: SlurmConfig) -> bool:
    return cfg.gpus_per_node is None and cfg.exclusive is False and not cfg.gpus_requested_by_args


def _check_options(cfg: SlurmConfig, sink: Collector, usable: Callable[..., bool]) -> None:
    if usable("command") and cfg.command is not None:
        sink.add(
            "command-replaces-torchrun",
            ("slurm", "command"),
            "command runs on each node instead of the generated torchrun command: ranks per "
            "node, the rendezvous, the entry point and fault_tolerance restarts are yours to set",
            "remove command to run the recipe with torchrun; the command sees MASTER_ADDR, "
            f"MASTER_PORT, WORLD_SIZE and $JOB_DIR/{JOB_CONFIG}",
        )
    if usable("mail_user", "mail_type") and cfg.mail_user and not cfg.mail_type:
        sink.add(
            "mail-user-without-type",
            ("slurm", "mail_user"),
            "mail_user is set but mail_type is not: Slurm sends no mail",
            "add mail_type: FAIL (or END, ALL...)",
        )
    near = cfg.notify is not None and "time_limit_near" in cfg.notify.events
    if usable("notify", "time") and near and cfg.notify is not None:
        limit = cfg.time_minutes
        minutes = cfg.notify.time_limit_near_minutes
        if limit is None or minutes >= limit:
            sink.add(
                "notify-near-unlimited",
                ("slurm", "notify", "time_limit_near_minutes"),
                "the job has no time limit: time_limit_near is never sent"
                if limit is None
                else f"time_limit_near_minutes {minutes} is not shorter than the time limit "
                f"({cfg.time}): time_limit_near is sent as the job starts",
                "lower time_limit_near_minutes, or leave time_limit_near out of events",
            )
    if usable("mem", "sbatch_args"):
        _check_memory_options(cfg, sink)
    root = cfg.repo_root
    boxed = cfg.container_image is not None
    if usable("repo_root", "container_image") and root and boxed and same_path(root) is None:
        sink.add(
            "relative-repo-root",
            ("slurm", "repo_root"),
            f"repo_root '{root}' is relative: it cannot be mounted into the container",
            "write the checkout's absolute path (or ~/...)",
        )


def _check_memory_options(cfg: SlurmConfig, sink: Collector) -> None:
    """sbatch stops at once on more than one of --mem, --mem-per-cpu, --mem-per-gpu."""
    given = ["mem"] if cfg.mem is not None else []
    for index, arg in enumerate(cfg.sbatch_args):
        name = option_name(arg)
        if name in ("mem-per-cpu", "mem-per-gpu"):
            if given:
                sink.add(
                    "conflicting-sbatch-options",
                    ("slurm", "sbatch_args", index),
                    f"--{name} and {'mem' if given[0] == 'mem' else '--' + given[0]} both set "
                    "the job's memory: sbatch refuses them together",
                    "keep one of mem, --mem-per-cpu, --mem-per-gpu",
                )
            given.append(name)


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
    cfg: SlurmConfig, sink: Collector, settings: Settings, async_checkpoint: bool
) -> None:
    """Only checkpoint.is_async: true writes in the background, so only then can the
    time limit cut a checkpoint off (a 5-minute smoke test writing none is fine)."""
    minutes = cfg.time_minutes
    margin = settings.checkpoint_margin_minutes
    if async_checkpoint and minutes is not None and minutes < 2 * margin:
        sink.add(
            "time-leaves-no-checkpoint-margin",
            ("slurm", "time"),
            f"checkpoint.is_async is true and a {cfg.time} limit is under twice the "
            f"{margin}-minute checkpoint margin ({2 * margin} minutes): an async checkpoint may "
            "not finish before Slurm kills the job, and a checkpoint cut off mid-write is lost",
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
