"""``jobs`` without typer: the same options as the typer command, the same output, the
same exit codes; anything else is the typer command's, and rich draws what only it can."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from automodel_launch.cli import jobs_list
from automodel_launch.cli.app import run_app
from tests.cli.typer_options import typer_options
from tests.jobs.sweep_helpers import SWEEP, job, record, sweep
from tests.support.fake_slurm import FakeSlurm

HALF_HOUR = "2026-11-30T10:00:00|2026-11-30T10:30:00"


def test_fast_path_knows_every_jobs_option() -> None:
    assert set(jobs_list.VALUED) | jobs_list.TYPER_ONLY == typer_options("jobs")


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--watch"], ["--reindex", "."], ["--interval", "2"], ["--no-such"], ["x"],
     ["--format"], ["--limit"], ["--limit", "-1"], ["--limit", "1.5"], ["--limit", "+3"],
     ["--limit", "1234567890"], ["--limit", "\u0663"], ["--limit="], ["--", "--state"],
     ["--state", "running", "--state", "failed"], ["-f", "json"]],
)  # fmt: skip
def test_anything_unusual_goes_to_typer(args: list[str]) -> None:
    assert jobs_list.parse(args) is None


def test_the_listing_options_are_read() -> None:
    assert jobs_list.parse([]) == {}
    assert jobs_list.parse(["--format=json", "--limit", "007", "--since", "2d", "--state=x",
                            "--launcher", "local"]) == {
        "output_format": "json", "limit": 7, "since": "2d", "state": "x", "launcher": "local",
    }  # fmt: skip
    assert jobs_list.parse(["--launcher", "--state"]) == {"launcher": "--state"}


@pytest.mark.parametrize(
    ("args", "option", "message"),
    [(["--format", "yaml"], "--format", "use text or json"),
     (["--launcher", "k8s"], "--launcher", "'k8s' is no launcher: use slurm, skypilot or local"),
     (["--state", "done"], "--state", "'done' is no job state: use one of PENDING, RUNNING, "
      "COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, REQUEUED, UNKNOWN"),
     (["--since", "yesterday"], "--since", "'yesterday' is not a time span like 2d, 12h, 30m, 1w"),
     (["--since", "99999w"], "--since", "'99999w' reaches back before 1970, older than any job: "
      "give a time span like 2d, 12h, 30m, 1w (leave the option out for every job)"),
     (["--state", "PENDING", "--format", "csv"], "--format", "use text or json")],
)  # fmt: skip
def test_a_bad_value_is_reported_by_typer_as_before(
    args: list[str], option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    given = jobs_list.parse(args) or {}
    wrong = jobs_list.problem(given.get("launcher"), given.get("state"), given.get("since"),
                              given.get("output_format", "text"))  # fmt: skip
    assert wrong == (option, message)
    assert jobs_list.fast(args) is None
    assert capsys.readouterr().out == ""
    assert run_app(["jobs", *args]) == 2
    assert message.split(",")[0] in capsys.readouterr().err


@pytest.fixture
def registry(fake_slurm: FakeSlurm, tmp_path: Path) -> FakeSlurm:
    """A sweep of 3 points (accounting knows them), two single jobs: one finished (its
    directory says so), one that nothing knows any more."""
    sweep(tmp_path / "jobs", 3)
    done = job(tmp_path / "jobs" / "done", "b00000000000", "99", name="done",
               submitted_at="2026-11-29T16:49:19Z")  # fmt: skip
    (Path(done.job_dir) / "exit_code").write_text("3\n")
    lost = job(tmp_path / "jobs" / "lost", "c00000000000", "98", name="lost",
               submitted_at="2026-11-28T16:49:19Z")  # fmt: skip
    record(done, lost)
    fake_slurm.squeue()
    fake_slurm.answer(
        "sacct", "".join(f"100_{n}|COMPLETED|0:0|{HALF_HOUR}|n1||\n" for n in range(3))
    )
    return fake_slurm


@pytest.mark.parametrize(
    "args",
    [[], ["--limit", "1"], ["--limit=2"], ["--limit", "0"], ["--format", "json"],
     ["--format", "json", "--limit", "1"], ["--state", "failed"], ["--state=completed"],
     ["--launcher", "slurm"], ["--launcher", "local"], ["--since", "2000w"], ["--since", "1s"],
     ["--state", "timeout"]],
)  # fmt: skip
def test_the_fast_path_prints_what_the_typer_command_prints(
    registry: FakeSlurm, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert jobs_list.fast(args) == 0
    fast = capsys.readouterr()
    assert run_app(["jobs", *args]) == 0
    typed = capsys.readouterr()
    assert (fast.out, fast.err) == (typed.out, typed.err)
    assert fast.out


def test_what_the_listing_shows(registry: FakeSlurm, capsys: pytest.CaptureFixture[str]) -> None:
    assert jobs_list.fast(["--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ID            NAME  LAUNCHER  SCHEDULER ID  STATE ")
    assert lines[1].split()[:8] == [SWEEP, "lr", "slurm", "100", "3", "points:", "3",
                                    "COMPLETED"]  # fmt: skip
    assert lines[2].split()[:5] == ["b00000000000", "done", "slurm", "99", "FAILED"]
    assert lines[3:] == ["(1 older row not shown: --limit 0 shows every one)"]
    assert jobs_list.fast(["--state", "running"]) == 0
    assert capsys.readouterr().out == "no jobs recorded that match\n"
    assert jobs_list.fast(["--launcher", "skypilot"]) == 0
    assert capsys.readouterr().out == "no jobs recorded\n"
    assert jobs_list.fast(["--format", "json", "--state", "unknown"]) == 0
    listed = json.loads(capsys.readouterr().out)["jobs"]
    assert [(j["id"], j["state"]) for j in listed] == [("c00000000000", "UNKNOWN")]


def test_a_damaged_record_is_a_warning(
    registry: FakeSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    db = sqlite3.connect(tmp_path / "state" / "jobs.sqlite")
    with db:
        db.execute("UPDATE jobs SET manifest = '{}' WHERE id = 'c00000000000'")
    db.close()
    assert jobs_list.fast(["--limit", "0"]) == 0
    shown = capsys.readouterr()
    assert shown.err.startswith("warning: a record of the job registry ")
    assert "is not a job manifest (id: Field required; 8 more)" in shown.err
    assert len(shown.out.splitlines()) == 3


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


@pytest.mark.parametrize(
    "environ",
    [{}, {"FORCE_COLOR": "1"}, {"FORCE_COLOR": ""}, {"FORCE_COLOR": "0"},
     {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "1"},
     {"TTY_COMPATIBLE": "", "FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "2"}, {"NO_COLOR": "1"}],
)  # fmt: skip
@pytest.mark.parametrize("stream", [io.StringIO, _Terminal, _Closed])
def test_a_terminal_as_rich_sees_one(environ: dict[str, str], stream: type[io.StringIO]) -> None:
    out = stream()
    assert jobs_list.rich_terminal(out, environ) == Console(file=out, _environ=environ).is_terminal


def test_what_only_rich_can_draw_is_drawn_by_rich(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    made = job(tmp_path / "jobs" / "a", "d00000000000", None, name=":smile: run",
               launcher="interactive")  # fmt: skip
    record(made)
    assert jobs_list.fast([]) == 0
    drawn = capsys.readouterr().out
    smile = "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}"
    assert drawn.splitlines()[1].split()[:3] == ["d00000000000", smile, "run"]
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich draws in colour, for the terminal's width
    monkeypatch.setenv("COLUMNS", "100")
    assert jobs_list.fast([]) == 0
    coloured = capsys.readouterr().out
    assert "\x1b[1mID" in coloured
    plain = re.sub(r"\x1b\[[0-9;]*m", "", coloured).splitlines()
    assert max(len(line) for line in plain) == 100 and len(plain) > 2  # the path folded


def test_the_default_rows_and_what_is_left_out(
    registry: FakeSlurm, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(jobs_list, "DEFAULT_ROWS", 1)
    assert jobs_list.fast([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[0] == SWEEP
    assert lines[2:] == ["(2 older rows not shown: --limit 0 shows every one)"]
    assert jobs_list.fast(["--format", "json"]) == 0  # JSON: every job unless --limit
    assert len(json.loads(capsys.readouterr().out)["jobs"]) == 5
    assert jobs_list.fast(["--since", "1s"]) == 0  # every job was submitted in 2026-11
    assert capsys.readouterr().out == "no jobs recorded\n"
    assert jobs_list.parse(["--limit", "123456789"]) == {"limit": 123456789}


def test_rich_draws_for_a_terminal_only(
    registry: FakeSlurm, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    drawn: list[str] = []
    real = jobs_list.console

    def console() -> object:
        drawn.append("rich")
        return real()

    monkeypatch.setattr(jobs_list, "console", console)
    assert jobs_list.fast([]) == 0  # a pipe: no rich
    assert drawn == [] and capsys.readouterr().out.startswith("ID ")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    jobs_list.show(jobs_list.listing(None, None, None, None, True), "text")
    assert drawn == ["rich"] and "\x1b[1m" in terminal.getvalue()  # bold headers
