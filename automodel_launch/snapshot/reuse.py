"""A rerun's code: the snapshot an earlier job ran, linked into the new job's directory.

``rerun`` runs the code the first job ran, not what the tree holds now. Its ``code/`` is
made of hard links to the first job's files (a copy where links cannot be made: another
file system), so it costs no space and the new job keeps its code when the old job
directory is removed. ``__pycache__`` folders, written by the first job's own runs, are
left out. The old snapshot is read as any job directory is: links (to a file or to a
folder) are made again as links with the same target, never followed, and only regular
files are linked; its number of files is bounded as a new snapshot's is.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from automodel_launch.layout import CODE, CODE_DIFF
from automodel_launch.snapshot import MAX_FILES, SnapshotError
from automodel_launch.snapshot.record import CodeRecord


@dataclass(frozen=True)
class Reused:
    """The snapshot of job ``job`` (its ``code/`` at ``source``), to run again."""

    job: str
    source: Path
    """The old job's ``code/`` (of a sweep point: its sweep's)."""
    of: CodeRecord

    @property
    def dirty(self) -> bool:
        return self.of.dirty

    def write_into(self, directory: Path) -> list[str]:
        """Link the old snapshot into ``directory/code`` (its diff beside it)."""
        target = directory / CODE
        target.mkdir(mode=0o755)
        written: list[str] = []
        for folder, subdirs, names in os.walk(self.source, followlinks=False):
            here = Path(folder)
            into = target / here.relative_to(self.source)
            kept = [d for d in subdirs if d != "__pycache__"]
            # a link to a folder is listed among the folders: made a link, not descended
            linked = [d for d in kept if (here / d).is_symlink()]
            subdirs[:] = sorted(d for d in kept if d not in linked)
            for name in subdirs:
                (into / name).mkdir(mode=0o755)
            for name in sorted([*names, *linked]):
                if not _link(here / name, into / name):
                    continue
                written.append(f"{CODE}/{(into / name).relative_to(target).as_posix()}")
                if len(written) > MAX_FILES:
                    raise SnapshotError(
                        f"the snapshot of job {self.job} ({self.source}) holds more than "
                        f"{MAX_FILES} files: it is not one automodel-launch wrote"
                    )
        diff = self.source.parent / CODE_DIFF
        if self.of.diff is not None and _regular(diff):
            _link(diff, directory / CODE_DIFF)
            written.append(CODE_DIFF)
        return written

    def record(self, at: Path, environ: Mapping[str, str]) -> CodeRecord:
        """The old job's record, naming the new job's copy."""
        del environ  # the record was redacted when the old job was submitted
        return self.of.model_copy(
            update={
                "snapshot": str(at / CODE),
                "diff": str(at / CODE_DIFF) if self.of.diff is not None else None,
            }
        )


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _link(source: Path, copy: Path) -> bool:
    """A link as a link (to a file or a folder: its target's text), a regular file hard
    linked (copied where it cannot be); False: anything else (a FIFO, a device) is no
    code, left out."""
    info = source.lstat()
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(source), copy)
    elif stat.S_ISREG(info.st_mode):
        try:
            os.link(source, copy, follow_symlinks=False)
        except OSError:  # another file system, or links not allowed
            from automodel_launch.snapshot.take import copy_file

            copy_file(source, copy)
    else:
        return False
    return True


def reused(job: str, job_dir: Path, record: CodeRecord | None, point: bool) -> Reused | None:
    """The snapshot job ``job`` in ``job_dir`` ran (``point``: a sweep point's, at the
    sweep's top), or None when it ran the live tree. Raises when the record names a
    snapshot that is gone."""
    if record is None:
        return None
    from automodel_launch.layout import sweep_root

    source = (sweep_root(job_dir) if point else job_dir) / CODE
    try:
        is_dir = stat.S_ISDIR(source.lstat().st_mode)
    except OSError:
        is_dir = False
    if not is_dir:
        raise SnapshotError(
            f"job {job} ran a snapshot of {record.root}, but {source} is gone: its code "
            "cannot be run again",
            hint="submit the recipe again (a new snapshot of the tree as it is now)",
        )
    return Reused(job, source, record)
