"""SkyPilot: a task YAML launched through the SkyPilot SDK (a managed job, or a run on a
cluster). The SDK is imported only when a job is handed over or asked about."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.launcher_names import LauncherName
from automodel_launch.layout import JOB_CONFIG, SKYPILOT_TASK

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


class SkyPilot:
    name: LauncherName = "skypilot"
    artifact = SKYPILOT_TASK
    default_base = "skypilot_jobs"
    progress = "waiting for SkyPilot"
    detached = True
    arrays = False
    """SkyPilot has no job arrays: each point is a managed job of its own."""
    remote = False
    """SkyPilot reaches its cloud itself."""
    preflight = False
    poll_seconds = 20.0
    """One ``sky.jobs.queue`` call to the API server a look."""
    dependencies = False
    """SkyPilot does not start a job after another ends."""

    @property
    def job_id(self) -> re.Pattern[str]:
        from automodel_launch.launchers.ids import GRAMMAR

        return GRAMMAR[self.name]

    @property
    def section_model(self) -> type[BaseModel]:
        from automodel_launch.config.skypilot import SkyPilotConfig

        return SkyPilotConfig

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        from automodel_launch.launchers.skypilot.render import render_artifact

        return render_artifact(document, spec, nproc_per_node)

    def shell(
        self,
        document: LaunchDocument,
        environ: Mapping[str, str],
        command: Sequence[str],
        nodes: int | None,
    ) -> ShellCommand:
        from automodel_launch.launchers.shell import ShellError

        raise ShellError(
            "shell does not open SkyPilot clusters: a cluster is launched by `submit` and "
            "kept by SkyPilot",
            hint="once the job's cluster is up, `sky ssh CLUSTER` (or `ssh CLUSTER`) opens "
            "a shell on its first node; `sky status` names it",
        )

    def summary(self, document: LaunchDocument, nproc_per_node: int) -> list[tuple[str, str]]:
        from automodel_launch.render.environment import variable_lines

        sky = document.skypilot
        assert sky is not None
        ranks = sky.ranks_per_node
        accelerators = f"{sky.accelerators} per node" if sky.accelerators else "no accelerator"
        return [
            ("launcher", "skypilot" + (" (managed job, spot)" if sky.use_spot else "")),
            ("resources", f"{sky.num_nodes} node(s) x {ranks} process(es) = world size "
             f"{sky.num_nodes * ranks}, {accelerators}"),
            ("cloud", "/".join(p for p in (sky.cloud, sky.region, sky.zone) if p)),
            ("afterwards", sky.cluster_fate),
            *variable_lines(sky),
        ]  # fmt: skip

    def record_details(self, document: LaunchDocument) -> dict[str, Any]:
        from automodel_launch.progress.bounds import recipe_details

        return recipe_details(document) | {
            "checkpoint_note": "the checkpoint directory is on the cloud's nodes"
        }

    def repo_root(self, document: LaunchDocument) -> str | None:
        return None

    def code_root(self, document: LaunchDocument, environ: Mapping[str, str]) -> Path | None:
        return None

    def job_files(self, document: LaunchDocument, artifact: str, job_config: str) -> dict[str, str]:
        return {self.artifact: artifact, JOB_CONFIG: job_config}

    def submit(self, handover: Handover) -> Submitted:
        from automodel_launch.launchers.skypilot.submit import hand_over

        return hand_over(handover)

    def statuses(self, manifests: list[Manifest]) -> list[JobStatus]:
        from automodel_launch.launchers.skypilot.jobs import statuses

        return statuses(manifests)

    def logs(self, manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
        from automodel_launch.launchers.skypilot.jobs import logs

        return logs(manifest, follow=follow, rank=rank)

    def cancel(self, manifest: Manifest) -> JobStatus:
        from automodel_launch.launchers.skypilot.jobs import cancel

        return cancel(manifest)

    def cancel_all(self, manifests: list[Manifest]) -> list[JobStatus]:
        from automodel_launch.launchers.skypilot.jobs import cancel

        return [cancel(manifest) for manifest in manifests]  # no batch: one at a time
