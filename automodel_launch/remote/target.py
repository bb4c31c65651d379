"""Aiming a command at a named cluster: ``--remote NAME``, else the profile's ``remote:``."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from automodel_launch.errors import UsageError
from automodel_launch.launchers import launcher_of
from automodel_launch.remote.clusters import Remote, find_remote
from automodel_launch.remote.place import Placement, local_home
from automodel_launch.remote.session import RemoteSession

if TYPE_CHECKING:
    from automodel_launch.plan.plan import JobPlan
    from automodel_launch.results import FileReport


def chosen(option: str | None, report: FileReport | None) -> Remote | None:
    """``--remote NAME``, else the ``remote:`` of the profile the report was merged with."""
    if option:
        return find_remote(option)
    profile = getattr(report.loaded, "profile", None) if report is not None else None
    name = getattr(profile, "remote", None)
    return find_remote(name) if isinstance(name, str) else None


def aim(plan: JobPlan, option: str | None, job_dir: Path | None) -> RemoteSession | None:
    """The session of the plan's named cluster (None: this host), with the plan's
    :attr:`~automodel_launch.plan.plan.JobPlan.placement` set; :class:`UsageError` when
    the plan cannot run there."""
    remote = chosen(option, plan.jobs[0].report if plan.jobs else None)
    document = plan.document
    if remote is None or document is None:
        return None
    launcher = launcher_of(document)
    if not launcher.remote and not option:
        return None  # a profile's cluster is where its slurm: jobs go
    if not launcher.remote:
        raise UsageError(
            f"--remote {remote.name}: only slurm: jobs are submitted to a named cluster; "
            f"this config's launcher is {document.launcher or 'torchrun on this node'}",
            hint="SkyPilot reaches its cloud itself: submit without --remote",
        )
    section = document.launcher_section
    base = section.job_dir if section is not None else None
    if base is not None and not str(base).startswith("/"):
        raise UsageError(
            f"--remote {remote.name}: {launcher.name}.job_dir {str(base)!r} is not an absolute "
            "path "
            "on the cluster",
            hint=f"write an absolute path, or leave it out for the cluster's {remote.remote_dir}",
        )
    there = PurePosixPath(str(base) if base is not None else remote.remote_dir)
    here = (
        job_dir.expanduser().absolute().parent if job_dir is not None else local_home(remote.name)
    )
    plan.remote, plan.placement = remote, Placement(here, there)
    return RemoteSession(remote)


def placed(plan: JobPlan, session: RemoteSession | None) -> None:
    """The rendered plan's job directory, mapped to its place on the cluster."""
    if session is not None and plan.root is not None and plan.placement is not None:
        session.place(plan.root, plan.placement.remote(plan.root))
