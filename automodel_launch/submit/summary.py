"""The few lines ``submit`` shows before it hands a job over: what will run, where,
for how long, with what. Credentials appear by name only."""

from __future__ import annotations

from pathlib import Path

from automodel_launch.config.document import LaunchDocument
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.render.environment import exported_variables


def summary_lines(document: LaunchDocument, job_dir: Path, nproc_per_node: int) -> list[str]:
    lines: list[tuple[str, str]] = []
    if document.slurm is not None:
        cfg = document.slurm
        resources = slurm_resources(cfg)
        lines += [("launcher", "slurm"), ("resources", resources), ("time limit", str(cfg.time))]
        lines.append(("partition", cfg.partition or "the cluster's default"))
        if cfg.account:
            lines.append(("account", cfg.account))
        lines.append(("image", cfg.container_image or "none (bare metal)"))
        if cfg.container_image is not None:
            lines.append(("mounts", ", ".join(m.spec for m in cfg.mounts()) or "none"))
        variables = exported_variables(cfg)
    elif document.skypilot is not None:
        sky = document.skypilot
        ranks = sky.ranks_per_node
        accelerators = f"{sky.accelerators} per node" if sky.accelerators else "no accelerator"
        lines += [
            ("launcher", "skypilot" + (" (managed job, spot)" if sky.use_spot else "")),
            ("resources", f"{sky.num_nodes} node(s) x {ranks} process(es) = world size "
             f"{sky.num_nodes * ranks}, {accelerators}"),
            ("cloud", "/".join(p for p in (sky.cloud, sky.region, sky.zone) if p)),
            ("afterwards", sky.cluster_fate),
        ]  # fmt: skip
        variables = exported_variables(sky)
    elif document.launcher_section is not None:  # a plugged launcher: its name, its ranks
        lines.append(("launcher", document.launcher))
        lines.append(("resources", f"{nproc_per_node} process(es) per node"))
        variables = []
    else:
        lines += [
            ("launcher", "local torchrun"),
            ("resources", f"this node x {nproc_per_node} process(es) = world size "
             f"{nproc_per_node}"),
        ]  # fmt: skip
        variables = []
    plain = [name for name, value in variables if not value.is_secret]
    secret = [name for name, value in variables if value.is_secret]
    if plain:
        lines.append(("env", ", ".join(plain)))
    if secret:
        lines.append(("credentials", ", ".join(secret) + " (by name; values never written)"))
    lines.append(("job directory", str(job_dir)))
    width = max(len(key) for key, _ in lines)
    return [f"  {key:<{width}}  {value}" for key, value in lines]


def slurm_resources(cfg: SlurmConfig) -> str:
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
