"""A plan as :func:`automodel_launch.api.plan` asks for it, and planned again to be submitted.

``api.plan`` renders a plan to be shown unless told it submits: nothing is claimed or
copied for a plan that may never be submitted. :func:`automodel_launch.api.submit` of such
a plan plans it again the way ``submit`` plans a recipe (:attr:`JobPlan.to_submit`):
checked for submitting (an unset ``${VAR}`` is an error then), in a job directory of its
own, running a snapshot of ``repo_root`` unless the request said ``snapshot=False``, from
the recipe's text as it was checked the first time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automodel_launch.errors import LaunchError
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.plan.sweep import Axis
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.settings import Settings


@dataclass(frozen=True)
class Request:
    """What :func:`automodel_launch.api.plan` was asked, its arguments checked."""

    recipe: Path
    axes: tuple[Axis, ...]
    layers: Layers | None
    max_parallel: int | None
    entry: EntryChoice
    job_dir: Path | None
    after: tuple[str, ...]
    config: Settings
    snapshot: bool
    raw: bytes | None = None
    """The recipe's text as it was checked the first time (None: read the file)."""


def planned(request: Request, *, submitting: bool) -> JobPlan:
    """Every point validated and, when all pass, rendered: to be submitted, or to be shown
    (then :attr:`~automodel_launch.plan.plan.JobPlan.to_submit` plans it again)."""
    from automodel_launch.loading import load_bytes
    from automodel_launch.plan.after import dependency
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.plan.render import render_plan
    from automodel_launch.snapshot import CodeOptions

    made = plan_jobs(
        request.recipe, request.config, entry=request.entry, axes=request.axes,
        max_parallel=request.max_parallel, layers=request.layers, submitting=submitting,
        loaded=None if request.raw is None else load_bytes(request.raw, str(request.recipe)),
    )  # fmt: skip
    if made.failed(request.config.strict):
        return made
    if request.after and made.document is not None:
        from automodel_launch.launchers import launcher_of
        from automodel_launch.plan.submit import refuse_unsupported

        refuse_unsupported(made, launcher_of(made.document).name, detach=False, after=True)
    render_plan(
        made, entry=request.entry, job_dir=request.job_dir, submitting=submitting,
        after=dependency(request.after, made.remote.name if made.remote else None),
        code=CodeOptions() if submitting and request.snapshot else None,
    )  # fmt: skip
    loaded = made.jobs[0].report.loaded
    if not submitting and loaded is not None:
        again = replace(request, raw=loaded.text.encode())
        made.to_submit = functools.partial(planned, again, submitting=True)
    return made


def not_rendered(made: JobPlan) -> LaunchError:
    """The diagnostics that stopped ``made`` (its errors; under ``strict``, its warnings),
    as the error of submitting it."""
    from automodel_launch.errors import LaunchError

    found = made.report.diagnostics
    stopping = [d for d in found if d.is_error] or list(found)
    said = "; ".join(f"{d.path}: {d.message}" if d.path else d.message for d in stopping)
    return LaunchError(
        f"{made.path} cannot be submitted: {said}", hint=stopping[0].hint if stopping else None
    )
