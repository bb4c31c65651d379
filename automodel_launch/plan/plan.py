"""A plan: the jobs one ``render`` or ``submit`` makes of a recipe, validated together.

A single job is a plan of one point with no swept value; a sweep is a plan of one point
per combination of ``--sweep`` values (:mod:`automodel_launch.plan.sweep`). Every point
is validated before anything is rendered, and nothing is rendered (or submitted) unless
every point passes: a sweep is submitted whole or not at all.

The plan's files are written as one job directory (all files or none,
:func:`automodel_launch.jobdir.write_job_dir`): a single job's files at its top, a
sweep's points each in ``points/INDEX/``, beside what runs them all (on Slurm, the script
of each of its job arrays: :class:`Array`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.diagnostics import Diagnostic, sort_key
from automodel_launch.layout import POINTS
from automodel_launch.plan.sweep import Axis, Point, points, recorded
from automodel_launch.results import FileReport

if TYPE_CHECKING:
    from automodel_launch.commands.plan import Request
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.loading import LoadResult
    from automodel_launch.plan.checkpoints import Points
    from automodel_launch.plan.rerun_checkpoints import Checkpoints
    from automodel_launch.prepare import EntryChoice, PreparedJob
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.remote.clusters import Remote
    from automodel_launch.remote.place import Placement
    from automodel_launch.rules.context import Purpose
    from automodel_launch.settings import Settings
    from automodel_launch.snapshot.reuse import Reused
    from automodel_launch.snapshot.take import Snapshot


@dataclass
class PlannedJob:
    """One point of a plan and what preparing it gave."""

    point: Point
    prepared: PreparedJob
    checkpoints: str | None = None
    """The checkpoint directory the tool gave this point (None: none)."""

    @property
    def report(self) -> FileReport:
        return self.prepared.report


@dataclass(frozen=True)
class Array:
    """One job array of a sweep: the points it runs, as its tasks of the same index.

    The tasks of an array share one script, so a sweep is one array per distinct script:
    points whose launcher section is the same (``slurm.nodes`` not swept) share one, points
    that differ in it (``--sweep slurm.nodes=1,2``) are in arrays of their own, numbered in
    the order of their first points."""

    number: int
    points: tuple[int, ...]
    script: str
    """Its script's name in the sweep's job directory (``job.sbatch``: the one array;
    ``job-1.sbatch``: array 1 of several)."""
    shared: str = ""
    """The swept values all its points share (``slurm.nodes=2``), as :attr:`Point.label`."""

    @property
    def listed(self) -> str:
        """``points 0, 2`` (at most :data:`MAX_LISTED`, then how many more)."""
        shown = ", ".join(str(i) for i in self.points[:MAX_LISTED])
        more = len(self.points) - MAX_LISTED
        listed = f"point{'s' if len(self.points) > 1 else ''} {shown}" + (
            f" and {more} more" if more > 0 else ""
        )
        return listed + (f" ({self.shared})" if self.shared else "")


@dataclass
class JobPlan:
    """The jobs of one command, each validated; rendered only when all passed."""

    path: Path
    jobs: list[PlannedJob]
    swept: tuple[str, ...] = ()
    """The swept fields, in ``--sweep`` order (empty: one job)."""
    max_parallel: int | None = None
    root: Path | None = None
    """The job directory everything is written into (None: nothing rendered)."""
    files: dict[str, str] = field(default_factory=dict)
    """Every file of the plan, by path relative to ``root``."""
    artifact: str = ""
    """What ``render`` prints: the script, task or command line (a Slurm sweep's array
    script, or each of its arrays' under a comment naming its points; for other sweeps,
    each point's, under a comment naming it)."""
    arrays: list[Array] = field(default_factory=list)
    """A sweep on a launcher that runs arrays: its arrays, once rendered (else empty)."""
    claimed: tuple[Path, ...] = ()
    snapshot: Snapshot | Reused | None = None
    """The code every point runs (``code/`` at the top of ``root``); None: the live tree."""
    entry: EntryChoice | None = None
    """What each rank runs, as rendered (None: not rendered yet)."""
    nproc_per_node: int = 1
    rerun_of: Manifest | None = None
    """The job this plan runs again (``rerun``)."""
    remote: Remote | None = None
    """The named cluster the plan is submitted to over SSH (None: this host's Slurm)."""
    placement: Placement | None = None
    """Where its job directories are written here and copied to there (with ``remote``)."""
    to_submit: Request | None = None
    """A plan rendered to be shown: what to plan again to submit it (checked for
    submitting, a job directory of its own, the snapshot taken), as ``submit`` plans it;
    None: rendered to be submitted (or not rendered)."""
    sweep_id: str | None = None
    """The id the sweep is recorded under (its points' checkpoint directories name it)."""
    job_id: str | None = None
    """The id a single job is recorded under (None: one is drawn when it is)."""
    checkpoints: Points | None = None
    """The checkpoint directory each point of a sweep was given."""
    rerun_checkpoints: Checkpoints | None = None
    """Where a rerun writes its checkpoints, and why (None: not a rerun, or none)."""

    @property
    def is_sweep(self) -> bool:
        return bool(self.swept)

    @property
    def document(self) -> LaunchDocument | None:
        """The first point's validated document (what the launcher, name and resources
        of every point are: a sweep varies what its points train, not where)."""
        return self.jobs[0].report.document if self.jobs else None

    @property
    def report(self) -> FileReport:
        """Every point's diagnostics as one report: one shared by all points once, one
        of some points only with the points it belongs to."""
        first = self.jobs[0].report
        if len(self.jobs) == 1:
            return first
        template = self.checkpoints.template if self.checkpoints is not None else None
        merged = FileReport(first.path, _merged(self.jobs, template), first.loaded, self.document)
        merged.automodel_version = first.automodel_version
        return merged

    def failed(self, strict: bool) -> bool:
        return any(job.report.failed(strict) for job in self.jobs)

    def job_dir(self, job: PlannedJob) -> Path:
        assert self.root is not None
        return self.root if not self.is_sweep else self.root / point_dir(job.point.index)


def runs_arrays(launcher: str) -> bool:
    """Whether the launcher's scheduler runs a sweep as one job array (its tasks share one
    script): :attr:`~automodel_launch.launchers.Launcher.arrays`."""
    from automodel_launch.launchers import LAUNCHERS

    return launcher in LAUNCHERS and LAUNCHERS[launcher].arrays


def point_dir(index: int) -> str:
    return f"{POINTS}/{index}"


def plan_jobs(
    path: Path,
    settings: Settings,
    *,
    entry: EntryChoice,
    axes: Sequence[Axis] = (),
    max_parallel: int | None = None,
    layers: Layers | None = None,
    submitting: bool = False,
    loaded: LoadResult | None = None,
) -> JobPlan:
    """Validate every point of ``path`` (with ``layers``, the profile and ``--set``, under
    each point's swept values and its own checkpoint directory,
    :mod:`automodel_launch.plan.checkpoints`). ``loaded``: the file, read already (what was
    checked is what is planned: the file is not read again; diagnostics still name
    ``path``). Raises :class:`~automodel_launch.plan.sweep.SweepError` for a sweep the
    options cannot make."""
    import os

    from automodel_launch.loading import load_file
    from automodel_launch.plan.checkpoints import for_points
    from automodel_launch.prepare import PreparedJob, check_report
    from automodel_launch.profiles.overrides import Layers
    from automodel_launch.validation import validate_result

    check_max_parallel(max_parallel)
    base = layers or Layers()
    chosen = points(axes, base.overrides) if axes else [Point(0, ())]
    loaded = load_file(path) if loaded is None else loaded
    sweep = os.urandom(6).hex() if axes else None
    data = loaded.loaded.data if loaded.loaded is not None else {}
    dirs = for_points(data, base.overrides, chosen, sweep) if sweep is not None else None
    purpose: Purpose = "submit" if submitting else "render"
    jobs = []
    for point in chosen:
        given = dirs.overrides[point.index] if dirs is not None else ()
        extra = base.overrides + point.overrides + given
        own = (
            Layers(base.profile, extra, base.ambient)
            if base.profile or extra or not base.ambient
            else None
        )
        report = validate_result(loaded, str(path), settings, purpose=purpose, layers=own)
        check_report(report, settings, entry)
        jobs.append(PlannedJob(point, PreparedJob(report), given[0].value if given else None))
    plan = JobPlan(path, jobs, tuple(a.key for a in axes), max_parallel)
    plan.sweep_id, plan.checkpoints = sweep, dirs
    return plan


def check_max_parallel(value: int | None) -> None:
    """``--max-parallel``: at least one point at a time, at most as many as a sweep has."""
    from automodel_launch.errors import UsageError
    from automodel_launch.plan.sweep import MAX_POINTS

    if value is not None and not 1 <= value <= MAX_POINTS:
        raise UsageError(
            f"--max-parallel {value}: give 1 to {MAX_POINTS:,}, the most points of the sweep "
            "that run at once"
        )


MAX_LISTED = 8
"""Points a diagnostic names; of more, how many more."""


def _merged(jobs: Sequence[PlannedJob], template: str | None) -> list[Diagnostic]:
    """One diagnostic per problem: bare when every point has it, else with its points
    (a point's own checkpoint directory read as ``template``, the same for all)."""
    seen: dict[Diagnostic, list[PlannedJob]] = {}
    for job in jobs:
        for diagnostic in job.report.diagnostics:
            if job.checkpoints is not None and template is not None:
                diagnostic = _generic(diagnostic, job.checkpoints, template)
            seen.setdefault(diagnostic, []).append(job)
    merged = []
    for diagnostic, owners in seen.items():
        if len(owners) == len(jobs):
            merged.append(diagnostic)
        else:
            merged.append(_at_points(diagnostic, [job.point for job in owners]))
    return sorted(merged, key=sort_key)


def _generic(diagnostic: Diagnostic, own: str, template: str) -> Diagnostic:
    from dataclasses import replace

    origin = diagnostic.origin
    if origin is not None and own in origin.where:
        origin = replace(origin, where=origin.where.replace(own, template))
    hint = diagnostic.hint.replace(own, template) if diagnostic.hint is not None else None
    return replace(
        diagnostic, message=diagnostic.message.replace(own, template), hint=hint, origin=origin
    )


def _at_points(diagnostic: Diagnostic, owners: Sequence[Point]) -> Diagnostic:
    """``point 1 (optimizer.lr=1e-4): ...``, ``points 0, 2 (peft.dim=8): ...``: the points,
    and the values they all share."""
    from dataclasses import replace

    if len(owners) == 1:
        where = f"point {owners[0].index} ({owners[0].label})"
    else:
        listed = ", ".join(str(point.index) for point in owners[:MAX_LISTED])
        if len(owners) > MAX_LISTED:
            listed += f" and {len(owners) - MAX_LISTED} more"
        shared = shared_values(owners)
        where = f"points {listed}" + (f" ({shared})" if shared else "")
    return replace(diagnostic, message=f"{where}: {diagnostic.message}")


def shared_values(owners: Sequence[Point]) -> str:
    """``slurm.nodes=2, peft.dim=8``: the swept values every one of ``owners`` has."""
    shared = [o.argument for o in owners[0].overrides
              if all(o in point.overrides for point in owners[1:])]  # fmt: skip
    return ", ".join(shared)


def values_of(job: PlannedJob) -> dict[str, Any]:
    """The point's swept values as a manifest keeps them."""
    return {key: recorded(value) for key, value in job.point.values.items()}


def environ_of(environ: Mapping[str, str] | None) -> dict[str, str]:
    import os

    return dict(os.environ if environ is None else environ)
