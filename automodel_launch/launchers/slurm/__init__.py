"""Slurm: an SBATCH script handed to ``sbatch``; squeue/sacct answer, scancel cancels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.launcher_names import LauncherName
from automodel_launch.layout import JOB_CONFIG, SLURM_SCRIPT

if TYPE_CHECKING:
    import re
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from pydantic import BaseModel

    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.handover import Handover, Submitted
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.launchers.shell import ShellCommand
    from automodel_launch.render.entry import JobSpec


class Slurm:
    name: LauncherName = "slurm"
    artifact = SLURM_SCRIPT
    default_base = "slurm_jobs"
    progress = "waiting for sbatch"
    detached = True
    arrays = True
    """``sbatch --array=0-N%K``: one submission, at most K tasks at once."""
    remote = True
    """A named cluster's login node, over SSH (:mod:`automodel_launch.remote`)."""
    preflight = True
    """``sbatch --test-only`` and the partition's limits (:mod:`.cluster`)."""
    poll_seconds = 30.0
    """Unused: an array caps its points itself."""
    dependencies = True
    """``sbatch --dependency=afterok:ID`` (``afterany`` to run even if it failed)."""

    @property
    def job_id(self) -> re.Pattern[str]:
        from automodel_launch.launchers.ids import GRAMMAR

        return GRAMMAR[self.name]

    @property
    def section_model(self) -> type[BaseModel]:
        from automodel_launch.config.slurm import SlurmConfig

        return SlurmConfig

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        from automodel_launch.launchers.slurm.render import render_artifact

        return render_artifact(document, spec, nproc_per_node)

    def shell(
        self,
        document: LaunchDocument,
        environ: Mapping[str, str],
        command: Sequence[str],
        nodes: int | None,
    ) -> ShellCommand:
        from automodel_launch.launchers.slurm.shell import slurm_shell

        assert document.slurm is not None  # the table chose this launcher by its section
        return slurm_shell(document.slurm, environ, command, nodes or 1)

    def summary(self, document: LaunchDocument, nproc_per_node: int) -> list[tuple[str, str]]:
        from automodel_launch.launchers.slurm.summary import summary

        assert document.slurm is not None
        return summary(document.slurm)

    def record_details(self, document: LaunchDocument) -> dict[str, Any]:
        from automodel_launch.launchers.slurm.summary import record_details

        assert document.slurm is not None
        return record_details(document)

    def repo_root(self, document: LaunchDocument) -> str | None:
        return document.slurm.repo_root if document.slurm is not None else None

    def code_root(self, document: LaunchDocument, environ: Mapping[str, str]) -> Path | None:
        from automodel_launch.snapshot.source import host_root

        return host_root(document.slurm, environ) if document.slurm is not None else None

    def job_files(self, document: LaunchDocument, artifact: str, job_config: str) -> dict[str, str]:
        """The script, the job config, and the notifier when ``notify`` is set."""
        from automodel_launch.launchers.slurm.notify import files

        return {self.artifact: artifact, JOB_CONFIG: job_config} | files(document)

    def submit(self, handover: Handover) -> Submitted:
        from automodel_launch.launchers.slurm.submit import hand_over

        return hand_over(handover)

    def statuses(self, manifests: list[Manifest]) -> list[JobStatus]:
        from automodel_launch.launchers.slurm.jobs import statuses

        return statuses(manifests)

    def logs(self, manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
        from automodel_launch.launchers.slurm.jobs import logs

        return logs(manifest, follow=follow, rank=rank)

    def cancel(self, manifest: Manifest) -> JobStatus:
        from automodel_launch.launchers.slurm.jobs import cancel

        return cancel(manifest)

    def cancel_all(self, manifests: list[Manifest]) -> list[JobStatus]:
        from automodel_launch.launchers.slurm.jobs import cancel_all

        return cancel_all(manifests)
