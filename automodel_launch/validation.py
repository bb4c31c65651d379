"""Validate one recipe file: load it, run every rule, collect everything.

Orchestration only: the rules live in :mod:`automodel_launch.rules`, host checks in
:mod:`automodel_launch.checks`. Every diagnostic of a file comes out of one run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from automodel_launch import checks
from automodel_launch.config import environment
from automodel_launch.config.document import LaunchDocument
from automodel_launch.diagnostics import sort_key
from automodel_launch.loading import LoadedFile, load_file
from automodel_launch.results import FileReport
from automodel_launch.rules import Context, Purpose, find_traps, run_rules
from automodel_launch.settings import Settings


def validate_paths(paths: list[Path], settings: Settings) -> list[FileReport]:
    """``validate FILE|DIR...``: one report per file found, and per path that was skipped."""
    from automodel_launch.discovery import discover

    return [
        FileReport(str(t.path), list(t.problems)) if t.problems else validate_path(t.path, settings)
        for t in discover(paths)
    ]


def validate_path(
    path: str | Path, settings: Settings, *, purpose: Purpose = "validate"
) -> FileReport:
    result = load_file(path)
    if result.loaded is None:
        return FileReport(str(path), sorted(result.diagnostics, key=sort_key))
    report = validate_loaded(result.loaded, settings, purpose=purpose)
    report.diagnostics = sorted(result.diagnostics + report.diagnostics, key=sort_key)
    return report


def validate_loaded(
    loaded: LoadedFile, settings: Settings, *, purpose: Purpose = "validate"
) -> FileReport:
    sink = loaded.collector()
    data = loaded.data
    sink.hide = environment.redactor(data, loaded.plain)
    ctx = Context(data, sink, settings, purpose, traps=find_traps(loaded))
    run_rules(ctx)
    fields: dict[str, Any] = {n: sec.model for n, sec in ctx.sections.items()}
    fields["recipe"] = data.get("recipe")
    document = LaunchDocument.model_construct(**fields)
    failed = any(d.is_error for d in sink.items)
    if settings.check_paths or settings.check_env:
        # on whatever validated, next to the other errors: every problem in one run
        checks.check_host(document, sink, settings, submitting=purpose == "submit")
    return FileReport(loaded.path, sink.items, loaded, None if failed else document)
