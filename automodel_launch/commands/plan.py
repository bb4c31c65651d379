"""What ``render`` and ``submit`` are asked (:class:`Request`), planned and rendered.

The command line reads its options into a :class:`Request`, :mod:`automodel_launch.api`
its arguments; both plan it here (:func:`plan_of`) and render it here (:func:`render_of`),
so a recipe is planned and rendered one way whoever asks.

``api.plan`` (:func:`planned`) renders a plan to be shown unless told it submits: nothing
is claimed or copied for a plan that may never be submitted. :func:`automodel_launch.api.submit`
of such a plan plans it again the way ``submit`` plans a recipe (:attr:`JobPlan.to_submit`):
checked for submitting (an unset ``${VAR}`` is an error then), in a job directory of its
own, running a snapshot of ``repo_root`` unless the request said ``snapshot=False``, from
the recipe's text as it was checked the first time.
"""

from __future__ import annotations

from collections.abc import Callable
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
    from automodel_launch.snapshot import CodeOptions

Problems = Callable[["JobPlan"], None]
"""What a caller does with a plan's diagnostics before it is rendered: the command line
prints them, and stops when they fail the plan; the API raises (:func:`refuse_failed`)."""


@dataclass(frozen=True)
class Request:
    """A recipe and how to plan it, its options (or the API's arguments) checked."""

    recipe: Path
    axes: tuple[Axis, ...]
    layers: Layers | None
    max_parallel: int | None
    entry: EntryChoice
    job_dir: Path | None
    after: tuple[str, ...]
    config: Settings
    code: CodeOptions | None
    """How a submitted job's snapshot of ``repo_root`` is taken (None: it runs the live
    tree, as ``--no-snapshot``)."""
    nproc_per_node: int | None = None
    """This node's processes (None: the GPUs visible here, else 1)."""
    raw: bytes | None = None
    """The recipe's text as it was checked the first time (None: read the file)."""


def plan_of(request: Request, *, submitting: bool) -> JobPlan:
    """Every point of the request validated, nothing rendered yet."""
    from automodel_launch.loading import load_bytes
    from automodel_launch.plan.plan import plan_jobs

    return plan_jobs(
        request.recipe, request.config, entry=request.entry, axes=request.axes,
        max_parallel=request.max_parallel, layers=request.layers, submitting=submitting,
        loaded=None if request.raw is None else load_bytes(request.raw, str(request.recipe)),
    )  # fmt: skip


def render_of(made: JobPlan, request: Request, *, submitting: bool) -> None:
    """Render ``made`` (every point validated) as the request asks; submitting: with its
    ``--after`` dependency and its code snapshot."""
    from automodel_launch.checks import local_gpu_count
    from automodel_launch.plan.render import render_plan

    after = None
    if request.after:
        from automodel_launch.plan.after import dependency

        after = dependency(request.after, made.remote.name if made.remote else None)
    render_plan(
        made, entry=request.entry, job_dir=request.job_dir,
        nproc_per_node=request.nproc_per_node or local_gpu_count(), submitting=submitting,
        after=after, code=request.code if submitting else None,
    )  # fmt: skip


def planned(request: Request, *, submitting: bool) -> JobPlan:
    """``api.plan``: every point validated and, when all pass, rendered: to be submitted
    (aimed at the cluster its profile names, as ``submit`` aims it), or to be shown (then
    :attr:`~automodel_launch.plan.plan.JobPlan.to_submit` is what plans it again)."""
    made = plan_of(request, submitting=submitting)
    if made.failed(request.config.strict):
        return made
    if request.after and made.document is not None:
        from automodel_launch.launchers import launcher_of
        from automodel_launch.plan.submit import refuse_unsupported

        refuse_unsupported(made, launcher_of(made.document).name, detach=False, after=True)
    if submitting:
        from automodel_launch.remote.target import aim

        aim(made, None, request.job_dir)  # connected when it is submitted
    render_of(made, request, submitting=submitting)
    loaded = made.jobs[0].report.loaded
    if not submitting and loaded is not None:
        made.to_submit = replace(request, raw=loaded.text.encode())
    return made


def not_rendered(made: JobPlan, doing: str = "submitted") -> LaunchError:
    """The diagnostics that stopped ``made`` (its errors; under ``strict``, its warnings),
    as the error of submitting (or rendering) it."""
    from automodel_launch.errors import LaunchError

    found = made.report.diagnostics
    stopping = [d for d in found if d.is_error] or list(found)
    said = "; ".join(f"{d.path}: {d.message}" if d.path else d.message for d in stopping)
    return LaunchError(
        f"{made.path} cannot be {doing}: {said}", hint=stopping[0].hint if stopping else None
    )


def refuse_failed(strict: bool, doing: str = "submitted") -> Problems:
    """The API's :data:`Problems`: a plan that failed (under ``strict``, warnings too) is
    the error :func:`not_rendered` says."""

    def refuse(made: JobPlan) -> None:
        if made.failed(strict) or made.document is None:
            raise not_rendered(made, doing)

    return refuse
