"""The ``code`` line of ``submit``'s summary: which code the job runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from automodel_launch.config.document import LaunchDocument
    from automodel_launch.snapshot.reuse import Reused
    from automodel_launch.snapshot.take import Snapshot

WIDTH = 13
"""The summary's key column (``job directory``)."""


def code_lines(document: LaunchDocument, snapshot: Snapshot | Reused | None) -> list[str]:
    """One line when the job has a ``repo_root``: the snapshot taken (or an earlier job's,
    run again), or the live tree."""
    from automodel_launch.launchers import launcher_of
    from automodel_launch.snapshot.reuse import Reused

    repo_root = launcher_of(document).repo_root(document)
    if repo_root is None:
        return []
    if isinstance(snapshot, Reused):
        record = snapshot.of
        files = f"{record.files} file{'' if record.files == 1 else 's'}"
        text = f"the snapshot job {snapshot.job} ran ({files} of {record.root}"
        if record.commit is not None:
            state = "with uncommitted changes" if record.dirty else "clean"
            text += f", commit {record.commit[:12]}, {state}"
        text += ")"
    elif snapshot is None:
        text = f"{repo_root}, the live tree (--no-snapshot: what it holds when the job runs)"
    else:
        count = len(snapshot.files)
        size = f"{count} file{'' if count == 1 else 's'}, {snapshot.size / 1e6:.1f} MB"
        text = f"snapshot of {snapshot.root} ({size})"
        git = snapshot.git
        if git is not None:
            where = f" on {git.branch}" if git.branch else ""
            state = "with uncommitted changes" if snapshot.dirty else "clean"
            text += f", commit {git.commit[:12]}{where}, {state}"
        if snapshot.skipped:
            text += f"; left out: {len(snapshot.skipped)} (see the manifest's code.skipped)"
    return [f"  {'code':<{WIDTH}}  {text}"]
