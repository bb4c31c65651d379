"""GitHub Actions workflow commands: each diagnostic becomes an annotation on its line."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from automodel_launch.results import FileReport


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


_COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}
"""GitHub's workflow command for each severity (a note is a ``::notice``)."""


def write_github(reports: Sequence[FileReport], stream: TextIO) -> None:
    for report in reports:
        for d in report.diagnostics:
            where = f"{d.path}: " if d.path else ""
            hint = f" (hint: {d.hint})" if d.hint else ""
            title = _property("automodel-launch " + d.code)
            if d.origin is not None and d.origin.kind == "set":
                # no line to annotate: on the recipe, the argument named in the text
                where = f"{d.origin.label}: {where}"
                place = f"file={_property(report.path)}"
            else:
                file = report.path if d.origin is None else d.origin.where
                place = f"file={_property(file)},line={d.line},col={d.column}"
            stream.write(
                f"::{_COMMANDS[d.severity.value]} {place},title={title}::"
                f"{_data(where + d.message + hint)}\n"
            )
