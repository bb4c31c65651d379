"""What was read from a tree, kept in the user's cache directory and never trusted.

An entry is named by the tree's key: a digest of the package's path and of the size and
modification time (in nanoseconds) of every Python file under it, and of the extractor
that read it. So an edited, added or removed file, another checkout at the same path or a
new version of this tool reads the tree again. (Git's own identity for the content, the
tree hash, is not used: finding it without running git means reading its packed objects,
and git itself compares files' sizes and times to tell what changed.)

An entry is written whole or not at all (a temporary file renamed into place) and, when
read, checked field by field (:func:`checked`; a pydantic model costs more to build than
the entry costs to read, on a path that runs on every save): a file that is not one
(damaged, cut short, edited, written by another version) is read as missing, and the tree
is read again. A cache that cannot be written is no error: the next run reads it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from automodel_launch.automodel.source import Listing

FORMAT = 1
KEPT = 32
"""Entries kept; older ones are removed when a new one is written."""
EXTRACTOR = Path(__file__).parent / "extract"
MAX_ENTRY_BYTES = 64 << 20
_SECTION_KEYS = frozenset({"target", "supplied", "choose", "default", "choices"})
_TABLE_KEYS = frozenset(
    {"format", "version", "source", "covers", "open", "callables", "aliases", "recipes",
     "sections", "supplied", "unsized", "typed", "nemo_run_refuses"}
)  # fmt: skip


class Damaged(ValueError):
    """An entry that is not what it claims to be."""


class Entry(NamedTuple):  # a NamedTuple: a dataclass costs a cached validate ms to make
    """What was read from a tree: its key, the shipped release it is closest to (whose
    startup rules apply) and its table, as :mod:`automodel_launch.automodel.table` reads it
    (checked field by field: :func:`checked`)."""

    key: str
    nearest: str
    table: dict[str, Any]

    def as_json(self) -> str:
        return json.dumps(
            {"format": FORMAT, "key": self.key, "nearest": self.nearest, "table": self.table}
        )


def _texts(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Damaged(f"{what} is not a list of text")
    return value


def _mapping(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise Damaged(f"{what} is not a mapping of text")
    return value


def _section(value: object) -> None:
    if value is None:
        return
    if not isinstance(value, dict) or not set(value) <= _SECTION_KEYS or "target" not in value:
        raise Damaged("a section is not one")
    for key in ("target", "supplied"):
        if not isinstance(value.get(key, ""), str):
            raise Damaged(f"a section's {key} is not text")
    for key in ("choose", "default"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise Damaged(f"a section's {key} is not text")
    _mapping(value.get("choices", {}), "a section's choices")


def checked(table: object) -> dict[str, Any]:
    """``table`` when it is a whole table of the current format (else :class:`Damaged`)."""
    if not isinstance(table, dict) or not set(table) <= _TABLE_KEYS:
        raise Damaged("not a table")
    if table.get("format") != FORMAT:
        raise Damaged("another format")
    for key in ("version", "source", "supplied"):
        if not isinstance(table.get(key), str):
            raise Damaged(f"{key} is not text")
    for key in ("covers", "open"):
        _texts(table.get(key), key)
    _texts(table.get("unsized", []), "unsized")
    for key in ("callables", "aliases", "recipes"):
        _mapping(table.get(key), key)
    sections = table.get("sections")
    if not isinstance(sections, dict):
        raise Damaged("sections is not a mapping")
    for group in sections.values():
        if not isinstance(group, dict):
            raise Damaged("a section group is not a mapping")
        for built in group.values():
            _section(built)
    typed = table.get("typed", {})
    if not isinstance(typed, dict):
        raise Damaged("typed is not a mapping")
    for fact in typed.values():
        if not isinstance(fact, dict) or not set(fact) <= {"target", "within", "also"}:
            raise Damaged("a typed config is not one")
        if not (isinstance(fact.get("target"), str) and isinstance(fact.get("within"), str)):
            raise Damaged("a typed config's target is not text")
        _texts(fact.get("also", []), "also")
    if table.get("nemo_run_refuses") not in (None, True, False):
        raise Damaged("nemo_run_refuses is not a bool")
    return table


def directory() -> Path:
    """``automodel-launch/automodel`` in the user's cache directory. On Linux it is found
    by hand, as platformdirs finds it (``$XDG_CACHE_HOME`` when absolute, else
    ``~/.cache``): platformdirs imports ``tempfile``, which costs a cached ``validate``
    more than reading its entry does."""
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):
            base = os.path.expanduser("~/.cache")
        return Path(base) / "automodel-launch" / "automodel"
    import platformdirs

    return platformdirs.user_cache_path("automodel-launch") / "automodel"


@cache
def _extractor() -> str:
    """The extractor's files as they are (a changed extractor reads every tree again)."""
    from automodel_launch.version import __version__

    parts = [__version__]
    for path in sorted(EXTRACTOR.glob("*.py")):
        info = path.stat()
        parts.append(f"{path.name} {info.st_size} {info.st_mtime_ns}")
    return "\n".join(parts)


def key(found: Listing) -> str:
    digest = hashlib.sha256(f"{FORMAT}\n{_extractor()}\n{found.root}\n".encode())
    for name, size, mtime in found.files:
        digest.update(f"{name}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def load(key: str, where: Path | None = None) -> Entry | None:
    """The entry of ``key``, None when there is none or it is not a whole, valid one."""
    path = (where or directory()) / f"{key}.json"
    try:
        if os.path.islink(path) or path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict) or set(data) != {"format", "key", "nearest", "table"}:
            return None
        nearest = data["nearest"]
        if data["format"] != FORMAT or data["key"] != key or not _a_release(nearest):
            return None
        table = checked(data["table"])
        if table["version"] != nearest:
            return None  # the two were written as one: an edited entry
        return Entry(key, nearest, table)
    except (OSError, ValueError, RecursionError):
        return None


def _a_release(value: object) -> bool:
    """A release label as :func:`automodel_launch.automodel.which.read_tree` writes it:
    ``main``, or a release number (``0.7.0``, an installed ``0.8.0rc1``)."""
    return isinstance(value, str) and (value == "main" or value[:1].isdigit())


def store(entry: Entry, where: Path | None = None) -> None:
    """Write ``entry`` atomically (nothing when the cache cannot be written)."""
    import tempfile  # only when something was read: an import a cached run does not pay

    folder = where or directory()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".entry-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(entry.as_json())
            os.replace(temporary, folder / f"{entry.key}.json")
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _prune(folder)
    except OSError:
        return


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEPT:]:
        old.unlink(missing_ok=True)
