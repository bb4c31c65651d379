"""The toy job's script: the entry point as a local run has it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from automodel_launch.launchers.local.render import interactive_command
from automodel_launch.layout import JOB_CONFIG
from tests.launchers.toy.config import ToyConfig

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.render.entry import JobSpec


def render_artifact(document: LaunchDocument, spec: JobSpec, nproc_per_node: int) -> str:
    section = document.launcher_section
    assert isinstance(section, ToyConfig)
    lines = [
        "#!/bin/bash",
        f"# toy job {spec.job_name}: queue {section.queue}, priority {section.priority}",
        "set -euo pipefail",
        interactive_command(spec.entry, f"{spec.job_dir}/{JOB_CONFIG}", nproc_per_node),
    ]
    return "\n".join(lines) + "\n"
