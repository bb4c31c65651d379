"""The Python API: what the commands do, returning data instead of printing it.

Each function checks its arguments (:mod:`automodel_launch.api_edge`) and runs the one
sequence of its command (:mod:`automodel_launch.commands`), which the command line runs
too: it parses options, calls that sequence, prints the result. A notebook the same::

    from automodel_launch import api

    plan = api.plan("recipe.yaml", sweep={"optimizer.lr": [1e-5, 1e-4]}, max_parallel=2)
    print(plan.artifact)                           # the one array script
    submitted = api.submit(plan, preflight=True)   # the cluster asked first; one sbatch
    print(api.status(submitted.sweep).summary)     # 2 points: 1 RUNNING, 1 PENDING
    api.cancel(submitted.sweep)                    # every point not finished: one scancel

Every function raises a :class:`~automodel_launch.errors.LaunchError` (message and hint)
for what the command line reports as an error, and for an argument of a type it does not
take (:class:`~automodel_launch.api_edge.ArgumentError`, a TypeError too), masked as the
command line prints it. A plan whose points do not validate is returned with its
diagnostics (``plan.report``), not rendered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from automodel_launch import api_edge as given
from automodel_launch.api_edge import edge

if TYPE_CHECKING:
    from automodel_launch.commands.render import Rendered
    from automodel_launch.commands.submit import Mode, Submission
    from automodel_launch.jobs.diff import Comparison
    from automodel_launch.jobs.listing import Listing
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.results import FileReport
    from automodel_launch.settings import Settings


@edge
def settings(**values: Any) -> Settings:
    """The settings a command would use (file, environment), with ``values`` on top."""
    from automodel_launch.errors import UsageError
    from automodel_launch.settings import SettingsError, resolve_settings

    try:
        return resolve_settings(**values)
    except SettingsError as exc:  # as a bad flag on the command line
        raise UsageError(str(exc)) from None


@edge
def validate(
    paths: Sequence[str | Path],
    *,
    sets: Sequence[str] | Mapping[str, Any] = (),
    profile: str | None = None,
    cluster: bool = False,
    remote: str | None = None,
    config: Settings | None = None,
) -> list[FileReport]:
    """``validate PATH...``: one report per file found (directories are searched), with
    ``profile`` and ``sets`` as ``--profile`` and ``--set``; ``cluster``: every valid
    ``slurm:`` config also asked of the live cluster (``remote``: a named cluster over SSH,
    else the profile's ``remote:``, else this host's Slurm), as ``--cluster``."""
    from automodel_launch.commands.validate import validate as run

    found = given.paths(paths, "paths")
    layers = given.layers(profile, sets)
    asked, there = given.flag(cluster, "cluster"), given.remote(remote)
    if there is not None and not asked:
        raise given.ArgumentError("remote names the cluster cluster=True asks: give both")
    return run(found, given.settings(config), layers, cluster=asked, remote=there)


@edge
def plan(
    recipe: str | Path,
    *,
    sweep: Mapping[str, Sequence[Any]] | Sequence[str] = (),
    sets: Sequence[str] | Mapping[str, Any] = (),
    profile: str | None = None,
    max_parallel: int | None = None,
    entry: str | None = None,
    job_dir: str | Path | None = None,
    after: Sequence[str] = (),
    submitting: bool = False,
    config: Settings | None = None,
    snapshot: bool = True,
) -> JobPlan:
    """Validate every point of ``recipe`` and, when all pass, render them.

    ``sweep``: ``{"optimizer.lr": [1e-5, 1e-4]}`` or ``["optimizer.lr=1e-5,1e-4"]``
    (as ``--sweep``); ``sets``: ``{"slurm.nodes": 2}`` or ``["slurm.nodes=2"]``. A
    mapping's values are written as YAML flow text, so they read back as given.
    ``after``: Slurm jobs this one waits for, as ``--after`` takes them. ``submitting``:
    render it to be submitted (checked for submitting, a job directory of its own);
    without, :func:`submit` plans it so again. ``snapshot``: the submitted job runs a
    snapshot of ``repo_root`` taken then (False: the live tree, as ``--no-snapshot``).
    """
    from automodel_launch.commands.plan import planned

    request = given.request(
        recipe, sweep=sweep, sets=sets, profile=profile, max_parallel=max_parallel, entry=entry,
        job_dir=job_dir, after=after, config=config, snapshot=snapshot,
    )  # fmt: skip
    return planned(request, submitting=given.flag(submitting, "submitting"))


@edge
def render(
    recipe: str | Path,
    *,
    sweep: Mapping[str, Sequence[Any]] | Sequence[str] = (),
    sets: Sequence[str] | Mapping[str, Any] = (),
    profile: str | None = None,
    max_parallel: int | None = None,
    entry: str | None = None,
    nproc_per_node: int | None = None,
    job_dir: str | Path | None = None,
    remote: str | None = None,
    config: Settings | None = None,
) -> Rendered:
    """``render CONFIG``: ``.artifact`` is what it prints (the script, task or command
    line; a sweep's ``.points`` above it); with ``job_dir``, the job directory written
    there (``.job_dir``, ``.files``), its scripts naming the paths of cluster ``remote``
    (no connection is made). Raises when the recipe does not validate (``.plan.report``
    holds the warnings of one that does)."""
    from automodel_launch.commands.plan import refuse_failed
    from automodel_launch.commands.render import render as run

    request = given.request(
        recipe, sweep=sweep, sets=sets, profile=profile, max_parallel=max_parallel, entry=entry,
        job_dir=job_dir, config=config, nproc_per_node=nproc_per_node,
    )  # fmt: skip
    there = given.remote(remote)
    return run(request, remote=there, problems=refuse_failed(request.config.strict, "rendered"))


@edge
def submit(
    recipe: str | Path | JobPlan,
    *,
    dry_run: bool = False,
    preflight: bool = False,
    remote: str | None = None,
    **options: Any,
) -> Submission:
    """Submit a plan (or plan ``recipe`` first, with ``options`` as :func:`plan` takes
    them) as ``submit`` does: aimed at cluster ``remote`` over SSH (None: the profile's
    ``remote:``, else this host), the cluster asked first when ``preflight`` (its errors
    refuse the job, as without ``--no-preflight``), its files written whole, one handover
    for a single job or a Slurm array, each point recorded. A plan rendered to be shown
    (:func:`plan` without ``submitting``) is planned again to be submitted, from the text
    it was checked from: checked for submitting, in a job directory of its own, running a
    snapshot of ``repo_root`` unless it was planned with ``snapshot=False``. Raises when
    its points do not validate."""
    from automodel_launch.commands import submit as run
    from automodel_launch.commands.plan import refuse_failed
    from automodel_launch.plan.plan import JobPlan

    order = given.order(preflight, remote, dry_run)
    if isinstance(recipe, JobPlan):
        if options:
            raise given.ArgumentError(
                f"api.submit: {', '.join(sorted(options))} is for a recipe; a plan is "
                "submitted as it was planned"
            )
        return run.submit_planned(recipe, order)
    request = given.request(given.path(recipe, "recipe"), **given.plan_options(options, plan))
    return run.submit(request, order, run.Hooks(refuse_failed(request.config.strict)))


@edge
def jobs(
    *,
    launcher: str | None = None,
    state: str | None = None,
    since: str | None = None,
    sweep: str | None = None,
) -> list[dict[str, Any]]:
    """The registry's jobs with their states now, as ``jobs --format json`` lists them
    (newest first; every point of a sweep is a job). ``since``: ``2d``, ``12h``...;
    ``sweep``: only the points of the sweep it names (an id, its array id or its name)."""
    found = job_list(launcher=launcher, state=state, since=since, sweep=sweep)
    return [status.to_json() for status in found.jobs]


@edge
def job_list(
    *,
    launcher: str | None = None,
    state: str | None = None,
    since: str | None = None,
    limit: int = 0,
    sweep: str | None = None,
) -> Listing:
    """What ``jobs`` shows: the jobs of the newest ``limit`` rows (0: all; a sweep is one
    row) with their states now (``.jobs``: :class:`~automodel_launch.jobs.status.JobStatus`,
    ``.table``: the rows), how many rows there are (``.rows``) and the registry's records
    that hold no manifest (``.problems``). Options as :func:`jobs` takes them, and as
    ``jobs`` does: ``state`` in any case, ``launcher`` ``local`` for the interactive one;
    one no job can have is an error naming those there are."""
    from automodel_launch.jobs.listing import list_jobs, read_filters

    filters = read_filters(
        given.optional_text(launcher, "launcher"), given.optional_text(state, "state"),
        given.optional_text(since, "since"),
    )  # fmt: skip
    return list_jobs(
        launcher=filters.launcher, state=filters.state, after=filters.after,
        limit=given.whole(limit, "limit", at_least=0), sweep=given.optional_text(sweep, "sweep"),
    )  # fmt: skip


@edge
def find(ref: str) -> Manifest | Sweep:
    """The job (its manifest) or sweep ``ref`` names: an id or its unique start, a
    scheduler id, a job directory or a name (the newest of that name)."""
    from automodel_launch.jobs.lookup import find_job_or_sweep

    return find_job_or_sweep(given.text(ref, "ref"))


@edge
def job(ref: str, *, point: int | None = None) -> Manifest:
    """The one job ``ref`` names; of a sweep, its point ``point`` (required then)."""
    from automodel_launch.jobs.lookup import find_point

    return find_point(given.text(ref, "ref"), given.optional_whole(point, "point"))


@overload
def status(ref: Manifest) -> JobStatus: ...
@overload
def status(ref: Sweep) -> SweepStatus: ...
@overload
def status(ref: str) -> JobStatus | SweepStatus: ...
@edge
def status(ref: str | Manifest | Sweep) -> JobStatus | SweepStatus:
    """The state now of a job, or of every point of a sweep (one scheduler query);
    ``ref`` as :func:`find` takes it, or what it returned."""
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus
    from automodel_launch.launchers.dispatch import statuses

    target = given.target(ref)
    if isinstance(target, Sweep):
        from automodel_launch.progress.ahead import for_pending_points

        points = for_pending_points(statuses(list(target.points), failures=True))
        return SweepStatus(target.id, tuple(points))
    return statuses([target], failures=True)[0]


@overload
def cancel(ref: Manifest) -> JobStatus: ...
@overload
def cancel(ref: Sweep) -> SweepStatus: ...
@overload
def cancel(ref: str) -> JobStatus | SweepStatus: ...
@edge
def cancel(ref: str | Manifest | Sweep) -> JobStatus | SweepStatus:
    """Cancel a job, or every point of a sweep not finished yet (Slurm: one ``scancel``);
    its state after. ``ref`` as :func:`status` takes it."""
    from automodel_launch.jobs.driven import cancel_queued, driven
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus
    from automodel_launch.launchers.dispatch import backend, cancel_all

    target = given.target(ref)
    if isinstance(target, Sweep):
        return SweepStatus(target.id, tuple(cancel_all(list(target.points))))
    if driven(target):  # a sweep's point its driver has not started: it never will
        return cancel_queued(target)
    return backend(target.launcher).cancel(target)


@edge
def diff(old: str | Manifest, new: str | Manifest) -> Comparison:
    """What differs between two jobs (``old`` and ``new`` as :func:`find` takes them, a
    sweep's point by its own id, or their manifests): launcher settings, image, profile,
    ``--set`` values, code, recipe values. ``.differences``: each
    :class:`~automodel_launch.jobs.diff.Difference` has ``key``, ``old`` and ``new`` (None
    where a job has no such value); ``.lines()`` and ``.to_json()`` as ``diff`` prints.
    Both naming the same job is a :class:`~automodel_launch.errors.UsageError`."""
    from automodel_launch.errors import UsageError
    from automodel_launch.jobs.diff import compare

    left, right = given.one_job(old, "old"), given.one_job(new, "new")
    if left.id == right.id:
        named = " and ".join(f"'{r}'" if isinstance(r, str) else f"job {r.id}" for r in (old, new))
        raise UsageError(
            f"{named} are the same job ({left.id}): there is nothing to compare",
            hint="give two different jobs (`automodel-launch jobs` lists them)",
        )
    return compare(left, right)


@edge
def rerun(
    ref: str | Manifest,
    *,
    sets: Sequence[str] | Mapping[str, Any] = (),
    point: int | None = None,
    job_dir: str | Path | None = None,
    dry_run: bool = False,
    config: Settings | None = None,
    fresh: bool = False,
    resume: bool = False,
    preflight: bool = False,
    remote: str | None = None,
) -> Submission:
    """``rerun JOB``: submit the config and code job ``ref`` ran again as a new job, with
    ``sets`` on top (as :func:`plan` takes them); of a sweep, its point ``point``. Raises
    when the config no longer validates (the diagnostics in the message). ``fresh``,
    ``resume``: as ``--fresh``/``--resume`` (by default it resumes unless ``sets`` change a
    recipe value); ``preflight``, ``remote`` as :func:`submit` takes them (by default, the
    cluster job ``ref`` ran on)."""
    from automodel_launch.commands import submit as run

    if not isinstance(ref, str) and point is not None:
        raise given.ArgumentError("point names a point of the sweep ref names: give ref a text")
    if given.flag(fresh, "fresh") and given.flag(resume, "resume"):
        raise given.ArgumentError("fresh and resume: choose one")
    first = job(ref, point=point) if isinstance(ref, str) else given.one_job(ref, "ref")
    chosen = given.settings(config)
    overrides = given.overrides(sets)
    where = given.optional_path(job_dir, "job_dir")
    order = given.order(preflight, remote, dry_run)
    mode: Mode = "fresh" if fresh else "resume" if resume else "auto"
    hooks = run.Hooks(run.not_again(first, chosen.strict))
    return run.rerun(first, chosen, overrides, mode, where, order, hooks)
