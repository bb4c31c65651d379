"""What squeue, sacct, scancel and sbatch say cannot crash, hang or leak through the CLI.

Stand-ins for Slurm's commands, alone on PATH, print hostile output: bytes that are not
UTF-8, terminal escape sequences, tokens of every format (tests/hostile/tokens.py), huge
numbers, JSON nested 100,000 deep, ``null`` and values of the wrong type, exits that are
not 0, answers that never come (the timeout is cut to 1 s). Each case runs the real
command line and checks: the documented exit code, one ``error:`` line when it fails
(the last), no traceback, no byte of a token in stdout, stderr, the registry or the
job's manifest, no raw escape character, and that scancel is never given an id shaped
like an option (the stand-ins record their arguments).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.hostile.tokens import KINDS, Token, make
from tests.support.fake_slurm import FakeSlurm

SLURM = (
    'slurm:\n  time: "04:00:00"\nmodel:\n  name: tiny\n'
    "recipe: TrainFinetuneRecipeForNextTokenPrediction\n"
)
TOKENS = [make(kind, 7) for kind in KINDS if not make(kind, 7).needs_key_name]
BUDGET = 30.0
"""Seconds one command may take here: a hang is cut at 1 s, the rest is start-up."""


@pytest.fixture(autouse=True)
def _hangs_cut_at_one_second(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOMODEL_LAUNCH_SLURM_TIMEOUT", "1")


def hostile(token: Token) -> bytes:
    """A text of the worst kind: escapes, a bidi override, bytes that are not UTF-8, a token."""
    return b"\x1b]0;title\x07\x1b[2J\xe2\x80\xae\xff\xfe " + token.value.encode() + b" end"


def cli(*args: str, cwd: Path) -> CompletedProcess[str]:
    start = time.monotonic()
    done = run_cli(*args, cwd=cwd)
    assert time.monotonic() - start < BUDGET
    assert done.returncode in (0, 1, 2), done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    return done


def failed(done: CompletedProcess[str], line: str) -> None:
    """Exit 1 with ``line`` as the one error line, last on stderr."""
    assert done.returncode == 1, done.stderr
    errors = [text for text in done.stderr.splitlines() if text.startswith("error:")]
    assert errors == [line]
    assert done.stderr.splitlines()[-1] == line


def no_token(tmp_path: Path, done: CompletedProcess[str], *tokens: Token) -> None:
    """No byte of any token in the output, the registry or any job directory's files."""
    stored = b"".join(
        path.read_bytes()
        for folder in (tmp_path / "state", tmp_path / "jobs")
        if folder.exists()
        for path in folder.rglob("*")
        if path.is_file()
    )
    for token in tokens or TOKENS:
        for text in (done.stdout, done.stderr):
            assert token.middle not in text, token.kind
        assert token.middle.encode() not in stored, token.kind


