"""What a git tree gives the snapshot: the files of HEAD with their uncommitted changes.

The tracked files are copied as the working tree holds them (HEAD plus every uncommitted
change of a tracked file, staged or not; a deleted one is absent); the diff against HEAD
(``git diff HEAD --binary``) is kept beside the snapshot so the record says exactly what
was uncommitted. Untracked files (not ignored) are listed by name, and copied only when
asked. Submodules are not copied: they are named among the files left out.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from automodel_launch.snapshot import SnapshotError
from automodel_launch.snapshot.git_run import git, neutral_settings, repository

if TYPE_CHECKING:
    from automodel_launch.launchers.slurm.cluster.commands import Answer

SUBMODULE = "160000"


@dataclass
class GitTree:
    commit: str
    branch: str | None
    tracked: list[str] = field(default_factory=list)
    """Tracked files under the root that exist in the working tree (paths relative to it)."""
    submodules: list[str] = field(default_factory=list)
    changed: bool = False
    """A tracked file differs from HEAD (staged or not)."""
    untracked: list[str] = field(default_factory=list)
    diff: bytes = b""


def inspect_git(root: Path, max_diff: int) -> GitTree | None:
    """The git tree ``root`` is in (or a part of), None when it is in none or none of its
    files is tracked there (a folder a home directory's repository ignores is a plain
    directory: an empty snapshot of it would be no snapshot)."""
    top = repository(root)
    if top is None:
        return None
    run = _Git(root, top, {})
    where = run("rev-parse", "--show-prefix", check=False)
    if where.returncode != 0:
        return None  # a .git that is no repository
    run = _Git(root, top, neutral_settings(root, top))
    prefix = where.stdout.strip()
    head = run("rev-parse", "--verify", "HEAD^{commit}", check=False)
    if head.returncode != 0:
        raise SnapshotError(
            f"{root} is a git tree without a commit: the snapshot records the commit it "
            "was taken from",
            hint="commit once, or submit with --no-snapshot to run the live tree",
        )
    branch = run("symbolic-ref", "--short", "HEAD", check=False)  # detached: none
    tree = GitTree(head.stdout.strip(), branch.stdout.strip() or None)
    _list_tracked(run, tree)
    if not tree.tracked and not tree.submodules:
        return None  # a folder the repository does not track (ignored, or new): not its code
    _read_status(run, prefix, tree)
    if tree.changed:
        tree.diff = _diff(run, max_diff)
    return tree


def _list_tracked(run: _Git, tree: GitTree) -> None:
    listing = run("ls-files", "-z", "--stage")  # below the working directory, root
    for entry in listing.stdout.split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        if meta.split(" ", 1)[0] == SUBMODULE:
            tree.submodules.append(name)
        elif name not in tree.tracked[-1:]:  # a conflicted file is listed once per stage
            tree.tracked.append(name)


def _read_status(run: _Git, prefix: str, tree: GitTree) -> None:
    # -z: porcelain v1; submodules are not copied, and a status of theirs would read their
    # own configuration (its drivers not neutralised here)
    status = run("status", "-z", "--untracked-files=all", "--ignore-submodules=all", "--", ".")
    entries = iter(status.stdout.split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code == "??":
            tree.untracked.append(path.removeprefix(prefix))
            continue
        tree.changed = True  # ignored files ("!!") are listed only when asked (--ignored)
        if "R" in code:  # status finds renames (not copies): the source follows
            next(entries, None)


def _diff(run: _Git, limit: int) -> bytes:
    """``git diff HEAD`` of the tree below ``root``, bytes as git wrote them (through a
    file: text decoding would change them, and their hash)."""
    handle, name = tempfile.mkstemp(prefix="automodel-launch-diff-")
    os.close(handle)
    try:
        run("diff", "HEAD", "--binary", "--relative", "--no-color", "--no-ext-diff",
            "--no-textconv", "--ignore-submodules=all", f"--output={name}", "--", ".")  # fmt: skip
        size = os.path.getsize(name)
        if size > limit:
            raise SnapshotError(
                f"the uncommitted changes of {run.root} are {size / 1e6:.1f} MB, over the "
                f"snapshot's {limit / 1e6:.0f} MB",
                hint="commit them (or stash the large ones), or submit with --no-snapshot",
            )
        return Path(name).read_bytes()
    finally:
        os.unlink(name)


@dataclass(frozen=True)
class _Git:
    """git in ``root`` of the repository at ``top``, with ``settings`` (git_run.py)."""

    root: Path
    top: Path
    settings: dict[str, str]

    def __call__(self, *args: str, check: bool = True) -> Answer:
        return git(self.root, self.top, self.settings, *args, check=check)
