"""Recording a submission: the manifest goes into the job directory with its other
files; once the job runs, its id goes into the manifest and the registry.

The registry failing never loses a submission: the job runs and its directory holds
the manifest; :func:`record` returns the warning to show (``jobs --reindex`` adds the
job later).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.jobs.manifest import Manifest, new_manifest, update_manifest
from automodel_launch.jobs.registry import RegistryError, open_registry
from automodel_launch.layout import MANIFEST

if TYPE_CHECKING:
    from automodel_launch.snapshot.record import CodeRecord


class Recorder:
    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self.warning: str | None = None

    @classmethod
    def for_job(
        cls,
        *,
        name: str,
        launcher: str,
        job_dir: Path,
        config: Path,
        files: Mapping[str, str],
        environ: Mapping[str, str],
        details: Mapping[str, Any],
        cluster: str | None = None,
        sweep: str | None = None,
        point: int | None = None,
        values: Mapping[str, Any] | None = None,
        code: CodeRecord | None = None,
        automodel_version: str | None = None,
        settings: Mapping[str, Any] | None = None,
        job_id: str | None = None,
    ) -> Recorder:
        """``sweep``, ``point``, ``values``: the job is that point of that sweep."""
        manifest = new_manifest(
            name=name,
            launcher=launcher,
            job_dir=job_dir,
            config=config,
            argv=["automodel-launch", *sys.argv[1:]],
            artifacts=sorted([*files, MANIFEST]),
            environ=environ,
            cluster=cluster,
            details=details,
            sweep=sweep,
            point=point,
            values=values,
            code=code,
            automodel_version=automodel_version,
            settings=settings,
            job_id=job_id,
        )
        return cls(manifest)

    @property
    def file(self) -> tuple[str, str]:
        """The manifest as a job directory file: (name, content)."""
        return MANIFEST, self.manifest.to_json()

    def record(self, scheduler_id: str | None, details: Mapping[str, Any]) -> None:
        """The job runs: its id into the manifest, the manifest into the registry."""
        self.manifest = self.manifest.with_scheduler(scheduler_id, **details)
        try:
            update_manifest(self.manifest)
        except OSError as exc:
            self.warning = f"the job's manifest could not be updated ({exc.strerror or exc})"
            return
        try:
            with open_registry() as registry:
                registry.add(self.manifest)
        except RegistryError as exc:
            parent = Path(self.manifest.job_dir).parent
            self.warning = (
                f"the job was submitted, but not recorded in the job registry: {exc}. "
                f"Its manifest is in {self.manifest.job_dir}; `automodel-launch jobs "
                f"--reindex {parent}` records it later"
            )
