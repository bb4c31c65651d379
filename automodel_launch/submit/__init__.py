"""Handing a rendered job directory to the system that runs it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from automodel_launch.errors import LaunchError


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
