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

Every function raises a :class:`~automodel_launch.errors.LaunchError` (with a message
and a hint) for what the command line would report as an error; a plan whose points do
not validate is returned with its diagnostics (``plan.report``), not rendered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automodel_launch.plan.plan import JobPlan
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
    from automodel_launch.jobs import view
    from automodel_launch.jobs.lookup import since_epoch
    from automodel_launch.jobs.registry import open_registry
    from automodel_launch.jobs.status import statuses

    with open_registry() as registry:
        if sweep is not None:
            _, named = registry.sweep_ids(sweep)
            manifests = registry.sweep_points(named[0]) if named else []
        else:
            manifests = registry.jobs(launcher, since_epoch(since) if since else None)
    shown = [s for s in statuses(manifests) if state is None or s.state == state]
    rows: list[dict[str, Any]] = json.loads(view.jobs_json(shown))["jobs"]
    return rows


def _arguments(given: Mapping[str, Any] | Sequence[str], *, many: bool) -> list[str]:
    if isinstance(given, Mapping):
        if many:
            return [f"{key}={json.dumps(list(values))}" for key, values in given.items()]
        return [f"{key}={json.dumps(value)}" for key, value in given.items()]
    return list(given)
