"""Reporters: one per output format, each a function of the file reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from automodel_launch.results import FileReport
    from automodel_launch.settings import OutputFormat


def write_report(
    reports: Sequence[FileReport],
    fmt: OutputFormat,
    stream: TextIO,
    *,
    strict: bool,
    version: str | None = None,
) -> None:
    """``version``: the AutoModel release of the settings, for files that did not load."""
    if fmt == "json":
        from automodel_launch.report.json import write_json

        write_json(reports, stream, strict=strict, version=version)
    elif fmt == "github":
        from automodel_launch.report.github import write_github

        write_github(reports, stream)
    else:
        from automodel_launch.report.text import write_text

        write_text(reports, stream, strict=strict, version=version)
