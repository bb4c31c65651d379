"""A validated plan's files: each point's job, and for a Slurm sweep its array scripts.

Each point is rendered as a job of its own in ``points/INDEX`` (its job config, and the
artifact that runs it where the launcher runs points one by one). A launcher that runs
arrays (Slurm) runs the points from array scripts at the top, each task reading its own
point's job config; its per-point scripts are not written. The tasks of an array share
its script, so the points are split by the script they need: one array when they all
need the same (the sweep varies what they train), one per distinct script otherwise
(``--sweep slurm.nodes=1,2``: the points of 1 node in one array, those of 2 in another),
each array's tasks the indexes of its points (:class:`~automodel_launch.plan.plan.Array`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.layout import CODE, array_script
from automodel_launch.plan.plan import (
    Array,
    JobPlan,
    environ_of,
    point_dir,
    runs_arrays,
    shared_values,
)
from automodel_launch.prepare import (
    EntryChoice,
    default_job_dir,
    default_job_name,
    release,
    render_report,
)

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.snapshot import CodeOptions
    from automodel_launch.snapshot.reuse import Reused
    from automodel_launch.snapshot.take import Snapshot


def render_plan(
    plan: JobPlan,
    *,
    entry: EntryChoice,
    job_dir: Path | None = None,
    nproc_per_node: int = 1,
    environ: Mapping[str, str] | None = None,
    submitting: bool = False,
    after: str | None = None,
    code: CodeOptions | Reused | None = None,
) -> None:
    """Fill ``plan.root``, ``plan.files`` and ``plan.artifact`` (every point validated);
    ``after``: the Slurm dependency of every point; ``code``: snapshot ``repo_root`` so
    (``plan.snapshot``, refused before anything is written), or run an earlier job's
    snapshot again; None: run the live tree. ``plan.placement``: written here, run on a
    named cluster (the scripts name its paths)."""
    from automodel_launch.snapshot import CodeOptions

    if isinstance(code, CodeOptions):
        plan.snapshot = _snapshot(plan, code, entry, job_dir, environ)
    else:
        plan.snapshot = code
    plan.entry, plan.nproc_per_node = entry, nproc_per_node
    if not plan.is_sweep:
        job = plan.jobs[0]
        job.prepared = render_report(
            job.report, plan.path, entry=entry, job_dir=job_dir, nproc_per_node=nproc_per_node,
            environ=environ, submitting=submitting, after=after,
            code=CODE if plan.snapshot is not None else None, placement=plan.placement,
        )  # fmt: skip
        prepared = job.prepared
        plan.root, plan.claimed = prepared.job_dir, prepared.claimed
        plan.files, plan.artifact = dict(prepared.files), prepared.artifact
        return
    document = plan.document
    assert document is not None
    from automodel_launch.jobdir import check_job_dir, claim_job_dir

    name = default_job_name(document, entry)
    claimed: tuple[Path, ...] = ()
    if job_dir is None and submitting:
        home = (
            plan.placement.local_base if plan.placement else default_job_dir(document, name).parent
        )
        root, claimed = claim_job_dir(check_job_dir(home), name)
    else:
        root = check_job_dir(job_dir or default_job_dir(document, name))
    try:
        _render_points(plan, root, entry, nproc_per_node, environ, after)
    except BaseException:
        release(claimed)
        raise
    plan.root, plan.claimed = root, claimed


def _snapshot(
    plan: JobPlan,
    code: CodeOptions,
    entry: EntryChoice,
    job_dir: Path | None,
    environ: Mapping[str, str] | None,
) -> Snapshot | None:
    """The snapshot of the plan's ``repo_root`` (None: its launcher names none)."""
    from automodel_launch.launchers import launcher_of
    from automodel_launch.snapshot.take import take

    document = plan.document
    if document is None:
        return None
    root = launcher_of(document).code_root(document, environ_of(environ))
    if root is None:
        return None
    written = job_dir or default_job_dir(document, default_job_name(document, entry)).parent
    if plan.placement is not None and job_dir is None:
        written = plan.placement.local_base
    return take(root, code, [written.expanduser().absolute()])


