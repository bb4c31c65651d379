"""automodel_launch/report/json.py: the stable ``--format json`` contract."""

from __future__ import annotations

import io
import json

from automodel_launch.diagnostics import Diagnostic, Severity
from automodel_launch.report import write_report
from automodel_launch.report.json import as_data, write_json
from automodel_launch.results import FileReport
from automodel_launch.validation import validate_path
from tests.conftest import ROOT, offline_settings

ERR = Diagnostic(Severity.ERROR, "invalid-port", "slurm.master_port", 10, 16, "port 99999", "pick")
WARN = Diagnostic(Severity.WARNING, "yaml11-trap", "slurm.time", 2, 9, "unquoted", None)
DIAGNOSTIC_KEYS = ["severity", "code", "path", "line", "column", "message", "hint"]


def dump(reports: list[FileReport], *, strict: bool = False, version: str | None = None) -> str:
    out = io.StringIO()
    write_json(reports, out, strict=strict, version=version)
    return out.getvalue()


def checked(path: str, version: str, diagnostics: list[Diagnostic] | None = None) -> FileReport:
    report = FileReport(path, diagnostics or [])
    report.automodel_version = version
    return report


def test_the_documented_shape() -> None:
    reports = [checked("a.yaml", "0.7.0", [ERR, WARN]), checked("b.yaml", "0.7.0")]
    assert json.loads(dump(reports)) == {
        "automodel_version": "0.7.0",
        "files": [
            {
                "path": "a.yaml",
                "ok": False,
                "automodel_version": "0.7.0",
                "automodel_found": None,
                "automodel_why": None,
                "diagnostics": [
                    {
                        "severity": "error",
                        "code": "invalid-port",
                        "path": "slurm.master_port",
                        "line": 10,
                        "column": 16,
                        "message": "port 99999",
                        "hint": "pick",
                    },
                    {
                        "severity": "warning",
                        "code": "yaml11-trap",
                        "path": "slurm.time",
                        "line": 2,
                        "column": 9,
                        "message": "unquoted",
                        "hint": None,
                    },
                ],
            },
            {
                "path": "b.yaml",
                "ok": True,
                "automodel_version": "0.7.0",
                "automodel_found": None,
                "automodel_why": None,
                "diagnostics": [],
            },
        ],
    }


def test_files_checked_against_different_releases_list_them_in_release_order() -> None:
    reports = [checked("a.yaml", "main"), checked("b.yaml", "0.7.0"), checked("c.yaml", "0.3.0")]
    reports.append(checked("d.yaml", "0.10.0"))  # a release newer than 0.7.0, not before it
    reports.append(FileReport("missing.yaml", [ERR]))
    data = json.loads(dump(reports, version="0.4.0"))
    assert data["automodel_version"] == ["0.3.0", "0.7.0", "0.10.0", "main"]
    assert [f["automodel_version"] for f in data["files"]] == [
        "main", "0.7.0", "0.3.0", "0.10.0", None
    ]  # fmt: skip


def test_the_settings_release_when_no_file_loaded() -> None:
    data = json.loads(dump([FileReport("missing.yaml", [ERR])], version="0.4.0"))
    assert data["automodel_version"] == "0.4.0"
    assert data["files"][0]["automodel_version"] is None
    assert json.loads(dump([FileReport("missing.yaml", [ERR])]))["automodel_version"] is None


def test_key_order_and_trailing_newline() -> None:
    text = dump([FileReport("a.yaml", [ERR])])
    assert text.endswith("}\n")
    data = json.loads(text)
    assert list(data) == ["automodel_version", "files"]
    assert list(data["files"][0]) == [
        "path", "ok", "automodel_version", "automodel_found", "automodel_why", "diagnostics"
    ]  # fmt: skip
    assert list(data["files"][0]["diagnostics"][0]) == DIAGNOSTIC_KEYS


def test_ok_follows_strict() -> None:
    reports = [FileReport("w.yaml", [WARN])]
    assert as_data(reports, strict=False)["files"][0]["ok"] is True
    assert as_data(reports, strict=True)["files"][0]["ok"] is False


def test_no_files() -> None:
    assert json.loads(dump([])) == {"automodel_version": None, "files": []}
    assert json.loads(dump([], version="0.7.0")) == {"automodel_version": "0.7.0", "files": []}


def test_a_real_file_and_a_missing_one() -> None:
    reports = [
        validate_path(ROOT / "examples" / "broken.yaml", offline_settings()),
        validate_path(ROOT / "examples" / "nope.yaml", offline_settings()),
    ]
    out = io.StringIO()
    write_report(reports, "json", out, strict=False)
    data = json.loads(out.getvalue())
    assert data["automodel_version"] == "0.7.0"
    first, missing = data["files"]
    assert first["ok"] is False
    assert first["automodel_version"] == "0.7.0"
    assert (first["automodel_found"], first["automodel_why"]) == ("default", None)
    assert [(x["line"], x["column"], x["code"]) for x in first["diagnostics"]] == [
        (6, 13, "invalid-job-name"),
        (8, 3, "unknown-key"),
        (9, 9, "invalid-time"),
        (10, 16, "invalid-port"),
        (11, 13, "secret-in-plain-text"),
        (13, 7, "invalid-mount"),
        (15, 20, "bare-env-reference"),
    ]
    assert missing == {
        "path": str(ROOT / "examples" / "nope.yaml"),
        "ok": False,
        "automodel_version": None,
        "automodel_found": None,
        "automodel_why": None,
        "diagnostics": [
            {
                "severity": "error",
                "code": "file-not-found",
                "path": "",
                "line": 1,
                "column": 1,
                "message": f"no such file: {ROOT / 'examples' / 'nope.yaml'}",
                "hint": "check the path",
            }
        ],
    }


def test_non_ascii_survives() -> None:
    report = FileReport("ü.yaml", [Diagnostic(Severity.ERROR, "x", "p", 1, 1, "café ✓", None)])
    assert json.loads(dump([report]))["files"][0]["diagnostics"][0]["message"] == "café ✓"


def test_a_note_never_fails_a_file_not_even_strict() -> None:
    note = Diagnostic(Severity.NOTE, "sbatch-estimate", "slurm", 1, 1, "Job 5 to start at X")
    report = FileReport("a.yaml", [note])
    for strict in (False, True):
        [entry] = as_data([report], strict=strict)["files"]
        assert entry["ok"] is True
        assert entry["diagnostics"][0]["severity"] == "note"
