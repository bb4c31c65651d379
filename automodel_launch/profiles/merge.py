"""One recipe, its profile and its overrides, merged into the data every rule checks.

The precedence, highest first (stated here once; docs/profiles.md repeats it):

1. ``--set KEY=VALUE`` arguments (a later one wins over an earlier one);
2. the recipe's own section;
3. the profile (``--profile NAME``, else the section's ``profile:`` key, else
   ``$AUTOMODEL_LAUNCH_PROFILE``), from the user's profile file, else the site's;
4. the models' defaults.

Mappings merge key by key; a list or a value replaces the lower layer's whole. A
profile's launcher section applies when the recipe has that section, or no launcher
section at all (the profile then chooses the launcher).

The result is a :class:`MergedFile`: the recipe's text and sections (the job config is
cut from them) with the merged data, and a collector that places each diagnostic where
its value came from (:mod:`automodel_launch.profiles.provenance`).
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from automodel_launch.diagnostics import Collector, Diagnostic, Loc, Severity, dotted
from automodel_launch.loading import LoadedFile
from automodel_launch.profiles import LAUNCHERS, PROFILE_VARIABLE
from automodel_launch.profiles.files import VERSION_KEY, Profile, find, profile_files, unknown
from automodel_launch.profiles.jobtext import spliced
from automodel_launch.profiles.overrides import Layers, Override
from automodel_launch.profiles.provenance import Provenance, Source

PRECEDENCE = ("set", "recipe", "profile", "default")
"""Highest first: ``--set`` > the recipe's own section > the profile > defaults."""


@dataclass
class MergedFile(LoadedFile):
    provenance: Provenance = field(default_factory=Provenance)
    profile: Profile | None = None
    automodel_version: str | None = None
    """The release ``--set automodel_version=`` or the profile names (None: neither)."""

    def collector(self) -> Collector:
        return _Collector(where=self.provenance.where)  # places every loc: no keys, values


class _Collector(Collector):
    """A file's "quote it" hint, said the way a ``--set`` (or ``--sweep``) argument is
    quoted."""

    def add(
        self,
        code: str,
        loc: Loc,
        message: str,
        hint: str | None = None,
        *,
        at_key: bool = False,
        severity: Severity | None = None,
    ) -> None:
        super().add(code, loc, message, hint, at_key=at_key, severity=severity)
        added = self.items[-1]
        origin = added.origin
        if hint and hint.startswith(_QUOTE) and origin is not None and origin.kind == "set":
            key, _, text = origin.where.partition("=")
            quoted = f"""{_QUOTE}{origin.option} '{key}="{text}"'"""
            self.items[-1] = dataclasses.replace(added, hint=self.hide(quoted))


_QUOTE = "quote it: "


def merge(loaded: LoadedFile, layers: Layers | None) -> tuple[MergedFile, list[Diagnostic]]:
    """The merged file and the diagnostics of the layers themselves (bad profile, KEY)."""
    layers = layers or Layers()
    data = copy.deepcopy(loaded.data)
    provenance = Provenance()
    recipe = Source("recipe", None, loaded.keys, loaded.values, loaded.plain, loaded.tags,
                    path=loaded.path)  # fmt: skip
    provenance.claim((), data, recipe)
    problems: list[Diagnostic] = []
    applied: list[Override] = []
    version: str | None = None
    for override in layers.overrides:
        if override.loc == (VERSION_KEY,) and not override.problems:
            version, wrong = _set_version(override)
            problems += wrong
            continue
        found = override.problems or _apply(data, override, provenance)
        problems += found
        if not found:
            applied.append(override)
    profile, found = _profile(data, layers, provenance)
    problems += found
    if profile is not None:
        problems += _underlay(data, profile, provenance)
        version = version or profile.automodel_version
    merged = MergedFile(
        path=loaded.path,
        data=data,
        keys=loaded.keys,
        values=loaded.values,
        plain=provenance.plain(),
        tags=provenance.tags(),
        text=spliced(loaded, applied) or loaded.text,  # same lines, same comments
        sections=loaded.sections,
        provenance=provenance,
        profile=profile,
        automodel_version=version,
    )
    return merged, problems


def _set_version(override: Override) -> tuple[str | None, list[Diagnostic]]:
    """``--set automodel_version=0.4.0`` chooses the release; it is not a recipe value."""
    from automodel_launch.automodel.versions import known_version, unknown_version

    if (known := known_version(override.value)) is not None:
        return known, []
    message, hint = unknown_version(override.value)
    found = Diagnostic(Severity.ERROR, "unknown-automodel-version", VERSION_KEY, 0, 0, message,
                       hint, override.origin)  # fmt: skip
    return None, [found]


