"""Handing a rendered job directory to the system that runs it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Submitted:
    """What the user needs next: an id to watch and where the files are."""

    summary: str
    job_id: str | None = None


class SubmitError(Exception):
    """The scheduler or cloud refused; the message is theirs, with what to do."""
