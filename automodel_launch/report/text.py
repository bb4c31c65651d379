"""The text report: ``path:line:col: severity[code] field: message`` and a hint line.

Plain text when piped (pre-commit, CI logs, grep); colours through rich only when
the stream is a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from automodel_launch.diagnostics import Diagnostic
    from automodel_launch.results import FileReport


def place(path: str, d: Diagnostic) -> str:
    """``file:line:col``: the recipe's, the profile file's, or the ``--set`` argument."""
    if d.origin is None:
        return f"{path}:{d.line}:{d.column}"
    if d.origin.kind == "set":
        return d.origin.label
    return f"{d.origin.where}:{d.line}:{d.column}"


def format_line(path: str, d: Diagnostic) -> str:
    field = f" {d.path}:" if d.path else ""
    return f"{place(path, d)}: {d.severity.value}[{d.code}]{field} {d.message}"


def summary(reports: Sequence[FileReport], *, strict: bool, version: str | None = None) -> str:
    """``2 files checked against AutoModel 0.7.0: no problems``."""
    from automodel_launch.report.releases import described

    releases = described(reports, version)
    against = f" against AutoModel {' and '.join(releases)}" if releases else ""
    errors = sum(d.is_error for r in reports for d in r.diagnostics)
    warnings = sum(d.is_problem and not d.is_error for r in reports for d in r.diagnostics)
    failed = sum(r.failed(strict) for r in reports)
    files = f"{len(reports)} file{'s' * (len(reports) != 1)}"
    if not errors and not warnings:
        return f"{files} checked{against}: no problems"
    counts = f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
    return f"{files} checked{against}: {counts}; {failed} failed"


def write_text(
    reports: Sequence[FileReport], stream: TextIO, *, strict: bool, version: str | None = None
) -> None:
    if stream.isatty():
        _write_rich(reports, stream, strict=strict, version=version)
        return
    for report in reports:
        for d in report.diagnostics:
            stream.write(format_line(report.path, d) + "\n")
            if d.hint:
                stream.write(f"    hint: {d.hint}\n")
    stream.write(summary(reports, strict=strict, version=version) + "\n")


def _write_rich(
    reports: Sequence[FileReport], stream: TextIO, *, strict: bool, version: str | None
) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stream, highlight=False, soft_wrap=True)
    styles = {"error": "bold red", "warning": "bold yellow", "note": "bold blue"}
    for report in reports:
        for d in report.diagnostics:
            line = Text(f"{place(report.path, d)}: ", style="bold")
            line.append(f"{d.severity.value}[{d.code}]", style=styles[d.severity.value])
            line.append(f" {d.path}:" if d.path else "", style="cyan")
            line.append(f" {d.message}")
            console.print(line)
            if d.hint:
                console.print(Text(f"    hint: {d.hint}", style="green"))
    ok = not any(r.failed(strict) for r in reports)
    said = summary(reports, strict=strict, version=version)
    console.print(Text(said, style="bold green" if ok else "bold red"))
