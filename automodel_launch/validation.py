"""Validate one recipe file: load it, run every rule, collect everything.

Orchestration only: the rules live in :mod:`automodel_launch.rules`, host checks in
:mod:`automodel_launch.checks`. Every diagnostic of a file comes out of one run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch import checks
from automodel_launch.config import environment
from automodel_launch.config.document import LAUNCHER_SECTIONS, LAUNCHERS, LaunchDocument
from automodel_launch.diagnostics import Diagnostic, sort_key
from automodel_launch.loading import LoadedFile, LoadResult, load_buffer, load_file
from automodel_launch.results import FileReport
from automodel_launch.rules import Context, Purpose, find_traps, run_rules
from automodel_launch.rules.not_a_recipe import LOADER_CODES
from automodel_launch.settings import PROFILE_VARIABLE, Settings

if TYPE_CHECKING:
    from automodel_launch.automodel.which import Explicit
    from automodel_launch.profiles.overrides import Layers


def validate_paths(
    paths: list[Path], settings: Settings, layers: Layers | None = None, *, spread: bool = False
) -> list[FileReport]:
    """``validate FILE|DIR...``: one report per file found, and per path that was skipped.

    ``spread``: many files are checked on every core (:mod:`automodel_launch.fanout`);
    the reports then carry their diagnostics only, not the loaded file or document."""
    from automodel_launch.discovery import Target, discover

    def check(target: Target) -> FileReport:
        if target.problems:
            return FileReport(str(target.path), list(target.problems))
        return validate_path(target.path, settings, layers=layers)

    targets = discover(paths)
    if spread:
        from automodel_launch.fanout import fan_out

        return fan_out(check, targets, slim=_diagnostics_only)
    return [check(t) for t in targets]


def _diagnostics_only(report: FileReport) -> FileReport:
    report.loaded = report.document = None
    return report


def validate_path(
    path: str | Path,
    settings: Settings,
    *,
    purpose: Purpose = "validate",
    layers: Layers | None = None,
) -> FileReport:
    return validate_result(load_file(path), str(path), settings, purpose=purpose, layers=layers)


def validate_text(text: str, name: str, settings: Settings) -> FileReport:
    """An editor's unsaved buffer: what ``validate`` says of the same text saved as ``name``."""
    return validate_result(load_buffer(text, name), name, settings)


def validate_result(
    result: LoadResult,
    name: str,
    settings: Settings,
    *,
    purpose: Purpose = "validate",
    layers: Layers | None = None,
) -> FileReport:
    if result.loaded is None:
        return FileReport(name, sorted(result.diagnostics, key=sort_key))
    report = validate_loaded(result.loaded, settings, purpose=purpose, layers=layers)
    loading = result.diagnostics
    if any(d.code == "not-a-recipe" for d in report.diagnostics):
        loading = [d for d in loading if d.code not in LOADER_CODES]  # AutoModel never reads it
    report.diagnostics = sorted(loading + report.diagnostics, key=sort_key)
    return report


def validate_loaded(
    loaded: LoadedFile,
    settings: Settings,
    *,
    purpose: Purpose = "validate",
    layers: Layers | None = None,
) -> FileReport:
    """``layers``: the command line's profile and ``--set`` (:mod:`automodel_launch.profiles`)."""
    found: list[Diagnostic] = []
    explicit = _named_release(settings)
    if layers_in_play(loaded.data, layers):
        from automodel_launch.profiles.merge import merge

        loaded, found = merge(loaded, layers)
        if loaded.automodel_version is not None:
            settings = settings.model_copy(update={"automodel_version": loaded.automodel_version})
            explicit = _layered_release(loaded, layers)
    sink = loaded.collector()
    sink.items += found
    data = env_as_written(loaded)
    sink.hide = environment.redactor(data, loaded.plain)
    ctx = Context(
        data,
        sink,
        settings,
        purpose,
        traps=find_traps(loaded),
        tags=loaded.tags,
        text=loaded.text,
        path=loaded.path,
        explicit=explicit,
    )
    run_rules(ctx)
    fields: dict[str, Any] = {n: sec.model for n, sec in ctx.sections.items()}
    fields["recipe"] = data.get("recipe")
    document = LaunchDocument.model_construct(**fields)
    failed = any(d.is_error for d in sink.items)
    if settings.check_paths or settings.check_env:
        # on whatever validated, next to the other errors: every problem in one run
        checks.check_host(document, sink, settings, submitting=purpose == "submit")
    report = FileReport(loaded.path, sink.items, loaded, None if failed else document)
    release = ctx.release()
    report.automodel_version = release.version
    report.automodel_found = release.found
    report.automodel_why = release.shown
    return report


def _named_release(settings: Settings) -> Explicit | None:
    if "automodel_version" not in settings.model_fields_set:
        return None  # found, not named (automodel_launch.automodel.which)
    from automodel_launch.automodel.which import Explicit

    return Explicit(settings.automodel_version, "setting", "the automodel_version setting")


def _layered_release(loaded: LoadedFile, layers: Layers | None) -> Explicit:
    from automodel_launch.automodel.which import Explicit

    version = getattr(loaded, "automodel_version", None) or ""
    overrides = layers.overrides if layers is not None else ()
    if any(override.loc == ("automodel_version",) for override in overrides):
        return Explicit(version, "set", "--set automodel_version")
    profile = getattr(loaded, "profile", None)
    name = getattr(profile, "name", None)
    return Explicit(version, "profile", f"profile {name}" if name else "the profile")


def layers_in_play(data: dict[str, Any], layers: Layers | None) -> bool:
    """Whether a profile or an override changes this recipe: asked on every validate, so
    it imports nothing (the merge is imported only when the answer is yes)."""
    if layers is not None and (layers.profile or layers.overrides):
        return True
    if (layers is None or layers.ambient) and os.environ.get(PROFILE_VARIABLE):
        return True
    return any(isinstance(data.get(n), dict) and "profile" in data[n] for n in LAUNCHERS)


def env_as_written(loaded: LoadedFile) -> dict[str, Any]:
    """The data with each unquoted env value as its text: ``PY: 3.10`` exports 3.10, not 3.1."""
    data = loaded.data
    for name in LAUNCHER_SECTIONS:
        section = data.get(name)
        env_vars = section.get("env_vars") if isinstance(section, dict) else None
        if not isinstance(env_vars, dict) or not isinstance(section, dict):
            continue
        texts = {
            key: loaded.plain[(name, "env_vars", key)]
            for key, value in env_vars.items()
            if isinstance(value, (int, float)) and (name, "env_vars", key) in loaded.plain
        }
        if texts:
            data = {**data, name: {**section, "env_vars": {**env_vars, **texts}}}
    return data
