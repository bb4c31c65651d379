"""The ``toy:`` section: what a recipe says to the toy scheduler."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from automodel_launch.config.types import StrictSection


class ToyConfig(StrictSection):
    """Submit to the toy scheduler (``toy-submit``)."""

    references_resolved: ClassVar[str] = "the job starts"

    job_name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")] | None = Field(
        default=None, description="The job's name (default: {domain}_{command})."
    )
    job_dir: str | None = Field(default=None, description="Where job directories go.")
    queue: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")] = Field(
        default="default", description="The toy queue the job waits in."
    )
    priority: Annotated[int, Field(ge=0, le=9)] = Field(
        default=5, description="0 (last) to 9 (first)."
    )
