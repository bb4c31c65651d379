"""validate's diagnostics as LSP diagnostics: the same code, message and severity, the
range of the token at the diagnostic's position, the hint as related information."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from automodel_launch.diagnostics import Diagnostic, Severity
from automodel_launch.lsp.text import Lines

SOURCE = "automodel-launch"


def span(diagnostic: Diagnostic, lines: Lines) -> tuple[int, int, int]:
    """(0-based line, start, end) in characters: the token the diagnostic points at.

    A value from a profile file or ``--set`` has no place in this document: the
    diagnostic sits on the first line and its message names the origin.
    """
    if diagnostic.origin is not None:
        return 0, 0, len(lines.line(0))
    line = max(diagnostic.line - 1, 0)
    start = min(max(diagnostic.column - 1, 0), len(lines.line(line)))
    return line, start, max(lines.token_end(line, start), start)


def to_lsp(
    diagnostic: Diagnostic, lines: Lines, uri: str, *, strict: bool = False
) -> types.Diagnostic:
    line, start, end = span(diagnostic, lines)
    where = lines.range(line, start, end)
    if diagnostic.severity is Severity.NOTE:
        severity = types.DiagnosticSeverity.Information  # a note fails nothing, even strict
    elif diagnostic.severity is Severity.ERROR or strict:
        severity = types.DiagnosticSeverity.Error
    else:
        severity = types.DiagnosticSeverity.Warning
    data: dict[str, Any] = {"path": diagnostic.path, "hint": diagnostic.hint}
    message = diagnostic.message
    origin = diagnostic.origin
    if origin is not None:
        at = f":{diagnostic.line}:{diagnostic.column}" if origin.kind == "profile" else ""
        message = f"{origin.label}{at}: {message}"
    return types.Diagnostic(
        range=where,
        message=message,
        severity=severity,
        code=diagnostic.code,
        source=SOURCE,
        related_information=None
        if diagnostic.hint is None
        else [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=where), message=diagnostic.hint
            )
        ],
        data=data,
    )


def to_lsp_all(
    diagnostics: Sequence[Diagnostic], lines: Lines, uri: str, *, strict: bool = False
) -> list[types.Diagnostic]:
    return [to_lsp(d, lines, uri, strict=strict) for d in diagnostics]
