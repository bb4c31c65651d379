"""Where profile files are, and reading them (each once per process).

A profile file is YAML whose top-level keys are profile names, each holding launcher
sections exactly as a recipe writes them::

    eos:
      automodel_version: "0.7.0"    # optional: the AutoModel release this site runs
      slurm:
        account: my-account
        partition: batch

Two files are read: the site file an administrator installs
(``$AUTOMODEL_LAUNCH_SITE_PROFILES``, else ``/etc/automodel-launch/profiles.yaml``) and
the user's (``~/.config/automodel-launch/profiles.yaml``, the XDG config directory).
A profile in the user's file replaces the site's profile of the same name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from automodel_launch.diagnostics import Collector, Diagnostic, Origin
from automodel_launch.loading import LoadedFile, load_file
from automodel_launch.profiles import LAUNCHERS, SITE_VARIABLE
from automodel_launch.remote.fields import NAME

CLUSTERS_KEY = "clusters"
"""The file's top-level key holding the named clusters (no profile may be named so:
:mod:`automodel_launch.remote.clusters` reads them)."""
REMOTE_KEY = "remote"
"""A profile's key naming its default cluster."""

SITE_DEFAULT = Path("/etc/automodel-launch/profiles.yaml")
FILE_NAME = "profiles.yaml"
VERSION_KEY = "automodel_version"


def user_file() -> Path:
    import platformdirs

    return platformdirs.user_config_path("automodel-launch") / FILE_NAME


def site_file() -> Path:
    explicit = os.environ.get(SITE_VARIABLE)
    return Path(explicit) if explicit else SITE_DEFAULT


@dataclass
class ProfileFile:
    path: str
    loaded: LoadedFile | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """What loading it said, each with this file as its origin."""

    @property
    def names(self) -> list[str]:
        if self.loaded is None:
            return []
        return [str(k) for k in self.loaded.data if k != CLUSTERS_KEY]


@dataclass
class Profile:
    name: str
    file: ProfileFile
    sections: dict[str, Any]
    """Launcher name -> the section's data, as the file writes it."""
    problems: list[Diagnostic] = field(default_factory=list)
    automodel_version: str | None = None
    """The profile's ``automodel_version:``, checked (None: the profile does not say)."""
    remote: str | None = None
    """The profile's ``remote:``: the cluster it submits to (:mod:`automodel_launch.remote`)."""

    @property
    def origin(self) -> Origin:
        return Origin("profile", self.file.path, self.name)


_CACHE: dict[tuple[str, int, int], ProfileFile] = {}


def read(path: Path, *, required: bool) -> ProfileFile | None:
    """The file's profiles; None when it is absent and not ``required``."""
    try:
        info = path.stat()
    except OSError:
        info = None
    if info is None and not required:
        return None
    key = (str(path), info.st_mtime_ns if info else 0, info.st_size if info else 0)
    if key not in _CACHE:
        if len(_CACHE) > 64:  # a long-lived process (the language server) sees edits
            _CACHE.clear()
        result = load_file(path)
        origin = Origin("profile", str(path))
        found = ProfileFile(
            str(path),
            result.loaded,
            [_with_origin(_profile_hint(d, path), origin) for d in result.diagnostics],
        )
        _CACHE[key] = found
    return _CACHE[key]


def profile_files() -> list[ProfileFile]:
    """The site file, then the user's (later wins); a named site file must exist."""
    found = [
        read(site_file(), required=bool(os.environ.get(SITE_VARIABLE))),
        read(user_file(), required=False),
    ]
    return [f for f in found if f is not None]


def find(name: str, files: list[ProfileFile]) -> Profile | None:
    for file in reversed(files):  # the user's file first
        if file.loaded is None or name == CLUSTERS_KEY or name not in file.loaded.data:
            continue
        return _profile(name, file)
    return None


def _profile(name: str, file: ProfileFile) -> Profile:
    assert file.loaded is not None
    raw = file.loaded.data[name]
    collector = file.loaded.collector()
    origin = Origin("profile", file.path, name)
    problems: list[Diagnostic] = []
    sections: dict[str, Any] = {}
    version: str | None = None
    remote: str | None = None
    if not isinstance(raw, dict):
        collector.add(
            "invalid-profile",
            (name,),
            f"profile '{name}' is not a mapping of launcher sections",
            f"write {name}: {{slurm: {{...}}}} or {name}: {{skypilot: {{...}}}}",
        )
    else:
        for key, value in raw.items():
            if key == VERSION_KEY:
                version = _version(value, (name, key), collector)
                continue
            if key == REMOTE_KEY:
                remote = _remote(value, (name, key), collector)
                continue
            if key not in LAUNCHERS:
                collector.add(
                    "invalid-profile",
                    (name, key),
                    "a profile holds launcher sections (slurm:, skypilot:), "
                    f"automodel_version: and remote:, not '{key}:'",
                    "recipe values belong in the recipe, or in --set",
                    at_key=True,
                )
            elif value is None:
                sections[key] = {}
            elif not isinstance(value, dict):
                collector.add(
                    "invalid-profile",
                    (name, key),
                    f"{key}: in profile '{name}' is not a mapping of fields",
                    f"write {key}: followed by its fields, indented",
                )
            elif "profile" in value:
                collector.add(
                    "invalid-profile",
                    (name, key, "profile"),
                    "a profile cannot name another profile",
                    "write the values out in this profile",
                    at_key=True,
                )
                sections[key] = {k: v for k, v in value.items() if k != "profile"}
            else:
                sections[key] = value
    problems = [_with_origin(d, origin) for d in collector.items]
    return Profile(name, file, sections, problems, version, remote)


def _remote(value: Any, loc: tuple[str, str], collector: Collector) -> str | None:
    if isinstance(value, str) and re.fullmatch(NAME, value):
        return value
    collector.add(
        "invalid-profile",
        loc,
        "remote: names a cluster of clusters: (a name of letters, digits, '.', '_', '-')",
        "write remote: NAME, NAME defined under clusters: in a profile file",
    )
    return None


def _version(value: Any, loc: tuple[str, str], collector: Collector) -> str | None:
    from automodel_launch.automodel.versions import known_version, unknown_version

    if (known := known_version(value)) is not None:
        return known
    message, hint = unknown_version(value)
    collector.add("unknown-automodel-version", loc, message, hint)
    return None


def _profile_hint(d: Diagnostic, path: Path) -> Diagnostic:
    """The loader's "name a recipe file" for a special file, said of a profile file."""
    if d.code != "file-unreadable" or d.hint is None:
        return d
    hint = f"make {path} a YAML file of profiles, or remove it"
    if path == site_file() and os.environ.get(SITE_VARIABLE):
        hint = f"point {SITE_VARIABLE} at a YAML file of profiles"
    return Diagnostic(d.severity, d.code, d.path, d.line, d.column, d.message, hint, d.origin)


def _with_origin(d: Diagnostic, origin: Origin) -> Diagnostic:
    return Diagnostic(d.severity, d.code, d.path, d.line, d.column, d.message, d.hint, origin)


def unknown(name: str, files: list[ProfileFile], where: str) -> str:
    """The message for a profile name no file defines."""
    from automodel_launch.settings import did_you_mean

    known = {n for f in files for n in f.names}
    unread = " (not read: see its error)"
    read_from = ", ".join(f.path + ("" if f.loaded else unread) for f in files)
    read_from = read_from or f"none of {site_file()}, {user_file()} exist"
    if not known:
        return f"no profile '{name}' ({where}): no profile file defines any ({read_from})"
    return f"no profile '{name}' ({where}) in {read_from}" + did_you_mean(name, known)
