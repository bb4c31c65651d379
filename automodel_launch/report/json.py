"""The JSON report: a contract other tools parse (see docs/json-output.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from automodel_launch.results import FileReport


def as_data(reports: Sequence[FileReport], *, strict: bool) -> dict[str, Any]:
    return {
        "files": [
            {
                "path": report.path,
                "ok": not report.failed(strict),
                "diagnostics": [d.as_dict() for d in report.diagnostics],
            }
            for report in reports
        ]
    }


def write_json(reports: Sequence[FileReport], stream: TextIO, *, strict: bool) -> None:
    json.dump(as_data(reports, strict=strict), stream, indent=2)
    stream.write("\n")
