"""automodel_launch/report/github.py: GitHub Actions workflow-command annotations."""

from __future__ import annotations

import io

from automodel_launch.diagnostics import Diagnostic, Severity
from automodel_launch.report import write_report
from automodel_launch.report.github import write_github
from automodel_launch.results import FileReport
from automodel_launch.validation import validate_path
from tests.conftest import ROOT, offline_settings


def annotate(reports: list[FileReport]) -> str:
    out = io.StringIO()
    write_github(reports, out)
    return out.getvalue()


def test_one_line_per_diagnostic() -> None:
    reports = [
        FileReport(
            "cfg/a.yaml",
            [
                Diagnostic(
                    Severity.ERROR, "invalid-time", "slurm.time", 9, 9, "'4h' is bad", "use M"
                ),
                Diagnostic(
                    Severity.WARNING, "nsys-diagnostic-only", "slurm.nsys_enabled", 3, 17, "on"
                ),
                Diagnostic(Severity.ERROR, "yaml-syntax", "", 2, 1, "no key", None),
            ],
        ),
        FileReport("b.yaml", []),
    ]
    assert annotate(reports) == (
        "::error file=cfg/a.yaml,line=9,col=9,title=automodel-launch invalid-time::"
        "slurm.time: '4h' is bad (hint: use M)\n"
        "::warning file=cfg/a.yaml,line=3,col=17,title=automodel-launch nsys-diagnostic-only::"
        "slurm.nsys_enabled: on\n"
        "::error file=cfg/a.yaml,line=2,col=1,title=automodel-launch yaml-syntax::no key\n"
    )


def test_escaping() -> None:
    diag = Diagnostic(Severity.ERROR, "x", "p", 1, 2, "100% sure\r\nnext line", "a:b, c")
    out = annotate([FileReport("dir,1/a:b.yaml", [diag])])
    assert out == (
        "::error file=dir%2C1/a%3Ab.yaml,line=1,col=2,title=automodel-launch x::"
        "p: 100%25 sure\\r\\nnext line (hint: a:b, c)\n"
    )  # control characters never reach a reporter: the Diagnostic shows them escaped
    assert out.count("\n") == 1


def test_a_real_run() -> None:
    broken = ROOT / "examples" / "broken.yaml"
    reports = [validate_path(broken, offline_settings())]
    out = io.StringIO()
    write_report(reports, "github", out, strict=False)
    lines = out.getvalue().splitlines()
    assert len(lines) == 7
    assert lines[0].startswith(f"::error file={broken},line=6,col=13,title=automodel-launch ")
    assert lines[-1].startswith(f"::warning file={broken},line=15,col=20,")
    assert all(line.startswith(("::error file=", "::warning file=")) for line in lines)


def test_nothing_to_say() -> None:
    assert annotate([FileReport("a.yaml")]) == ""


def test_a_note_is_a_notice() -> None:
    note = Diagnostic(Severity.NOTE, "sbatch-estimate", "slurm", 1, 1, "Job 5 to start at X")
    assert annotate([FileReport("a.yaml", [note])]) == (
        "::notice file=a.yaml,line=1,col=1,title=automodel-launch sbatch-estimate::"
        "slurm: Job 5 to start at X\n"
    )