def submitted(fake_slurm: FakeSlurm, tmp_path: Path, stdout: bytes = b"3\n") -> Path:
    """A Slurm job submitted through the CLI (sbatch --parsable said ``stdout``)."""
    (tmp_path / "slurm.yaml").write_text(SLURM)
    fake_slurm.answer("sbatch", stdout)
    job = tmp_path / "jobs" / "run1"
    done = cli(
        "submit", "slurm.yaml", "--no-preflight", "--no-check-paths", "--job-dir", str(job),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return job


def status(job: Path, cwd: Path) -> dict[str, Any]:
    done = cli("status", str(job), "--format", "json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    shown: dict[str, Any] = json.loads(done.stdout)
    no_token(cwd, done)
    return shown


def squeue_with(**fields: Any) -> str:
    """squeue --json of job 3 with ``fields``, each a JSON text put in as it is."""
    from tests.support.fake_slurm import CAPTURED

    template = json.loads((CAPTURED / "squeue.json").read_text())["jobs"][2]
    body = ", ".join(f'"{k}": {v}' for k, v in fields.items())
    rest = json.dumps({k: v for k, v in template.items() if k not in fields})
    return '{"errors": [], "jobs": [{' + body + ", " + rest[1:] + "]}"


@pytest.mark.parametrize(
    ("answer", "note"),
    [('{"jobs": null}', "squeue --json gave no job list"),
     ("[" * 100_000 + "]" * 100_000,
      "squeue --json gave JSON nested 100000 deep (at most 64 is read)"),
     ('{"jobs": [{"job_id": 3}]', "squeue --json gave no JSON (Expecting ',' delimiter: line 1 "
                                  "column 25 (char 24))"),
     (squeue_with(job_state="[]"), "squeue --json gave a job this version cannot read ("
      "job_state: Input should be a valid string or List should have at least 1 item after "
      "validation, not 0)"),
     (squeue_with(job_state='"FAILED"', end_time="1e400"),
      "squeue --json gave a job this version cannot read (end_time: Input should be a finite "
      "number or Input should be a valid dictionary or instance of NumberSet)"),
     (squeue_with(job_state='"FAILED"', exit_code="9" * 5000),
      "squeue --json gave a job this version cannot read (exit_code: Input should be a valid "
      "integer or Input should be a valid dictionary or instance of ExitStatus)"),
     (squeue_with(state_reason="null", nodes="{}"), "squeue --json gave a job this version "
      "cannot read (nodes: Input should be a valid string)"),
     ('{"errors": [], "jobs": [{"job_id": ' + "3" * 5000 + "}]}",
      "Slurm no longer knows the job (no accounting) and it left no exit status")],
)  # fmt: skip
def test_squeue_answers_no_slurm_gives(
    fake_slurm: FakeSlurm, tmp_path: Path, answer: str, note: str
) -> None:
    job = submitted(fake_slurm, tmp_path)
    fake_slurm.answer("squeue", answer)
    fake_slurm.answer("sacct", "Slurm accounting storage is disabled\n", code=1)
    shown = status(job, tmp_path)
    assert (shown["state"], shown["note"]) == ("UNKNOWN", note)
    # a job whose id cannot be read is not the job: accounting is asked, as for one not listed
    assert len(fake_slurm.called("sacct")) == (0 if "squeue" in note else 1)


def test_hostile_text_of_squeue_is_cleaned_in_every_view(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    job = submitted(fake_slurm, tmp_path)
    reason = hostile(TOKENS[0]).decode("utf-8", "replace")
    nodes = hostile(TOKENS[1]).decode("utf-8", "replace")
    fake_slurm.answer(
        "squeue",
        squeue_with(job_state='"PENDING"', state_reason=json.dumps(reason),
                    nodes=json.dumps(nodes), cluster='"c1"'),
    )  # fmt: skip
    shown = status(job, tmp_path)
    assert shown["state"] == "PENDING"
    assert shown["reason"] == "\\x1b]0;title\\x07\\x1b[2J\\u202e\ufffd\ufffd *** end"
    assert shown["nodes"] == "\\x1b]0;title\\x07\\x1b[2J\\u202e\ufffd\ufffd *** end"
    for args in (("jobs", "--format", "json"), ("jobs",), ("status", str(job))):
        done = cli(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        no_token(tmp_path, done)


def test_squeue_failing_with_hostile_text(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    job = submitted(fake_slurm, tmp_path)
    fake_slurm.answer("squeue", b"\xff", stderr=hostile(TOKENS[2]) + b"\nmore\n", code=1)
    shown = status(job, tmp_path)
    assert shown["state"] == "UNKNOWN"
    assert shown["note"] == "squeue failed: \\x1b]0;title\\x07\\x1b[2J\\u202e\ufffd\ufffd *** end"
    done = cli("jobs", cwd=tmp_path)
    no_token(tmp_path, done)


def test_squeue_that_never_answers(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    job = submitted(fake_slurm, tmp_path)
    fake_slurm.hang("squeue")
    shown = status(job, tmp_path)
    assert (shown["state"], shown["note"]) == ("UNKNOWN", "squeue did not answer within 1s")


@pytest.mark.parametrize(
    ("line", "note"),
    [(b"3|FAILED|\xc2\xb2:0|||||", "sacct gave the exit code '\xb2:0'"),
     (b"3|FAILED|" + b"1" * 5000 + b":0|||||", "sacct gave a line this version cannot read (FAILED|"
      + "1" * 73 + "..." + "1" * 33 + ":0|||||)"),
     (b"3|\x1b[2J|1:0|||||", "sacct gave the state '\\\\x1b[2J'"),
     (b"3|FAILED|1:0", "sacct gave a line this version cannot read (FAILED|1:0)")],
)  # fmt: skip
def test_sacct_lines_no_slurm_gives(
    fake_slurm: FakeSlurm, tmp_path: Path, line: bytes, note: str
) -> None:
    job = submitted(fake_slurm, tmp_path)
    fake_slurm.answer("squeue", '{"errors": [], "jobs": []}')
    fake_slurm.answer("sacct", line + b"\n")
    shown = status(job, tmp_path)
    assert (shown["state"], shown["note"]) == ("UNKNOWN", note)


def test_hostile_text_of_sacct_is_cleaned(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    job = submitted(fake_slurm, tmp_path)
    fake_slurm.answer("squeue", '{"errors": [], "jobs": []}')
    text = hostile(TOKENS[3]).replace(b"|", b"")
    fake_slurm.answer(
        "sacct", b"3|FAILED|2:0|Unknown|Unknown|" + text + b"|" + text + b"|" + text + b"\n"
    )
    shown = status(job, tmp_path)
    assert (shown["state"], shown["exit_code"]) == ("FAILED", 2)
    cleaned = "\\x1b]0;title\\x07\\x1b[2J\\u202e\ufffd\ufffd *** end"
    assert (shown["nodes"], shown["reason"], shown["time_limit"]) == (cleaned,) * 3


def test_cancel_never_hands_scancel_an_option(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    """``scancel --me`` cancels every job of the user: an id read from a manifest edited
    by hand never gets there, whichever check stops it first."""
    job = submitted(fake_slurm, tmp_path)
    manifest = job / "manifest.json"
    data = json.loads(manifest.read_text())
    fake_slurm.answer("squeue", squeue_with(job_state='"RUNNING"'))
    fake_slurm.answer("scancel")
    for forged in ("--me", "-u", "--user=root", "3 --me", "", "3;4"):
        manifest.write_text(json.dumps({**data, "scheduler_id": forged}))
        done = cli("cancel", str(job), cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ")
    assert fake_slurm.called("scancel") == []
    manifest.write_text(json.dumps(data))
    fake_slurm.tool(
        "scancel", f'/bin/cp "{fake_slurm.root}/cancelled.json" "{fake_slurm.root}/squeue.out"'
    )
    (fake_slurm.root / "cancelled.json").write_text(squeue_with(job_state='"CANCELLED"'))
    done = cli("cancel", str(job), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "state: CANCELLED"
    assert fake_slurm.called("scancel") == ["scancel -- 3"]


def test_scancel_refusing_or_hanging(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    job = submitted(fake_slurm, tmp_path)
    fake_slurm.answer("squeue", squeue_with(job_state='"RUNNING"'))
    fake_slurm.answer("scancel", stderr=hostile(TOKENS[4]), code=1)
    done = cli("cancel", str(job), cwd=tmp_path)
    failed(done, "error: scancel refused: \\x1b]0;title\\x07\\x1b[2J\\u202e\ufffd\ufffd *** end")
    no_token(tmp_path, done)
    fake_slurm.hang("scancel")
    failed(cli("cancel", str(job), cwd=tmp_path), "error: scancel did not answer within 1s")
    assert not (job / "cancelled").exists()


@pytest.mark.parametrize(
    "stdout",
    [b"", b"--me\n", b"3;--me\n", b"3\n4\n", b"abc\n", b"3;\xff\n", b"3 4\n", b"0\n",
     b"99999999999\n", b"3;" + TOKENS[5].value.encode() + b"\n", hostile(TOKENS[6]) + b"\n"],
)  # fmt: skip
def test_sbatch_parsable_that_is_no_job_id(
    fake_slurm: FakeSlurm, tmp_path: Path, stdout: bytes
) -> None:
    (tmp_path / "slurm.yaml").write_text(SLURM)
    fake_slurm.answer("sbatch", stdout)
    job = tmp_path / "jobs" / "run1"
    done = cli(
        "submit", "slurm.yaml", "--no-preflight", "--no-check-paths", "--job-dir", str(job),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    [error] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert error.startswith("error: sbatch answered with no job id this tool can read: ")
    assert error.endswith("; the job may have been submitted: look with squeue before "
                          "submitting again")  # fmt: skip
    assert done.stderr.splitlines()[-1] == error
    assert json.loads((job / "manifest.json").read_text())["scheduler_id"] is None  # kept
    assert cli("jobs", cwd=tmp_path).stdout == "no jobs recorded\n"
    no_token(tmp_path, done)


def test_sbatch_parsable_with_a_cluster(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    job = submitted(fake_slurm, tmp_path, b"42;gpu-east\n")
    data = json.loads((job / "manifest.json").read_text())
    assert (data["scheduler_id"], data["cluster"]) == ("42", "gpu-east")


def test_sbatch_saying_hostile_things(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    (tmp_path / "slurm.yaml").write_text(SLURM)
    job = tmp_path / "jobs" / "run1"
    args = ("submit", "slurm.yaml", "--no-preflight", "--no-check-paths", "--job-dir", str(job))
    cleaned = "\\x1b]0;title\\x07\\x1b[2J\\u202e\ufffd\ufffd *** end"
    fake_slurm.answer("sbatch", stderr=hostile(TOKENS[7]) + b"\nsbatch: Job 9 to start\n")
    dry = cli(*args, "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout == f"sbatch --test-only accepts the job: {cleaned}; sbatch: Job 9 to start\n"
    no_token(tmp_path, dry)
    fake_slurm.answer("sbatch", stderr=hostile(TOKENS[8]) + b"\n", code=1)
    refused = cli(*args, cwd=tmp_path)
    failed(refused, f"error: sbatch refused the job: {cleaned}")
    assert not job.exists()
    no_token(tmp_path, refused)
    fake_slurm.hang("sbatch")
    failed(cli(*args, cwd=tmp_path), "error: sbatch did not answer within 1s")
    assert not job.exists()


def test_the_stand_ins_are_alone_on_path(fake_slurm: FakeSlurm) -> None:
    assert os.environ["PATH"] == fake_slurm.path
