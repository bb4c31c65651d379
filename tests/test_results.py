from __future__ import annotations

import io
import json

from automodel_launch.report import write_report
from automodel_launch.results import FileReport


def test_a_file_path_is_cleaned_where_the_report_is_made() -> None:
    token = "hf_" + "Pa7h" * 9
    report = FileReport(f"runs/{token}/x\x1b[2J.yaml")
    assert report.path == "runs/***/x\\x1b[2J.yaml"
    for fmt in ("text", "json", "github"):
        out = io.StringIO()
        write_report([FileReport(f"runs/{token}/x.yaml", [])], fmt, out, strict=False)
        assert token not in out.getvalue()
    out = io.StringIO()
    write_report([report], "json", out, strict=False)
    assert json.loads(out.getvalue())["files"][0]["path"] == "runs/***/x\\x1b[2J.yaml"
