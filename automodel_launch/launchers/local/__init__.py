"""No launcher section: torchrun on this node, in the foreground or detached."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.launcher_names import INTERACTIVE
from automodel_launch.layout import JOB_CONFIG, LOCAL_SCRIPT

if TYPE_CHECKING:
    import re
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.handover import Handover, Submitted
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.launchers.shell import ShellCommand
    from automodel_launch.render.entry import JobSpec

SCRIPT_PREFIX = "#!/bin/bash\nset -euo pipefail\n"
"""Written above the command in the job directory (``render`` prints the command alone)."""


class Interactive:
    name = INTERACTIVE
    artifact = LOCAL_SCRIPT
    default_base = "."
    progress = ""
    detached = False
    """The run is in the foreground unless ``--detach``."""
    arrays = False
    """No scheduler: a sweep's points run one after another, or K at a time with
    ``--detach`` (a driver process starts them: :mod:`automodel_launch.plan.driver`)."""
    remote = False
    """This node only."""
    preflight = False
    poll_seconds = 1.0
    """A local run ends when its exit_code appears: looking costs nothing."""
    dependencies = False
    """No scheduler: nothing waits for another job."""

    @property
    def job_id(self) -> re.Pattern[str]:
        """The run's process id."""
        from automodel_launch.launchers.ids import GRAMMAR

        return GRAMMAR[self.name]

    section_model = None
    """No section: a recipe without one runs here."""

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        from automodel_launch.launchers.local.render import render_artifact

        return render_artifact(document, spec, nproc_per_node)

    def shell(
        self,
        document: LaunchDocument,
        environ: Mapping[str, str],
        command: Sequence[str],
        nodes: int | None,
    ) -> ShellCommand:
        """``command``, else ``$SHELL`` (bash without one), in the caller's environment."""
        if nodes not in (None, 1):
            from automodel_launch.errors import UsageError

            raise UsageError(
                f"--nodes {nodes}: a recipe without a launcher section runs on this node only",
                hint="leave --nodes out",
            )
        from automodel_launch.launchers.shell import ShellCommand

        return ShellCommand(list(command) or [environ.get("SHELL") or "bash"], dict(environ))

    def summary(self, document: LaunchDocument, nproc_per_node: int) -> list[tuple[str, str]]:
        return [
            ("launcher", "local torchrun"),
            ("resources", f"this node x {nproc_per_node} process(es) = world size "
             f"{nproc_per_node}"),
        ]  # fmt: skip

    def record_details(self, document: LaunchDocument) -> dict[str, Any]:
        from automodel_launch.progress.bounds import checkpoint_text, placed, recipe_details

        return recipe_details(document) | placed(checkpoint_text(document), None, None)

    def repo_root(self, document: LaunchDocument) -> str | None:
        return None

    def code_root(self, document: LaunchDocument, environ: Mapping[str, str]) -> Path | None:
        return None

    def job_files(self, document: LaunchDocument, artifact: str, job_config: str) -> dict[str, str]:
        return {self.artifact: SCRIPT_PREFIX + artifact, JOB_CONFIG: job_config}

    def submit(self, handover: Handover) -> Submitted:
        from automodel_launch.launchers.local.submit import hand_over

        return hand_over(handover)

    def statuses(self, manifests: list[Manifest]) -> list[JobStatus]:
        from automodel_launch.launchers.local.jobs import statuses

        return statuses(manifests)

    def logs(self, manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
        from automodel_launch.launchers.local.jobs import logs

        return logs(manifest, follow=follow, rank=rank)

    def cancel(self, manifest: Manifest) -> JobStatus:
        from automodel_launch.launchers.local.jobs import cancel

        return cancel(manifest)

    def cancel_all(self, manifests: list[Manifest]) -> list[JobStatus]:
        from automodel_launch.launchers.local.jobs import cancel

        return [cancel(manifest) for manifest in manifests]  # no batch: one at a time
