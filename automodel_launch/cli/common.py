"""What several commands share: settings from flags, usage errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from automodel_launch.settings import Settings
    from automodel_launch.validation import FileReport


def load_settings(**flags: Any) -> Settings:
    """Settings with the flags the user actually gave on top (see settings.py)."""
    from pydantic import ValidationError

    from automodel_launch.settings import Settings

    given = {key: value for key, value in flags.items() if value is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise typer.BadParameter(problems) from None


def report_problems(report: FileReport, settings: Settings) -> None:
    """Show a file's diagnostics on stderr; stop with exit 1 when it failed."""
    import sys

    from automodel_launch.report import write_report

    if report.diagnostics:
        write_report([report], "text", sys.stderr, strict=settings.strict)
    if report.failed(settings.strict):
        raise typer.Exit(1)