def _apply(data: dict[str, Any], override: Override, provenance: Provenance) -> list[Diagnostic]:
    source = Source("set", override.origin, plain=override.plain, tags=override.tags,
                    base=override.loc)  # fmt: skip
    container: Any = data
    for depth, part in enumerate(override.loc):
        here = override.loc[: depth + 1]
        last = depth == len(override.loc) - 1
        if isinstance(part, int):
            if not isinstance(container, list):
                return [_bad(override, f"{dotted(here[:-1])} is not a list: no item [{part}]")]
            if part >= len(container):
                message = f"{dotted(here[:-1])} is a list of {len(container)}: no item [{part}]"
                return [_bad(override, message)]
        elif not isinstance(container, dict):
            return [_bad(override, f"{dotted(here[:-1])} is a value, not a mapping of keys")]
        if last:
            container[part] = copy.deepcopy(override.value)
            provenance.claim(here, container[part], source)
            return []
        child = container[part] if isinstance(part, int) else container.get(part)
        if child is None:
            child = {}
            container[part] = child
            if here not in provenance.owner:
                provenance.owner[here] = source
        container = child
    return []


def _bad(override: Override, message: str) -> Diagnostic:
    return Diagnostic(
        Severity.ERROR, "invalid-override", dotted(override.loc), 0, 0, message,
        "set an existing list item, or a key inside a mapping", override.origin,
    )  # fmt: skip


def _profile(
    data: dict[str, Any], layers: Layers, provenance: Provenance
) -> tuple[Profile | None, list[Diagnostic]]:
    """The profile to apply: --profile, else the section's profile:, else the variable."""
    keyed = [
        (name, data[name]["profile"])
        for name in LAUNCHERS
        if isinstance(data.get(name), dict) and isinstance(data[name].get("profile"), str)
    ]
    loc: Loc = ()
    if layers.profile:
        name, where = layers.profile, f"--profile {layers.profile}"
    elif keyed:
        loc = (keyed[0][0], "profile")
        name, where = keyed[0][1], f"{dotted(loc)}: {keyed[0][1]}"
    elif layers.ambient and os.environ.get(PROFILE_VARIABLE):
        name = os.environ[PROFILE_VARIABLE]
        where = f"{PROFILE_VARIABLE}={name}"
    else:
        return None, []
    files = profile_files()
    problems = [d for f in files for d in f.diagnostics]
    profile = find(name, files)
    if profile is None:
        origin, line, column = provenance.where(loc) if loc else (None, 1, 1)
        message = unknown(name, files, where)
        hint = "add it to your profiles.yaml (see the README), or name another"
        problems.append(
            Diagnostic(
                Severity.ERROR, "unknown-profile", dotted(loc), line, column, message, hint, origin
            )
        )
        return None, problems
    return profile, problems + profile.problems


def _underlay(data: dict[str, Any], profile: Profile, provenance: Provenance) -> list[Diagnostic]:
    """Fill in what the recipe (and --set) left unset from the profile's sections.

    A note when the profile has sections but none for the recipe's launcher: it then
    gives nothing, which is rarely what naming it meant.
    """
    assert profile.file.loaded is not None
    loaded = profile.file.loaded
    source = Source("profile", profile.origin, loaded.keys, loaded.values, loaded.plain,
                    loaded.tags, prefix=(profile.name,))  # fmt: skip
    present = [name for name in LAUNCHERS if name in data]
    skipped = [name for name in profile.sections if present and name not in present]
    for name, section in profile.sections.items():
        if name in skipped:
            continue
        if data.get(name) is None:  # absent, or written empty (slurm:)
            if name not in data:
                provenance.owner[(name,)] = source
            data[name] = {}
        elif not isinstance(data[name], dict):
            continue  # the section's own type error says what is wrong
        _fill(data[name], section, (name,), source, provenance)
    if not skipped or len(skipped) < len(profile.sections):
        return []
    have = ", ".join(f"{name}:" for name in skipped)
    message = (
        f"profile '{profile.name}' ({profile.file.path}) has {have} only: "
        f"nothing of it applies to this {present[0]}: recipe"
    )
    hint = f"add a {present[0]}: section to profile '{profile.name}', or name another profile"
    origin, line, column = provenance.where((present[0],), at_key=True)
    return [Diagnostic(Severity.NOTE, "profile-not-applied", present[0], line, column, message,
                       hint, origin)]  # fmt: skip


def _fill(
    target: dict[str, Any], lower: dict[str, Any], loc: Loc, source: Source, provenance: Provenance
) -> None:
    for key, value in lower.items():
        here = (*loc, key)
        if key not in target:
            target[key] = copy.deepcopy(value)
            provenance.claim(here, target[key], source)
        elif isinstance(target[key], dict) and isinstance(value, dict):
            _fill(target[key], value, here, source, provenance)
