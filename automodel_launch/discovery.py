"""Which files a ``validate`` run reads: named files as given, directories searched for YAML.

A CI gate must never pass on nothing: everything a directory search had to skip
(an unreadable directory, a link to nothing, a link loop, a pipe or device named
``*.yaml``) becomes an error on that path, and a named directory holding no
``.yaml``/``.yml`` file (in any letter case) is an error too.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from automodel_launch.diagnostics import Collector, Diagnostic

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Target:
    """A file to validate, or (with ``problems``) a path that was skipped and why."""

    path: Path
    problems: tuple[Diagnostic, ...] = ()


def discover(paths: list[Path]) -> list[Target]:
    """Named files in order; each directory's YAML files below it, sorted."""
    targets: list[Target] = []
    for path in paths:
        if _is_dir(path):
            targets += _search(path)
        else:
            targets.append(Target(path))  # loading reports a missing or unreadable file
    return targets


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def is_config_name(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def _search(root: Path) -> list[Target]:
    found: list[Target] = []
    seen: set[tuple[int, int]] = set()
    _walk(root, found, seen)
    found.sort(key=lambda t: t.path.parts)
    if not found:  # (a skipped path is its own error: no second one for the same cause)
        found.append(
            _problem(
                root,
                "no-config-found",
                f"no .yaml or .yml file found in {root}",
                "name the config files, or a directory that holds them",
            )
        )
    return found


def _walk(directory: Path, found: list[Target], seen: set[tuple[int, int]]) -> None:
    try:
        info = directory.stat()
        if (info.st_dev, info.st_ino) in seen:
            return  # reached again through a link: already searched
        seen.add((info.st_dev, info.st_ino))
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        found.append(
            _problem(
                directory,
                "file-unreadable",
                f"cannot search directory {directory}: {_reason(exc)}; skipped",
                "fix its permissions, or leave it out of the command line",
            )
        )
        return
    for entry in entries:
        path = Path(entry.path)
        try:
            if entry.is_dir():
                _walk(path, found, seen)
                continue
        except OSError:
            pass  # a link loop or an unreadable link: judged below when it looks like a config
        if is_config_name(entry.name):
            found.append(_config(path, entry))


def _config(path: Path, entry: os.DirEntry[str]) -> Target:
    try:
        mode = entry.stat().st_mode
    except OSError as exc:
        if entry.is_symlink() and exc.errno == errno.ENOENT:
            return _problem(
                path,
                "file-not-found",
                f"{path} is a symbolic link to {_link_target(path)}, which does not exist; skipped",
                "fix or remove the link",
            )
        return _problem(
            path,
            "file-unreadable",
            f"cannot read {path}: {_reason(exc)}; skipped",
            "fix or remove it",
        )
    if not stat.S_ISREG(mode):
        return _problem(
            path,
            "file-unreadable",
            f"{path} is not a regular file (a directory, pipe or device); skipped",
            "configs are regular files; rename or remove it",
        )
    return Target(path)


def _problem(path: Path, code: str, message: str, hint: str) -> Target:
    sink = Collector()
    sink.add(code, (), message, hint)
    return Target(path, tuple(sink.items))


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop"
    return exc.strerror.lower() if exc.strerror else str(exc)


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "a missing path"
