"""Taking the snapshot: which files, within which limits, written where.

:func:`take` decides (and refuses) before anything is written: the files listed, their
sizes summed, a dirty tree refused under ``--require-clean``. :meth:`Snapshot.write_into`
then copies them into the job directory's staging directory, so the snapshot is renamed
into place with the rest of the job directory, whole, or not at all.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from automodel_launch.layout import CODE, CODE_DIFF, JOB_CONFIG, MANIFEST
from automodel_launch.snapshot import CodeOptions, SnapshotError
from automodel_launch.snapshot.git import GitTree, inspect_git
from automodel_launch.snapshot.record import MAX_NAMES, CodeRecord
from automodel_launch.snapshot.source import ADVICE
from automodel_launch.snapshot.walk import walk


@dataclass
class Snapshot:
    """The files of ``root`` a job will run, chosen; not written yet."""

    root: Path
    files: list[str]
    """Paths relative to ``root``: regular files and links."""
    size: int
    git: GitTree | None = None
    untracked_included: bool = False
    skipped: list[str] = field(default_factory=list)

    @property
    def dirty(self) -> bool:
        if self.git is None:
            return False
        return self.git.changed or (self.untracked_included and bool(self.git.untracked))

    def write_into(self, directory: Path) -> list[str]:
        """Copy the files into ``directory/code`` (the diff beside it); the names written,
        relative to ``directory``."""
        target = directory / CODE
        target.mkdir(mode=0o755)
        made = {target}
        written = []
        for name in self.files:
            source, copy = self.root / name, target / name
            if copy.parent not in made:
                copy.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                made.update(p for p in copy.parents if target in p.parents or p == target)
            if source.is_symlink():
                os.symlink(os.readlink(source), copy)
            else:
                copy_file(source, copy)
            written.append(f"{CODE}/{name}")
        if self.git is not None and self.git.diff:
            (directory / CODE_DIFF).write_bytes(self.git.diff)
            written.append(CODE_DIFF)
        return written

    def record(self, at: Path, environ: Mapping[str, str]) -> CodeRecord:
        """The manifest's ``code`` for the snapshot written in job directory ``at``: names
        masked as the manifest's command line is (:func:`automodel_launch.written.code_record`:
        ``environ``'s secret values, tokens)."""
        import hashlib

        from automodel_launch.written import code_record

        git = self.git
        untracked = list(git.untracked) if git is not None else []
        skipped = list(self.skipped)
        more = max(0, len(untracked) - MAX_NAMES) + max(0, len(skipped) - MAX_NAMES)
        diff = git.diff if git is not None else b""
        return code_record(
            environ,
            root=str(self.root),
            snapshot=str(at / CODE),
            commit=git.commit if git is not None else None,
            branch=git.branch if git is not None and git.branch else None,
            dirty=self.dirty,
            diff=str(at / CODE_DIFF) if diff else None,
            diff_sha256=hashlib.sha256(diff).hexdigest() if diff else None,
            untracked=tuple(untracked[:MAX_NAMES]),
            untracked_included=self.untracked_included,
            skipped=tuple(skipped[:MAX_NAMES]),
            more_names=more,
            files=len(self.files),
            bytes=self.size,
        )


