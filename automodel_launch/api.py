"""The Python API: what the commands do, returning data instead of printing it.

The command line is a thin layer over these functions (it parses options, calls one of
them, prints the result). A notebook or a script uses them the same way::

    from automodel_launch import api

    reports = api.validate(["recipe.yaml"])
    plan = api.plan("recipe.yaml", sweep={"optimizer.lr": [1e-5, 1e-4]}, max_parallel=2)
    print(plan.artifact)                      # the one array script
    submitted = api.submit(plan)              # one sbatch; every point recorded
    for job in api.jobs(sweep=submitted.sweep):
        print(job["point"], job["values"], job["state"])
    print(api.status(submitted.sweep).summary)  # 2 points: 1 RUNNING, 1 PENDING
    api.cancel(submitted.sweep)               # every point not finished: one scancel

Every function raises a :class:`~automodel_launch.errors.LaunchError` (with a message
and a hint) for what the command line would report as an error; a plan whose points do
not validate is returned with its diagnostics (``plan.report``), not rendered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from automodel_launch.jobs.diff import Comparison
    from automodel_launch.jobs.listing import Listing
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.plan.rerun import Mode
    from automodel_launch.plan.submit import Submission
    from automodel_launch.results import FileReport
    from automodel_launch.settings import Settings
    from automodel_launch.snapshot import CodeOptions


def settings(**values: Any) -> Settings:
    """The settings a command would use (file, environment), with ``values`` on top."""
    from automodel_launch.settings import resolve_settings

    return resolve_settings(**values)


def validate(paths: Sequence[str | Path], *, config: Settings | None = None) -> list[FileReport]:
    """``validate PATH...``: one report per file found (directories are searched)."""
    from automodel_launch.validation import validate_paths

    return validate_paths([Path(p) for p in paths], config or settings())


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
    ``after``: Slurm jobs this one waits for, as ``--after`` takes them. ``snapshot``:
    when submitting, the job runs a snapshot of ``repo_root`` (False: the live tree).
    """
    from automodel_launch.plan.after import dependency
    from automodel_launch.plan.plan import plan_jobs
    from automodel_launch.plan.render import render_plan
    from automodel_launch.plan.sweep import parse_axis
    from automodel_launch.prepare import EntryChoice
    from automodel_launch.profiles.overrides import Layers, parse_override

    chosen = config or settings()
    axes = [parse_axis(text) for text in _arguments(sweep, many=True)]
    overrides = tuple(parse_override(text) for text in _arguments(sets, many=False))
    layers = Layers(profile, overrides) if profile or overrides else None
    choice = EntryChoice(entry)
    made = plan_jobs(
        Path(recipe), chosen, entry=choice, axes=axes, max_parallel=max_parallel,
        layers=layers, submitting=submitting,
    )  # fmt: skip
    if made.failed(chosen.strict):
        return made
    if after and made.document is not None:
        from automodel_launch.launchers import launcher_of
        from automodel_launch.plan.submit import refuse_unsupported

        refuse_unsupported(made, launcher_of(made.document).name, detach=False, after=True)
    render_plan(
        made, entry=choice, job_dir=Path(job_dir) if job_dir is not None else None,
        submitting=submitting, after=dependency(after),
        code=_code_options() if submitting and snapshot else None,
    )  # fmt: skip
    return made


def _code_options() -> CodeOptions:
    from automodel_launch.snapshot import CodeOptions

    return CodeOptions()


