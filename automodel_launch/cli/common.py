"""What several commands share: settings from flags, usage errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from automodel_launch.results import FileReport
    from automodel_launch.settings import Settings


def load_settings(**flags: Any) -> Settings:
    """Settings with the flags the user gave on top; a bad source is a usage error (exit 2)."""
    from automodel_launch.settings import SettingsError, resolve_settings

    try:
        return resolve_settings(**flags)
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None


def report_problems(report: FileReport, settings: Settings) -> None:
    """Show a file's diagnostics on stderr; stop with exit 1 when it failed."""
    import sys

    from automodel_launch.report import write_report

    if report.diagnostics:
        write_report([report], "text", sys.stderr, strict=settings.strict)
    if report.failed(settings.strict):
        raise typer.Exit(1)
