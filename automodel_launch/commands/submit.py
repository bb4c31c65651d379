"""``submit`` and ``rerun``: the one sequence that hands a plan over.

:func:`hand_over` is every submit, whoever asks (``submit``, ``rerun``, ``api.submit``,
``api.rerun``): aim the plan at its named cluster (``--remote``, else its profile's
``remote:``; :mod:`automodel_launch.remote.target`), connect, ask the cluster
(preflight), show or refuse its diagnostics, refuse what its launcher cannot do, render
it, place its job directory on the cluster, and hand it over
(:func:`automodel_launch.plan.submit.submit_plan`: written whole, handed over, each point
recorded). :func:`submit` plans a recipe into it, :func:`rerun` a job run again,
:func:`submit_rendered` a plan ``api.plan`` rendered to be submitted.

Nothing here prints: :class:`Hooks` are what the caller shows while it runs (the command
line: diagnostics, notes, the summary, a spinner, each launcher's line); the API shows
nothing and raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.commands.plan import Problems, Request, plan_of, render_of

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.plan.rerun import Mode as Mode
    from automodel_launch.plan.submit import Progress, Say
    from automodel_launch.plan.submit import Submission as Submission
    from automodel_launch.profiles.overrides import Override
    from automodel_launch.remote.session import RemoteSession
    from automodel_launch.settings import Settings


def _quiet(text: str) -> contextlib.AbstractContextManager[object]:
    return contextlib.nullcontext()


def _nothing(done: Submission) -> None:
    return None


@dataclass(frozen=True)
class Hooks:
    """What the caller does while a submit runs."""

    problems: Problems
    """Called with the plan, its cluster's word added, before it is rendered: show its
    diagnostics, and raise when they stop it."""
    say: Say | None = None
    """Notes while it works, and the summary of what is handed over (None: no summary is
    made)."""
    progress: Progress = _quiet
    """Around each wait for the scheduler or SkyPilot."""
    handed: Callable[[Submission], None] = _nothing
    """Called with what was handed over, before a point that failed is raised."""


@dataclass(frozen=True)
class Order:
    """How to submit, besides what: ``submit``'s options and ``api.submit``'s arguments."""

    preflight: bool = True
    remote: str | None = None
    """The named cluster (None: the profile's ``remote:``, else this host)."""
    dry_run: bool = False
    detach: bool = False


def submit(request: Request, order: Order, hooks: Hooks) -> Submission:
    """``submit CONFIG``: the request planned to be submitted, and handed over."""
    plan = plan_of(request, submitting=True)

    def render(made: JobPlan) -> None:
        render_of(made, request, submitting=True)

    return hand_over(plan, render, order, hooks, job_dir=request.job_dir, after=bool(request.after))


def rerun(
    first: Manifest,
    settings: Settings,
    overrides: tuple[Override, ...],
    mode: Mode,
    job_dir: Path | None,
    order: Order,
    hooks: Hooks,
) -> Submission:
    """``rerun JOB``: what job ``first`` ran, with ``overrides`` on top, handed over as a
    new job; on ``first``'s named cluster unless ``order`` names another."""
    from dataclasses import replace

    from automodel_launch.plan.rerun import plan_rerun

    again = plan_rerun(first, settings, overrides, checkpoints=mode)
    there = order.remote or (first.remote.name if first.remote is not None else None)

    def render(made: JobPlan) -> None:
        again.render(job_dir)

    aimed = replace(order, remote=there)
    done = hand_over(again.plan, render, aimed, hooks, job_dir=job_dir, after=False)
    done.forecast = _ahead(first, done)
    return done


def _ahead(first: Manifest, done: Submission) -> str | None:
    """The new job's forecast at ``first``'s rate (its status read once), when it has one."""
    from automodel_launch.errors import LaunchError
    from automodel_launch.launchers.dispatch import statuses
    from automodel_launch.progress.ahead import before_it_runs

    if not done.manifests:
        return None
    try:
        earlier = statuses([first], failures=True)[0].progress
    except (LaunchError, OSError):  # its scheduler or files: not worth failing the rerun for
        return None
    if earlier is None or earlier.seconds_per_step is None:
        return None
    ahead = before_it_runs(done.manifests[0], earlier.seconds_per_step, f"job {first.id}'s")
    return None if ahead is None else ahead.text


def not_again(first: Manifest, strict: bool) -> Problems:
    """The API's :data:`~automodel_launch.commands.plan.Problems` of a rerun: a config
    that no longer validates is an error naming its errors."""

    def refuse(made: JobPlan) -> None:
        if made.failed(strict) or made.document is None:
            from automodel_launch.errors import LaunchError

            errors = "; ".join(d.message for d in made.report.diagnostics if d.is_error)
            raise LaunchError(f"job {first.id} cannot be run again: {errors}")

    return refuse


def submit_planned(plan: JobPlan, order: Order) -> Submission:
    """``api.submit`` of what ``api.plan`` returned: a plan shown is planned again to be
    submitted (:attr:`~automodel_launch.plan.plan.JobPlan.to_submit`); one rendered to be
    submitted was aimed and checked then, and the cluster's errors (preflight) stop it now.
    """
    from automodel_launch.commands.plan import not_rendered, refuse_failed
    from automodel_launch.errors import UsageError

    again = plan.to_submit
    if again is not None:
        return submit(again, order, Hooks(refuse_failed(again.config.strict)))
    if plan.root is None or plan.document is None:
        raise not_rendered(plan)
    if order.remote is not None:
        raise UsageError(
            "api.submit: remote is for a recipe or a plan to be shown; this plan was rendered "
            "to be submitted (submitting=True), aimed where its profile sends it"
        )
    return submit_rendered(plan, order, Hooks(refuse_failed(False)))


def submit_rendered(plan: JobPlan, order: Order, hooks: Hooks) -> Submission:
    """A plan rendered to be submitted already (aimed when it was): handed over; the job
    directory it claimed is released when it is refused before anything is written in it
    (a directory written into is never removed by a release)."""
    from automodel_launch.prepare import release

    try:
        return hand_over(plan, None, order, hooks, job_dir=None, after=False)
    except BaseException:
        release(plan.claimed)
        raise


def hand_over(
    plan: JobPlan,
    render: Callable[[JobPlan], None] | None,
    order: Order,
    hooks: Hooks,
    *,
    job_dir: Path | None,
    after: bool,
) -> Submission:
    """The sequence: aim, connect, preflight, refuse, render (``render`` None: rendered
    already), place, hand over. ``after``: the plan waits for other jobs (only a launcher
    that keeps dependencies can)."""
    from automodel_launch.commands.preflight import ask_the_cluster
    from automodel_launch.remote.session import connected
    from automodel_launch.remote.target import placed

    session = _session(plan, render is not None, order.remote, job_dir)
    with connected(session):
        if order.preflight:
            ask_the_cluster(plan)
        hooks.problems(plan)
        _refuse_unsupported(plan, detach=order.detach, after=after)
        if render is not None:
            _render(plan, render)
        placed(plan, session)
        return _submitted(plan, order, hooks)


def _session(
    plan: JobPlan, aiming: bool, remote: str | None, job_dir: Path | None
) -> RemoteSession | None:
    """The session of the cluster the plan goes to (None: this host's)."""
    if aiming:
        from automodel_launch.remote.target import aim

        return aim(plan, remote, job_dir) if plan.document is not None else None
    if plan.remote is None:
        return None
    from automodel_launch.remote.session import RemoteSession

    return RemoteSession(plan.remote)


def _refuse_unsupported(plan: JobPlan, *, detach: bool, after: bool) -> None:
    from automodel_launch.launchers import launcher_of
    from automodel_launch.plan.submit import refuse_unsupported

    assert plan.document is not None  # the problems hook stops a plan without one
    refuse_unsupported(plan, launcher_of(plan.document).name, detach=detach, after=after)


def _render(plan: JobPlan, render: Callable[[JobPlan], None]) -> None:
    """A job directory or entry point that cannot be used: a usage error."""
    from automodel_launch.errors import UsageError
    from automodel_launch.jobdir import JobDirError
    from automodel_launch.render.entry import EntryError

    try:
        render(plan)
    except (JobDirError, EntryError) as exc:
        raise UsageError(str(exc), hint=exc.hint) from None


def _submitted(plan: JobPlan, order: Order, hooks: Hooks) -> Submission:
    """Write, hand over and record the rendered plan; a point that failed is raised."""
    from automodel_launch.commands.summary import plan_summary
    from automodel_launch.plan.submit import raise_failed, submit_plan

    shown = hooks.say is not None
    done = submit_plan(
        plan, dry_run=order.dry_run, detach=order.detach,
        say=hooks.say if hooks.say is not None else lambda line: None,
        progress=hooks.progress, summary=plan_summary if shown else None,
    )  # fmt: skip
    hooks.handed(done)
    raise_failed(done)
    return done
