"""automodel_launch/report/text.py: ``path:line:col: severity[code] field: message`` + hints."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from automodel_launch.diagnostics import Diagnostic, Severity
from automodel_launch.report import write_report
from automodel_launch.report.text import format_line, summary, write_text
from automodel_launch.results import FileReport
from automodel_launch.validation import validate_path
from tests.conftest import ROOT, offline_settings

ANSI = re.compile(r"\x1b\[[0-9;]*m")
BROKEN = ROOT / "examples" / "broken.yaml"
TOKEN = "hf_not_a_real_token_but_written_in_plain_text"


def d(
    severity: Severity, code: str, path: str, line: int, col: int, msg: str, hint: str | None = None
) -> Diagnostic:
    return Diagnostic(severity, code, path, line, col, msg, hint)


ERR = d(
    Severity.ERROR, "invalid-time", "slurm.time", 9, 9, "'4h' is not a Slurm time limit", "use M"
)
WARN = d(Severity.WARNING, "nsys-diagnostic-only", "slurm.nsys_enabled", 3, 17, "nsys is on")
LOADER = d(Severity.ERROR, "yaml-syntax", "", 2, 1, "did not find expected key")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def text(
    reports: list[FileReport],
    *,
    strict: bool = False,
    stream: io.StringIO | None = None,
    version: str | None = None,
) -> str:
    out = stream or io.StringIO()
    write_text(reports, out, strict=strict, version=version)
    return out.getvalue()


def test_format_line() -> None:
    assert format_line("a.yaml", ERR) == (
        "a.yaml:9:9: error[invalid-time] slurm.time: '4h' is not a Slurm time limit"
    )
    assert (
        format_line("a.yaml", LOADER) == "a.yaml:2:1: error[yaml-syntax] did not find expected key"
    )


def test_piped_output_is_plain_and_exact() -> None:
    reports = [
        FileReport("a.yaml", [ERR, WARN]),
        FileReport("b.yaml", [LOADER]),
        FileReport("c.yaml"),
    ]
    assert text(reports) == (
        "a.yaml:9:9: error[invalid-time] slurm.time: '4h' is not a Slurm time limit\n"
        "    hint: use M\n"
        "a.yaml:3:17: warning[nsys-diagnostic-only] slurm.nsys_enabled: nsys is on\n"
        "b.yaml:2:1: error[yaml-syntax] did not find expected key\n"
        "3 files checked: 2 errors, 1 warning; 2 failed\n"
    )


@pytest.mark.parametrize(
    ("reports", "strict", "line"),
    [
        ([FileReport("a")], False, "1 file checked: no problems"),
        ([FileReport("a"), FileReport("b")], False, "2 files checked: no problems"),
        ([FileReport("a", [WARN])], False, "1 file checked: 0 errors, 1 warning; 0 failed"),
        ([FileReport("a", [WARN])], True, "1 file checked: 0 errors, 1 warning; 1 failed"),
        (
            [FileReport("a", [ERR, ERR, WARN, WARN])],
            False,
            "1 file checked: 2 errors, 2 warnings; 1 failed",
        ),
        ([], False, "0 files checked: no problems"),
    ],
)
def test_summary(reports: list[FileReport], strict: bool, line: str) -> None:
    assert summary(reports, strict=strict) == line


def checked(path: str, version: str, diagnostics: list[Diagnostic] | None = None) -> FileReport:
    report = FileReport(path, diagnostics or [])
    report.automodel_version = version
    return report


@pytest.mark.parametrize(
    ("reports", "version", "line"),
    [
        ([checked("a", "0.7.0")], None, "1 file checked against AutoModel 0.7.0: no problems"),
        (
            [checked("a", "0.3.0", [WARN]), FileReport("b", [LOADER])],
            "0.7.0",
            "2 files checked against AutoModel 0.3.0: 1 error, 1 warning; 1 failed",
        ),
        (
            [checked("a", "main"), checked("b", "0.10.0"), checked("c", "0.4.0")],
            None,
            "3 files checked against AutoModel 0.4.0 and 0.10.0 and main: no problems",
        ),
        ([FileReport("b", [LOADER])], "0.5.0", (
            "1 file checked against AutoModel 0.5.0: 1 error, 0 warnings; 1 failed"
        )),
        ([], "0.7.0", "0 files checked against AutoModel 0.7.0: no problems"),
    ],
)  # fmt: skip
def test_summary_names_the_releases_checked_against(
    reports: list[FileReport], version: str | None, line: str
) -> None:
    assert summary(reports, strict=False, version=version) == line
    out = io.StringIO()
    write_report(reports, "text", out, strict=False, version=version)
    assert out.getvalue().splitlines()[-1] == line
    coloured = text(reports, stream=Terminal(), version=version)
    assert ANSI.sub("", coloured).splitlines()[-1] == line


def test_a_real_file() -> None:
    report = validate_path(BROKEN, offline_settings())
    out = text([report])
    assert ANSI.search(out) is None
    lines = out.splitlines()
    assert lines[0] == (
        f"{BROKEN}:6:13: error[invalid-job-name] slurm.job_name: job name 'llm finetune' has "
        "whitespace, shell metacharacters or is empty"
    )
    assert lines[1] == "    hint: use letters, digits, '_', '-', '.' (e.g. llm_finetune)"
    assert f"{BROKEN}:9:9: error[invalid-time] slurm.time: '4h' is not a Slurm time limit" in lines
    assert lines[-1] == "1 file checked against AutoModel 0.7.0: 6 errors, 1 warning; 1 failed"


def test_a_terminal_gets_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    reports = [FileReport("a.yaml", [ERR, WARN])]
    coloured = text(reports, stream=Terminal())
    assert ANSI.search(coloured) is not None
    assert ANSI.sub("", coloured) == text(reports)


def test_write_report_dispatches_on_format() -> None:
    reports = [FileReport("a.yaml", [ERR])]
    out = io.StringIO()
    write_report(reports, "text", out, strict=False)
    assert out.getvalue() == text(reports)


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_secrets_never_reach_any_output(fmt: str, tmp_path: Path) -> None:
    secret_file = tmp_path / "secrets.yaml"
    secret_file.write_text(
        "slurm:\n"
        f"  hf_token: {TOKEN}\n"
        "  wandb_key: 0123456789abcdef0123456789abcdef\n"
        "  env_vars:\n"
        "    DB_PASSWORD: hunter2hunter2\n"
        "    OTHER: sk-abcdefghijklmnopqrstuvwxyz\n"
    )
    reports = [
        validate_path(BROKEN, offline_settings()),
        validate_path(secret_file, offline_settings()),
    ]
    assert sum(dg.code == "secret-in-plain-text" for r in reports for dg in r.diagnostics) == 5
    out = io.StringIO()
    write_report(reports, fmt, out, strict=False)  # type: ignore[arg-type]
    value = out.getvalue()
    for secret in (TOKEN, "0123456789abcdef0123456789abcdef", "hunter2", "sk-abcdefghijklmnop"):
        assert secret not in value


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_terminal_escapes_and_huge_values_never_reach_any_output(fmt: str, tmp_path: Path) -> None:
    config = tmp_path / "hostile.yaml"
    osc = "\\e]0;owned\\a\\e[2J\\u202e"  # YAML escapes: ESC ] 0 ; owned BEL ESC [ 2 J RLO
    config.write_text(
        f'slurm:\n  job_name: "x{osc}"\n  partition: "{"p" * 4_000_000}"\n', encoding="utf-8"
    )
    out = io.StringIO()
    write_report([validate_path(config, offline_settings())], fmt, out, strict=False)  # type: ignore[arg-type]
    value = out.getvalue()
    assert "\x1b" not in value and "\x07" not in value and "\u202e" not in value
    assert "\\x1b]0;owned\\x07" in value.replace("\\\\", "\\")
    assert "p" * 121 not in value and len(value) < 5000


def test_a_duplicated_token_shaped_key_is_never_shown() -> None:
    from automodel_launch.loading import load_text

    key = "hf_" + "Dup1icat3" * 4
    diags = load_text(f"model:\n  {key}: 1\n  {key}: 2\n", "c.yaml").diagnostics
    assert [(d.code, d.path) for d in diags] == [("duplicate-key", "model.***")]
    assert key not in diags[0].message and "Dup1icat3" not in diags[0].message


def test_notes_are_shown_but_not_counted_as_problems() -> None:
    note = Diagnostic(Severity.NOTE, "sbatch-estimate", "slurm", 1, 1, "Job 5 to start at X")
    warning = Diagnostic(Severity.WARNING, "nsys-diagnostic-only", "slurm.nsys_enabled", 2, 3, "on")
    out = io.StringIO()
    write_text([FileReport("a.yaml", [note, warning])], out, strict=False)
    assert out.getvalue() == (
        "a.yaml:1:1: note[sbatch-estimate] slurm: Job 5 to start at X\n"
        "a.yaml:2:3: warning[nsys-diagnostic-only] slurm.nsys_enabled: on\n"
        "1 file checked: 0 errors, 1 warning; 0 failed\n"
    )
    out = io.StringIO()
    write_text([FileReport("a.yaml", [note])], out, strict=True)
    assert out.getvalue().endswith("1 file checked: no problems\n")
