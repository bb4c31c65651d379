"""What ``submit`` says of a Slurm job before it hands it over, and what its manifest
keeps of the request."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.render.environment import variable_lines

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument


def summary(cfg: SlurmConfig) -> list[tuple[str, str]]:
    lines = [("launcher", "slurm"), ("resources", resources(cfg)), ("time limit", str(cfg.time))]
    lines.append(("partition", cfg.partition or "the cluster's default"))
    if cfg.account:
        lines.append(("account", cfg.account))
    lines.append(("image", cfg.container_image or "none (bare metal)"))
    if cfg.container_image is not None:
        lines.append(("mounts", ", ".join(m.spec for m in cfg.mounts()) or "none"))
    return lines + variable_lines(cfg)


def resources(cfg: SlurmConfig) -> str:
    """What runs (``ntasks_per_node`` processes on each node, the world size) and the GPUs
    the job asks for, as the script asks: ``gpus_per_node`` GPUs, whole nodes (every GPU
    of each), what ``sbatch_args`` ask, none (a CPU job), or none asked for at all."""
    if cfg.gpus_per_node:
        gpus = f"{cfg.gpus_per_node} GPU(s) per node"
    elif cfg.gpus_requested_by_args:
        gpus = "GPUs as sbatch_args ask"
    elif cfg.gpus_per_node == 0:
        gpus = "CPUs only (gpus_per_node: 0)"
    elif cfg.whole_nodes:
        gpus = "whole nodes, all their GPUs"
    else:
        gpus = "no GPU asked for"
    return (
        f"{cfg.nodes} node(s) x {cfg.ntasks_per_node} process(es) = world size "
        f"{cfg.world_size}, {gpus}"
    )


def record_details(document: LaunchDocument) -> dict[str, Any]:
    """The manifest's ``details`` of the request: time, nodes, partition, GPUs; what bounds
    the training, and where its checkpoints are on the submitting host (the job runs in
    ``chdir``, else the job directory; in a container, through its mounts)."""
    from automodel_launch.progress.bounds import checkpoint_text, placed, recipe_details

    cfg = document.slurm
    assert cfg is not None
    details: dict[str, Any] = {"time": str(cfg.time), "nodes": cfg.nodes,
                               "partition": cfg.partition}  # fmt: skip
    if cfg.gpus_per_node:
        details["gpus_per_node"] = cfg.gpus_per_node
    signal = cfg.warning_signal
    if cfg.requeue and signal is not None:
        details["requeue_signal_seconds"] = signal.seconds
        details["max_requeues"] = cfg.max_requeues
    mounts = cfg.mounts() if cfg.container_image else None
    return details | recipe_details(document) | placed(checkpoint_text(document), cfg.chdir,
                                                       mounts)  # fmt: skip
