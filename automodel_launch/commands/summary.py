"""The few lines ``submit`` shows before it hands a job over: what will run, where,
for how long, with what. Credentials appear by name only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.config.document import LaunchDocument
from automodel_launch.config.slurm import SlurmConfig
from automodel_launch.render.environment import exported_variables

if TYPE_CHECKING:
    from automodel_launch.plan.plan import JobPlan


def plan_summary(plan: JobPlan) -> list[str]:
    """A rendered plan's lines: its first point's job, its code, what it runs again,
    where its checkpoints go, its sweep."""
    from automodel_launch.snapshot.summary import code_lines

    job = plan.jobs[0].prepared
    assert job.document is not None and plan.root is not None
    lines = summary_lines(job.document, plan.root, job.nproc_per_node)
    lines += code_lines(job.document, plan.snapshot)
    if plan.rerun_of is not None:
        lines.append(f"  {'rerun of':<13}  job {plan.rerun_of.id} ({plan.rerun_of.name})")
    checkpoints = _checkpoints(plan)
    if checkpoints is not None:
        lines.append(f"  {'checkpoints':<13}  {checkpoints}")
    if plan.is_sweep:
        limit = f", at most {plan.max_parallel} at once" if plan.max_parallel else ""
        lines.append(
            f"  sweep          {len(plan.jobs)} points over {', '.join(plan.swept)}{limit}"
        )
    return lines


def _checkpoints(plan: JobPlan) -> str | None:
    """Where a sweep's points or a rerun write their checkpoints, and what a rerun resumes
    from (its directory looked into here, unless it is on a named cluster)."""
    from automodel_launch.plan.checkpoints import Latest, latest

    if plan.checkpoints is not None:
        return plan.checkpoints.line
    rerun = plan.rerun_checkpoints
    if rerun is None:
        return None
    if rerun.own:
        found = Latest()
    elif plan.remote is not None:
        found = Latest(note=f"not looked into: on cluster {plan.remote.name}")
    else:
        found = latest(rerun.directory)
    return rerun.line(found)


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
