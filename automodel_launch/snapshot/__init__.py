"""The code snapshot ``submit`` takes of ``repo_root``, so a job runs what was submitted.

A job that read the live checkout would run whatever the tree holds when it starts (and
when a requeued run starts again): edits made after ``submit`` returned included. So
``submit`` copies the code into the job directory (``code/``, :data:`~automodel_launch.
layout.CODE`) and the script runs that copy:

- :mod:`.source`: where the code is on this host (``repo_root``, or the host side of the
  container mount it is under);
- :mod:`.git` and :mod:`.walk`: which files a git tree or a plain directory gives;
- :mod:`.take`: the snapshot itself, its limits, and writing it into the job directory
  (inside the job directory's staging, so it is written whole or not at all);
- :mod:`.record`: what the manifest keeps of it (commit, branch, dirty, the diff's hash).
"""

from __future__ import annotations

from dataclasses import dataclass

from automodel_launch.errors import LaunchError

MAX_BYTES = 200 * 1024 * 1024
"""The largest snapshot: AutoModel's checkout is about 20 MB."""
MAX_FILE_BYTES = 10 * 1024 * 1024
"""Files larger than this are left out (named in the record): checkpoints, data sets."""
MAX_FILES = 50_000


class SnapshotError(LaunchError):
    """The code cannot be snapshotted as asked; the message says why and the fix."""


@dataclass(frozen=True)
class CodeOptions:
    """How ``submit`` snapshots the code (``--snapshot-untracked``, ``--require-clean``)."""

    untracked: bool = False
    require_clean: bool = False
    max_bytes: int = MAX_BYTES
    max_file_bytes: int = MAX_FILE_BYTES
    max_files: int = MAX_FILES
