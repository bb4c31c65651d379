"""Every file of a job directory, as text: the artifact plus the job config."""

from __future__ import annotations

from automodel_launch.config.document import LaunchDocument
from automodel_launch.launchers import launcher_of
from automodel_launch.loading import LoadedFile
from automodel_launch.render.entry import JobSpec
from automodel_launch.render.jobconfig import job_config_text


def render_artifact(document: LaunchDocument, spec: JobSpec, nproc_per_node: int = 1) -> str:
    """What ``render`` prints: the script, the task, or the command line."""
    return launcher_of(document).render(document, spec, nproc_per_node)


def job_files(document: LaunchDocument, loaded: LoadedFile, artifact: str) -> dict[str, str]:
    """File name -> content for the job directory, around an already rendered artifact."""
    return launcher_of(document).job_files(document, artifact, job_config_text(loaded))
