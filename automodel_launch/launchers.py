"""The launchers, one row each: what renders a job, what the artifact is called, where
job directories go by default, and what hands the job over.

Adding a launcher is one renderer module, one submitter module and one row here; no
other module asks "which launcher is this?". Submitters are named by module, so the
SkyPilot SDK (and anything else heavy) is imported only when a job is handed to it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.layout import LOCAL_SCRIPT, SKYPILOT_TASK, SLURM_SCRIPT

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.render.entry import JobSpec
    from automodel_launch.submit import Submitted


@dataclass(frozen=True)
class Handover:
    """A written job directory, ready to be handed to its launcher."""

    document: LaunchDocument
    job_dir: Path
    files: Mapping[str, str]
    environ: Mapping[str, str]
    dry_run: bool = False
    detach: bool = False
    """Local runs: start in the background, output in the job directory."""
    started: Callable[[str, dict[str, Any]], None] | None = None
    """Called with the job's id and details as soon as it runs (a foreground local run
    is recorded while it runs, not after)."""


@dataclass(frozen=True)
class Launcher:
    name: str
    artifact: str
    """The file in the job directory that runs the job."""
    default_base: str
    """Where job directories go when the section has no ``job_dir``."""
    renderer: str
    """``module:function`` of ``(document, spec, nproc_per_node) -> artifact text``."""
    submitter: str
    """``module:function`` of ``(Handover) -> Submitted``."""
    backend: str = ""
    """Module answering ``status``, ``logs`` and ``cancel`` (:mod:`automodel_launch.jobs`)."""
    progress: str = ""
    """Shown while the job is handed over; empty: the run's own output shows progress."""
    script_prefix: str = ""
    """Written above the artifact in the job directory (the command alone is printed)."""
    detached: bool = True
    """The job runs apart from ``submit`` whatever ``--detach`` says (a scheduler's job)."""

    def render(self, document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
        render: Callable[[LaunchDocument, JobSpec, int], str] = _load(self.renderer)
        return render(document, spec, nproc_per_node)

    def job_file(self, artifact: str) -> str:
        """The artifact as the job directory holds it."""
        return self.script_prefix + artifact

    def submit(self, handover: Handover) -> Submitted:
        submit: Callable[[Handover], Submitted] = _load(self.submitter)
        return submit(handover)


LAUNCHERS: dict[str, Launcher] = {
    launcher.name: launcher
    for launcher in (
        Launcher(
            "slurm",
            SLURM_SCRIPT,
            "slurm_jobs",
            "automodel_launch.render.slurm:render_artifact",
            "automodel_launch.submit.slurm:hand_over",
            backend="automodel_launch.jobs.slurm",
            progress="waiting for sbatch",
        ),
        Launcher(
            "skypilot",
            SKYPILOT_TASK,
            "skypilot_jobs",
            "automodel_launch.render.skypilot:render_artifact",
            "automodel_launch.submit.skypilot:hand_over",
            backend="automodel_launch.jobs.skypilot",
            progress="waiting for SkyPilot",
        ),
        Launcher(
            "interactive",
            LOCAL_SCRIPT,
            ".",
            "automodel_launch.render.interactive:render_artifact",
            "automodel_launch.submit.local:hand_over",
            backend="automodel_launch.jobs.local",
            script_prefix="#!/bin/bash\nset -euo pipefail\n",
            detached=False,
        ),
    )
}


def launcher_of(document: LaunchDocument) -> Launcher:
    return LAUNCHERS[document.launcher]


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
