"""A launcher the package does not ship: the toy scheduler (:mod:`.scheduler`), plugged
in with :func:`automodel_launch.launchers.plug` as a third party would. Its class, like the
shipped ones', hands each call to its render, submit and jobs modules; its section model
is :class:`.config.ToyConfig`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automodel_launch.layout import JOB_CONFIG
from tests.launchers.toy.config import ToyConfig
from tests.launchers.toy.submit import ARTIFACT, JOB_ID

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.handover import Handover, Submitted
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.launchers.shell import ShellCommand
    from automodel_launch.render.entry import JobSpec


class Toy:
    name = "toy"
    artifact = ARTIFACT
    default_base = "toy_jobs"
    progress = "waiting for toy-submit"
    detached = True
    arrays = False
    """No job arrays: a sweep's points are fed to it by the sweep's driver."""
    dependencies = False
    remote = False
    """No named clusters: the toy scheduler runs on this host."""
    preflight = False
    poll_seconds = 0.2
    job_id = JOB_ID
    section_model = ToyConfig

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        from tests.launchers.toy.render import render_artifact

        return render_artifact(document, spec, nproc_per_node)

    def shell(
        self,
        document: LaunchDocument,
        environ: Mapping[str, str],
        command: Sequence[str],
        nodes: int | None,
    ) -> ShellCommand:
        from automodel_launch.launchers.shell import ShellError

        raise ShellError("shell does not open toy jobs")

    def summary(self, document: LaunchDocument, nproc_per_node: int) -> list[tuple[str, str]]:
        return [("launcher", self.name), ("resources", f"{nproc_per_node} process(es) per node")]

    def record_details(self, document: LaunchDocument) -> dict[str, Any]:
        return {}

    def repo_root(self, document: LaunchDocument) -> str | None:
        return None

    def code_root(self, document: LaunchDocument, environ: Mapping[str, str]) -> Path | None:
        return None

    def job_files(self, document: LaunchDocument, artifact: str, job_config: str) -> dict[str, str]:
        return {self.artifact: artifact, JOB_CONFIG: job_config}

    def submit(self, handover: Handover) -> Submitted:
        from tests.launchers.toy.submit import hand_over

        return hand_over(handover)

    def statuses(self, manifests: list[Manifest]) -> list[JobStatus]:
        from tests.launchers.toy.jobs import statuses

        return statuses(manifests)

    def logs(self, manifest: Manifest, *, follow: bool, rank: int | None = None) -> int:
        from tests.launchers.toy.jobs import logs

        return logs(manifest, follow=follow, rank=rank)

    def cancel(self, manifest: Manifest) -> JobStatus:
        from tests.launchers.toy.jobs import cancel_all

        return cancel_all([manifest])[0]

    def cancel_all(self, manifests: list[Manifest]) -> list[JobStatus]:
        from tests.launchers.toy.jobs import cancel_all

        return cancel_all(manifests)