def submit(recipe: str | Path | JobPlan, *, dry_run: bool = False, **options: Any) -> Submission:
    """Submit a plan (or plan ``recipe`` first, with ``options`` as :func:`plan` takes
    them): its files written whole, one handover for a single job or a Slurm array, each
    point recorded. Raises when the plan's points do not validate."""
    from automodel_launch.errors import LaunchError
    from automodel_launch.launchers import launcher_of
    from automodel_launch.plan.submit import raise_failed, refuse_unsupported, submit_plan

    made = plan(recipe, submitting=True, **options) if isinstance(recipe, (str, Path)) else recipe
    if made.root is None or made.document is None:
        raise LaunchError(
            f"{made.path} was not rendered: it has errors", hint="see plan.report.diagnostics"
        )
    refuse_unsupported(made, launcher_of(made.document).name, detach=False, after=False)
    done = submit_plan(made, dry_run=dry_run)
    raise_failed(done)
    return done


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
    that hold no manifest (``.problems``). Options as :func:`jobs` takes them."""
    from automodel_launch.errors import UsageError
    from automodel_launch.jobs.listing import list_jobs
    from automodel_launch.jobs.lookup import since_epoch

    try:
        after = since_epoch(since) if since is not None else None
    except ValueError as exc:
        raise UsageError(f"since: {exc}") from None
    return list_jobs(launcher=launcher, state=state, after=after, limit=limit, sweep=sweep)


def find(ref: str) -> Manifest | Sweep:
    """The job (its manifest) or sweep ``ref`` names: an id or its unique start, a
    scheduler id, a job directory or a name (the newest of that name)."""
    from automodel_launch.jobs.lookup import find_job_or_sweep

    return find_job_or_sweep(ref)


def job(ref: str, *, point: int | None = None) -> Manifest:
    """The one job ``ref`` names; of a sweep, its point ``point`` (required then)."""
    from automodel_launch.jobs.status import JobError
    from automodel_launch.jobs.sweeps import Sweep

    found = find(ref)
    if isinstance(found, Sweep):
        if point is None:
            raise JobError(
                f"'{ref}' is sweep {found.id} of {len(found.points)} points: give one with "
                f"--point I (its points are {found.indexes})"
            )
        return found.point(point)
    if point is not None:
        raise JobError(f"'{ref}' is job {found.id}, not a sweep: --point is for a sweep")
    return found


@overload
def status(ref: Manifest) -> JobStatus: ...
@overload
def status(ref: Sweep) -> SweepStatus: ...
@overload
def status(ref: str) -> JobStatus | SweepStatus: ...
def status(ref: str | Manifest | Sweep) -> JobStatus | SweepStatus:
    """The state now of a job, or of every point of a sweep (one scheduler query);
    ``ref`` as :func:`find` takes it, or what it returned."""
    from automodel_launch.jobs.status import statuses
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus

    target = find(ref) if isinstance(ref, str) else ref
    if isinstance(target, Sweep):
        return SweepStatus(target.id, tuple(statuses(list(target.points), failures=True)))
    return statuses([target], failures=True)[0]


@overload
def cancel(ref: Manifest) -> JobStatus: ...
@overload
def cancel(ref: Sweep) -> SweepStatus: ...
@overload
def cancel(ref: str) -> JobStatus | SweepStatus: ...
def cancel(ref: str | Manifest | Sweep) -> JobStatus | SweepStatus:
    """Cancel a job, or every point of a sweep not finished yet (Slurm: one ``scancel``);
    its state after. ``ref`` as :func:`status` takes it."""
    from automodel_launch.jobs.driven import cancel_queued, driven
    from automodel_launch.jobs.status import backend, cancel_all
    from automodel_launch.jobs.sweeps import Sweep, SweepStatus

    target = find(ref) if isinstance(ref, str) else ref
    if isinstance(target, Sweep):
        return SweepStatus(target.id, tuple(cancel_all(list(target.points))))
    if driven(target):  # a sweep's point its driver has not started: it never will
        return cancel_queued(target)
    return backend(target.launcher).cancel(target)


def diff(old: str | Manifest, new: str | Manifest) -> Comparison:
    """What differs between two jobs (``old`` and ``new`` as :func:`find` takes them, a
    sweep's point by its own id, or their manifests): launcher settings, image, profile,
    ``--set`` values, code, recipe values. ``.differences``: each
    :class:`~automodel_launch.jobs.diff.Difference` has ``key``, ``old`` and ``new`` (None
    where a job has no such value); ``.lines()`` and ``.to_json()`` as ``diff`` prints."""
    from automodel_launch.jobs.diff import compare

    left = _single(old) if isinstance(old, str) else old
    right = _single(new) if isinstance(new, str) else new
    return compare(left, right)


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
) -> Submission:
    """``rerun JOB``: submit the config and code job ``ref`` ran again as a new job, with
    ``sets`` on top (as :func:`plan` takes them); of a sweep, its point ``point``. Raises
    when the config no longer validates (the diagnostics in the message). ``fresh``,
    ``resume``: as ``--fresh``/``--resume`` (by default it resumes unless ``sets`` change a
    recipe value)."""
    from automodel_launch.errors import LaunchError, UsageError
    from automodel_launch.launchers import launcher_of
    from automodel_launch.plan.rerun import plan_rerun
    from automodel_launch.plan.submit import raise_failed, refuse_unsupported, submit_plan
    from automodel_launch.profiles.overrides import parse_override

    if fresh and resume:
        raise UsageError("fresh and resume: choose one")
    if point is not None and not isinstance(ref, str):
        raise UsageError(f"point={point} with a job's manifest: it is that job, no sweep")
    first = ref if not isinstance(ref, str) else job(ref, point=point)
    chosen = config or settings()
    overrides = tuple(parse_override(text) for text in _arguments(sets, many=False))
    mode: Mode = "fresh" if fresh else "resume" if resume else "auto"
    again = plan_rerun(first, chosen, overrides, checkpoints=mode)
    made = again.plan
    if made.failed(chosen.strict) or made.document is None:
        errors = "; ".join(d.message for d in made.report.diagnostics if d.is_error)
        raise LaunchError(f"job {first.id} cannot be run again: {errors}")
    refuse_unsupported(made, launcher_of(made.document).name, detach=False, after=False)
    again.render(Path(job_dir) if job_dir is not None else None)
    done = submit_plan(made, dry_run=dry_run)
    raise_failed(done)
    return done


def _single(ref: str) -> Manifest:
    """The one job ``ref`` names; a sweep is an error naming its points' ids."""
    from automodel_launch.jobs.status import JobError
    from automodel_launch.jobs.sweeps import Sweep

    found = find(ref)
    if isinstance(found, Sweep):
        ids = ", ".join(p.id for p in found.points[:3]) + (", ..." if len(found.points) > 3 else "")
        raise JobError(
            f"'{ref}' is sweep {found.id} of {len(found.points)} points, not one job: name a "
            f"point by its id ({ids}; `automodel-launch status {found.id}` lists them)"
        )
    return found


def _arguments(given: Mapping[str, Any] | Sequence[str], *, many: bool) -> list[str]:
    if isinstance(given, Mapping):
        if many:
            return [f"{key}={json.dumps(list(values))}" for key, values in given.items()]
        return [f"{key}={json.dumps(value)}" for key, value in given.items()]
    return list(given)
