"""Every file of a job directory, as text: the artifact plus the job config."""

from __future__ import annotations

from automodel_launch.config.document import LaunchDocument
from automodel_launch.loading import LoadedFile
from automodel_launch.render.entry import JOB_CONFIG_NAME, JobSpec
from automodel_launch.render.interactive import interactive_command
from automodel_launch.render.jobconfig import job_config_text
from automodel_launch.render.skypilot import render_task, task_yaml
from automodel_launch.render.slurm import render_sbatch

ARTIFACTS = {"slurm": "job.sbatch", "skypilot": "task.yaml", "interactive": "run.sh"}


def artifact_name(document: LaunchDocument) -> str:
    return ARTIFACTS[document.launcher]


def render_artifact(document: LaunchDocument, spec: JobSpec, nproc_per_node: int = 1) -> str:
    if document.launcher == "slurm":
        return render_sbatch(document, spec)
    if document.launcher == "skypilot":
        return task_yaml(render_task(document, spec))
    config = spec.config_path or f"{spec.job_dir}/{JOB_CONFIG_NAME}"
    return interactive_command(spec.entry, config, nproc_per_node) + "\n"


def job_files(document: LaunchDocument, loaded: LoadedFile, artifact: str) -> dict[str, str]:
    """File name -> content for the job directory, around an already rendered artifact."""
    if document.launcher == "interactive":
        artifact = "#!/bin/bash\nset -euo pipefail\n" + artifact
    return {artifact_name(document): artifact, JOB_CONFIG_NAME: job_config_text(loaded)}


def render_job(
    document: LaunchDocument, loaded: LoadedFile, spec: JobSpec, nproc_per_node: int = 1
) -> dict[str, str]:
    """File name -> content for the job directory."""
    return job_files(document, loaded, render_artifact(document, spec, nproc_per_node))