def _render_points(
    plan: JobPlan,
    root: Path,
    entry: EntryChoice,
    nproc_per_node: int,
    environ: Mapping[str, str] | None,
    after: str | None,
) -> None:
    files: dict[str, str] = {}
    shown = []
    for job in plan.jobs:
        where = point_dir(job.point.index)
        job.prepared = render_report(
            job.report, plan.path, entry=entry, job_dir=root / where,
            nproc_per_node=nproc_per_node, environ=environ, after=after,
            code=f"{_seen(plan, root)}/{CODE}" if plan.snapshot is not None else None,
            placement=plan.placement,
        )  # fmt: skip
        files.update({f"{where}/{name}": text for name, text in job.prepared.files.items()})
        shown.append(f"# point {job.point.index}: {job.point.label}\n{job.prepared.artifact}")
    document = plan.document
    assert document is not None
    if runs_arrays(document.launcher):
        from automodel_launch.launchers import launcher_of

        launcher = launcher_of(document)
        files = {k: v for k, v in files.items() if not k.endswith("/" + launcher.artifact)}
        scripts = _array_scripts(plan, root, entry, nproc_per_node, environ, after)
        points = {job.point.index: job.point for job in plan.jobs}
        plan.arrays = []
        for number, (indexes, script) in enumerate(scripts):
            name = launcher.artifact if len(scripts) == 1 else array_script(number)
            files[name] = launcher.job_files(document, script, "")[launcher.artifact]
            shared = shared_values([points[i] for i in indexes]) if len(scripts) > 1 else ""
            plan.arrays.append(Array(number, indexes, name, shared))
        plan.artifact = _shown_arrays(plan, [script for _, script in scripts])
    else:
        plan.artifact = "\n".join(shown)
    plan.files = files


def _array_scripts(
    plan: JobPlan,
    root: Path,
    entry: EntryChoice,
    nproc_per_node: int,
    environ: Mapping[str, str] | None,
    after: str | None,
) -> list[tuple[tuple[int, ...], str]]:
    """The sweep's arrays: the points that render the same script, in the order of their
    first points, each with its script (its ``--array`` the indexes of its points)."""
    from automodel_launch.automodel.versions import DEFAULT
    from automodel_launch.render.entry import JobSpec
    from automodel_launch.render.job import render_artifact

    first = plan.jobs[0]
    spec = JobSpec(
        entry=entry.resolve(first.report.automodel_version or DEFAULT),
        job_dir=_seen(plan, root),
        source=str(plan.path),
        job_name=first.prepared.name,
        environ=environ_of(environ),
        array_tasks=len(plan.jobs),
        max_parallel=plan.max_parallel,
        after=after,
        code=f"{_seen(plan, root)}/{CODE}" if plan.snapshot is not None else None,
    )
    groups: dict[str, list[int]] = {}
    documents: dict[str, LaunchDocument] = {}
    for job in plan.jobs:
        assert job.prepared.document is not None
        script = render_artifact(job.prepared.document, spec, nproc_per_node)
        groups.setdefault(script, []).append(job.point.index)
        documents.setdefault(script, job.prepared.document)
    if len(groups) == 1:  # every task: 0 to N-1
        return [(tuple(indexes), script) for script, indexes in groups.items()]
    from dataclasses import replace

    return [
        (tuple(indexes), render_artifact(
            documents[script], replace(spec, array_indexes=tuple(indexes)), nproc_per_node
        ))
        for script, indexes in groups.items()
    ]  # fmt: skip


def _shown_arrays(plan: JobPlan, scripts: list[str]) -> str:
    """What ``render`` prints: the one array's script, or each under the points it runs."""
    if len(scripts) == 1:
        return scripts[0]
    return "\n".join(
        f"# array {array.number} ({array.script}): {array.listed}\n{script}"
        for array, script in zip(plan.arrays, scripts, strict=True)
    )


def _seen(plan: JobPlan, local: Path) -> str:
    """``local`` as the job sees it: here, or its path on the named cluster."""
    return plan.placement.remote(local) if plan.placement is not None else str(local)
