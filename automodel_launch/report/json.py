"""The JSON report: a contract other tools parse (see docs/json-output.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from automodel_launch.results import FileReport


def as_data(
    reports: Sequence[FileReport], *, strict: bool, version: str | None = None
) -> dict[str, Any]:
    from automodel_launch.report.releases import checked_against

    releases = checked_against(reports, version)
    return {
        "automodel_version": releases[0] if len(releases) == 1 else releases or None,
        "files": [
            {
                "path": report.path,
                "ok": not report.failed(strict),
                "automodel_version": report.automodel_version,
                "automodel_found": report.automodel_found,
                "automodel_why": report.automodel_why,
                "diagnostics": [d.as_dict() for d in report.diagnostics],
            }
            for report in reports
        ],
    }


def write_json(
    reports: Sequence[FileReport], stream: TextIO, *, strict: bool, version: str | None = None
) -> None:
    json.dump(as_data(reports, strict=strict, version=version), stream, indent=2)
    stream.write("\n")