def copy_file(source: Path, copy: Path) -> None:
    """One file's bytes, by ``sendfile`` (a few times faster than :func:`shutil.copyfile`
    for many small files); opened without following a link or waiting on a FIFO that
    replaced the file since it was listed (:class:`OSError`: the job directory is not
    written)."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{source} is no longer a regular file")
        mode = 0o755 if info.st_mode & stat.S_IXUSR else 0o644
        out = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        try:
            offset = 0
            while offset < info.st_size:
                sent = os.sendfile(out, fd, offset, info.st_size - offset)
                if sent == 0:
                    break  # the file shrank since: what it holds now is copied
                offset += sent
            os.fchmod(out, mode)  # whatever the umask
        finally:
            os.close(out)
    finally:
        os.close(fd)


def take(root: Path, options: CodeOptions, job_dirs: Sequence[Path] = ()) -> Snapshot:
    """Choose the files of ``root`` to snapshot (``job_dirs``: where job directories are
    written, left out when inside ``root``, as is any job directory found there)."""
    git = inspect_git(root, options.max_bytes)
    if options.require_clean:
        _refuse_dirty(root, git, options.untracked)
    if git is not None:
        listed = git.tracked + (git.untracked if options.untracked else [])
        skipped = [f"{name}/ (a submodule)" for name in git.submodules]
    else:
        listed, skipped = walk(root), []
    listed, left_out = _outside_job_dirs(root, listed, job_dirs)
    skipped += [f"{name}/ (a job directory)" for name in left_out]
    snapshot = Snapshot(root, [], 0, git, options.untracked and git is not None, skipped)
    _measure(snapshot, listed, options)
    return snapshot


def _refuse_dirty(root: Path, git: GitTree | None, untracked: bool) -> None:
    if git is None:
        raise SnapshotError(
            f"--require-clean: {root} is not a git tree, so whether it is clean is unknown",
            hint="submit it from a git checkout, or without --require-clean",
        )
    if git.changed:
        raise SnapshotError(
            f"--require-clean: {root} has uncommitted changes (git status lists them)",
            hint="commit or stash them, or submit without --require-clean",
        )
    if untracked and git.untracked:
        raise SnapshotError(
            f"--require-clean: {root} has untracked files, which --snapshot-untracked copies "
            f"({len(git.untracked)}, git status lists them)",
            hint="commit or remove them, or submit without --snapshot-untracked",
        )


def _outside_job_dirs(
    root: Path, names: list[str], job_dirs: Sequence[Path]
) -> tuple[list[str], list[str]]:
    """``names`` without those in job directories: a job directory (``manifest.json``
    beside ``job_config.yaml``) found among them, or one of ``job_dirs`` inside ``root``."""
    listed = set(names)
    found = {name.rpartition("/")[0] for name in names if name.endswith(MANIFEST)}
    prefixes = {d for d in found if d and f"{d}/{JOB_CONFIG}" in listed}
    for directory in job_dirs:
        resolved = Path(os.path.realpath(directory))
        if resolved == root:
            continue  # job directories straight under the root: the ones found are out
        if root in resolved.parents:
            prefixes.add(resolved.relative_to(root).as_posix())
    if not prefixes:
        return names, []
    kept = [n for n in names if not _under(n, prefixes)]
    return kept, sorted(prefixes)


def _under(name: str, prefixes: Iterable[str]) -> bool:
    return any(name.startswith(p + "/") for p in prefixes)


def _measure(snapshot: Snapshot, names: list[str], options: CodeOptions) -> None:
    if len(names) > options.max_files:
        raise SnapshotError(
            f"{snapshot.root} holds {len(names)} files to snapshot, over the limit of "
            f"{options.max_files}",
            hint=f"ignore what the job does not need (.gitignore), {ADVICE}",
        )
    for name in names:
        try:
            info = os.lstat(snapshot.root / name)
        except FileNotFoundError:
            continue  # a tracked file deleted in the working tree (the diff says so)
        if stat.S_ISLNK(info.st_mode):
            snapshot.files.append(name)
        elif not stat.S_ISREG(info.st_mode):
            snapshot.skipped.append(f"{name} (not a file)")
        elif info.st_size > options.max_file_bytes:
            snapshot.skipped.append(f"{name} ({info.st_size / 1e6:.1f} MB)")
        else:
            snapshot.files.append(name)
            snapshot.size += info.st_size
    if snapshot.size > options.max_bytes:
        raise SnapshotError(
            f"the snapshot of {snapshot.root} would be {snapshot.size / 1e6:.1f} MB, over "
            f"the limit of {options.max_bytes / 1e6:.0f} MB",
            hint=f"ignore the large files the job does not need (.gitignore), {ADVICE}",
        )
