"""Handing a rendered job directory to the system that runs it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.errors import LaunchError

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument


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
    sweep_point: bool = False
    """A point of a sweep handed over on its own (:mod:`automodel_launch.plan.driver`): it
    must run apart and end by itself (SkyPilot: a managed job, spot or not)."""
    script: str | None = None
    """The script to hand over, one of several in the job directory (a sweep of several
    Slurm job arrays, each its own); None: the launcher's artifact."""
    again: bool = False
    """The job directory was handed over already (an earlier job array of the sweep runs
    from it): it is not copied anew to a named cluster, and stays whatever happens."""


@dataclass(frozen=True)
class Submitted:
    """What the user needs next: an id to watch and where the files are."""

    summary: str
    job_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """Recorded in the job's manifest: what finds the job again (a pid, a cluster name)."""


class SubmitError(LaunchError):
    """The scheduler or cloud refused, or the run failed; the message says what to do.

    ``started``: the job ran, so its directory holds its logs (and maybe checkpoints)
    and must be kept; otherwise nothing ran in it and it is removed.
    """

    def __init__(self, message: str, *, started: bool = False) -> None:
        super().__init__(message)
        self.started = started
