"""The commit a checkout is at, and whether its AutoModel files differ from it: read from
git's files, without running git (a repository's configuration can make git run
commands: its hooks, ``core.fsmonitor``).

- the commit: ``HEAD`` (a branch's ref, loose or in ``packed-refs``, or a detached id),
  in the repository's own git directory or a worktree's (``.git`` a file naming it);
- dirty: a Python file under the package that is not in git's index, an indexed one that
  is gone, or one whose size and time differ from the index's and whose content (hashed
  as git hashes a blob) differs too. Changes staged in the index are not told apart from
  the commit (that needs git's packed objects).

Anything unexpected (no repository, a ref that cannot be read or names a file outside
``refs/``, an index of another format or cut short, a FIFO or a device where git keeps a
file) gives no commit or no "dirty": this is a label, never a check, and it never waits.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import NamedTuple

from automodel_launch.automodel.source import Listing
from automodel_launch.loading.files import NotRegular, read_chunk

MAX_INDEX_BYTES = 64 << 20
_HEX = frozenset("0123456789abcdef")


class State(NamedTuple):  # a NamedTuple: a dataclass costs a cached validate ms to make
    commit: str | None
    dirty: bool | None

    def label(self) -> str | None:
        if self.commit is None:
            return None
        return f"{self.commit[:7]}, dirty" if self.dirty else self.commit[:7]


def _git_dir(start: Path) -> tuple[Path, Path] | None:
    """(the worktree's top, its git directory) holding ``start``."""
    here = start
    for _ in range(40):
        dot = here / ".git"
        if dot.is_dir():
            return here, dot
        if dot.is_file():
            text = _small(dot)
            if text is not None and text.startswith("gitdir:"):
                named = Path(text[len("gitdir:") :].strip())
                return here, named if named.is_absolute() else here / named
            return None
        if here.parent == here:
            return None
        here = here.parent
    return None


def _small(path: Path, limit: int = 1 << 20) -> str | None:
    data = _regular(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def _regular(path: Path, limit: int, *, follow: bool = True) -> bytes | None:
    """Up to ``limit`` bytes of ``path`` when it is a regular file (a FIFO or a device
    named by a hostile ``.git`` is never waited on or read); None otherwise."""
    try:
        return read_chunk(path, 0, limit, follow=follow)
    except (OSError, NotRegular):
        return None


def _commit(git: Path) -> str | None:
    head = _small(git / "HEAD")
    if head is None:
        return None
    head = head.strip()
    if not head.startswith("ref:"):
        return head if _is_id(head) else None
    ref = head[len("ref:") :].strip()
    if not _a_ref(ref):
        return None
    common = git
    named = _small(git / "commondir")
    if named is not None:
        common = (git / named.strip()).resolve()
    for base in (git, common):
        loose = _small(base / ref)
        if loose is not None and _is_id(loose.strip()):
            return loose.strip()
    packed = _small(common / "packed-refs", MAX_INDEX_BYTES) or ""
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _is_id(sha):
            return sha
    return None


def _a_ref(name: str) -> bool:
    """A branch's name as git writes it in ``HEAD`` (``refs/heads/main``): under ``refs/``,
    no ``..`` or empty part, so it names a file of the git directory and nothing else."""
    parts = name.split("/")
    return parts[0] == "refs" and len(parts) > 1 and all(p not in ("", ".", "..") for p in parts)


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and set(text) <= _HEX


def _index(git: Path) -> dict[str, tuple[int, int, int, bytes]] | None:
    """Path -> (size, mtime seconds, mtime nanoseconds, blob id) of every stage-0 entry."""
    data = _regular(git / "index", MAX_INDEX_BYTES + 1)
    if data is None or len(data) > MAX_INDEX_BYTES or len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    entries: dict[str, tuple[int, int, int, bytes]] = {}
    at, previous = 12, b""
    try:
        for _ in range(count):
            fields = struct.unpack(">10I", data[at + 0 : at + 40])
            blob = data[at + 40 : at + 60]
            (flags,) = struct.unpack(">H", data[at + 60 : at + 62])
            here = at + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:
                strip, here = _varint(data, here)
                end = data.index(b"\0", here)
                name = previous[: len(previous) - strip] + data[here:end]
                at = end + 1
            else:
                end = data.index(b"\0", here)
                name = data[here:end]
                at += (end - at + 8) // 8 * 8
            previous = name
            if (flags >> 12) & 3 == 0:
                entries[name.decode("utf-8", "surrogateescape")] = (
                    fields[9], fields[2], fields[3], blob)  # fmt: skip
    except (struct.error, ValueError, IndexError):
        return None  # cut short, or not what its header says
    return entries


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset encoding (index v4's prefix length)."""
    byte = data[at]
    value = byte & 0x7F
    while byte & 0x80:
        at += 1
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at + 1


def state(found: Listing) -> State:
    """The commit and dirtiness of the checkout holding ``found``'s package."""
    located = _git_dir(found.root)
    if located is None:
        return State(None, None)
    top, git = located
    commit = _commit(git)
    entries = _index(git)
    if commit is None or len(commit) != 40 or entries is None:
        return State(commit, None)  # no commit, or SHA-256 object names: not read here
    try:
        prefix = found.root.relative_to(top.resolve()).parent.as_posix()
    except ValueError:
        return State(commit, None)
    prefix = "" if prefix == "." else prefix + "/"
    indexed = {p: e for p, e in entries.items() if p.startswith(prefix) and p.endswith(".py")}
    if not indexed:
        return State(None, None)  # not this repository's (an ignored virtualenv inside it)
    listed = {prefix + name: (size, mtime) for name, size, mtime in found.files}
    if set(indexed) != set(listed):
        return State(commit, True)
    for path, (size, mtime) in listed.items():
        known_size, seconds, nanos, blob = indexed[path]
        if (size, mtime) == (known_size, seconds * 1_000_000_000 + nanos):
            continue
        if _blob(top / path, size) != blob:
            return State(commit, True)
    return State(commit, False)


def _blob(path: Path, size: int) -> bytes | None:
    """Git's id of the file's content (``size``: as listed; a file grown since is read no
    further, and differs)."""
    data = _regular(path, size + 1, follow=False)
    if data is None:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()
