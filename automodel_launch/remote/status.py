"""``status`` of jobs on a named cluster: asked over one connection, their output copied
back first (for ``status``, not ``jobs``), the last state the cluster gave kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from automodel_launch.jobs.files import each_read_once
from automodel_launch.launchers.slurm.cluster.client import SlurmError
from automodel_launch.remote.last_seen import keep, recalled
from automodel_launch.remote.session import connected, for_jobs, output_roots

if TYPE_CHECKING:
    from automodel_launch.jobs.manifest import Manifest
    from automodel_launch.jobs.status import JobStatus


def remote_statuses(
    statuses: Callable[[list[Manifest]], list[JobStatus]],
    group: Sequence[Manifest],
    *,
    fetch: bool,
) -> list[JobStatus]:
    """The launcher's ``statuses`` of ``group`` (jobs of one cluster), inside its session;
    ``fetch``: copy each job's output back first (a failure is in the statuses' notes)."""
    with connected(for_jobs(group)) as session:
        if fetch and session is not None:
            for root in output_roots(group):
                try:
                    session.pull(root)
                except SlurmError:
                    break
        with each_read_once():
            found = statuses(list(group))
    for status in found:
        keep(status)
    return [recalled(status) for status in found]
