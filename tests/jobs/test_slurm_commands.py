"""Asking Slurm about jobs and cancelling them, with stand-ins for squeue, sacct and
scancel first on PATH: which command answers, what each is given, and what the user
learns when one fails, hangs or says what no Slurm says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.states import FINISHED
from automodel_launch.launchers.slurm import jobs as slurm
from tests.jobs.test_slurm import manifest
from tests.support.fake_slurm import CAPTURED, FakeSlurm

TIMED_OUT = "3|TIMEOUT|0:15|2026-11-30T10:00:00|2026-11-30T10:20:01|node[1-2]|00:20:00|None"
FORGED = (
    "the job's scheduler id '--me' is not a Slurm job id (its manifest was changed?): "
    "Slurm was not asked"
)


def forged(job: Manifest, scheduler_id: str) -> Manifest:
    """A manifest whose id was edited by hand, past whatever checks reading it."""
    object.__setattr__(job, "scheduler_id", scheduler_id)
    return job


def status(job_dir: Path, scheduler_id: str | None = "3", **details: Any) -> Any:
    (shown,) = slurm.statuses([manifest(job_dir, scheduler_id, **details)])
    return shown


def test_squeue_answers_for_a_job_it_lists_and_sacct_is_not_asked(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.answer("squeue", (CAPTURED / "squeue.json").read_text())
    fake_slurm.answer("sacct", TIMED_OUT)
    shown = status(tmp_path)
    assert (shown.state, shown.exit_code, shown.note) == ("FAILED", 3, None)
    assert fake_slurm.calls == ["squeue --json"]


def test_a_job_squeue_has_forgotten_is_asked_of_accounting(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.squeue({"job_id": 8})
    fake_slurm.answer("sacct", TIMED_OUT + "\n3|COMPLETED|0:0|||||\n")
    job = manifest(tmp_path, time="00:05:00")
    (shown,) = slurm.statuses([job])
    assert (shown.state, shown.scheduler_state, shown.exit_code) == ("TIMEOUT", "TIMEOUT", 143)
    assert (shown.nodes, shown.time_limit, shown.note) == ("node[1-2]", "00:20:00", None)
    assert (shown.manifest, shown.log_path, shown.reason) == (job, f"{tmp_path}/fails_3.out", None)
    assert fake_slurm.calls == [
        "squeue --json",
        "sacct -n -P -X --jobs=3 -o JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason",
    ]
    fake_slurm.answer("sacct", "3|PENDING||Unknown|Unknown|None assigned||Priority\n")
    (pending,) = slurm.statuses([job])
    assert (pending.state, pending.reason, pending.time_limit) == (
        "PENDING", "Priority", "00:05:00"
    )  # fmt: skip


def test_a_job_state_given_as_a_list_is_read(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": ["RUNNING", "COMPLETING"], "exit_code": 0})
    shown = status(tmp_path)
    assert (shown.state, shown.scheduler_state, shown.exit_code) == ("RUNNING", "RUNNING", None)


def test_accounting_without_a_line_or_refusing_leaves_the_job_directory(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.squeue()
    fake_slurm.answer("sacct", "Slurm accounting storage is disabled\n", code=1)
    refused = status(tmp_path)
    assert (refused.state, refused.note) == ("UNKNOWN", slurm.NO_ACCOUNTING)
    fake_slurm.answer("sacct", "\n")
    assert status(tmp_path).note == slurm.NO_ACCOUNTING
    (tmp_path / "exit_code").write_text("0\n")
    shown = status(tmp_path)
    assert (shown.state, shown.exit_code, shown.note) == ("COMPLETED", 0, None)


def test_no_sacct_on_path_leaves_the_job_directory(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue()
    shown = status(tmp_path)
    assert (shown.state, shown.note) == ("UNKNOWN", slurm.NO_ACCOUNTING)


@pytest.mark.parametrize(
    ("said", "note"),
    [("²:0", "sacct gave the exit code '²:0'"),
     ("x", "sacct gave a line this version cannot read (x)")],
)  # fmt: skip
def test_an_unreadable_sacct_line_is_a_note(
    fake_slurm: FakeSlurm, tmp_path: Path, said: str, note: str
) -> None:
    fake_slurm.squeue()
    fake_slurm.answer("sacct", f"3|FAILED|{said}|||||\n" if ":" in said else f"3|{said}")
    shown = status(tmp_path)
    assert (shown.state, shown.note) == ("UNKNOWN", note)


def test_sacct_that_hangs_is_a_note(
    fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(slurm.TIMEOUT_VARIABLE, "0.5")
    fake_slurm.squeue()
    fake_slurm.hang("sacct")
    assert status(tmp_path).note == "sacct did not answer within 0.5s"


@pytest.mark.parametrize(
    ("stdout", "note"),
    [('{"jobs": null}', "squeue --json gave no job list"),
     ("[" * 100_000, "squeue --json gave JSON nested 100000 deep (at most 64 is read)"),
     (b"\xff\xfe", "squeue --json gave no JSON (Expecting value: line 1 column 1 (char 0))")],
)  # fmt: skip
def test_an_unreadable_squeue_answer_is_a_note_and_sacct_is_not_asked(
    fake_slurm: FakeSlurm, tmp_path: Path, stdout: str | bytes, note: str
) -> None:
    fake_slurm.answer("squeue", stdout)
    fake_slurm.answer("sacct", TIMED_OUT)
    shown = status(tmp_path)
    assert (shown.state, shown.note) == ("UNKNOWN", note)
    assert fake_slurm.called("sacct") == []


def test_an_unreadable_job_of_squeue_is_a_note(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue({"job_id": 3, "end_time": "1e400"}, {"job_id": 4, "job_state": []})
    answer = fake_slurm.root / "squeue.out"
    answer.write_text(answer.read_text().replace('"1e400"', "1e400"))
    fake_slurm.answer("sacct", TIMED_OUT)
    shown = status(tmp_path)
    assert (shown.state, shown.note) == (
        "UNKNOWN",
        "squeue --json gave a job this version cannot read (end_time: Input should be a finite "
        "number or Input should be a valid dictionary or instance of NumberSet)",
    )
    (tmp_path / "exit_code").write_text("2\n")
    assert (status(tmp_path).state, status(tmp_path).exit_code) == ("FAILED", 2)
    assert fake_slurm.called("sacct") == []


def test_squeue_failing_is_a_note(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    said = "squeue: error: Unable to contact slurm controller (connect failure)\n"
    fake_slurm.answer("squeue", stderr="squeue: debug: x\n" + said, code=1)
    shown = status(tmp_path)
    assert (shown.state, shown.note) == (
        "UNKNOWN", "squeue failed: squeue: debug: x"
    )  # fmt: skip
    fake_slurm.answer("squeue", stderr=b"\x1b]0;hf_" + b"c" * 34 + b"\x07\n", code=2)
    assert status(tmp_path).note == "squeue failed: \\x1b]0;***\\x07"


def test_squeue_that_hangs_is_a_note(
    fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv(slurm.TIMEOUT_VARIABLE, "0.5")
    fake_slurm.hang("squeue")
    start = time.monotonic()
    assert status(tmp_path).note == "squeue did not answer within 0.5s"
    assert time.monotonic() - start < 3


def test_squeue_that_says_too_much_is_not_read(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.tool("squeue", "exec /usr/bin/head -c 70000000 /dev/zero")
    assert status(tmp_path).note == "squeue said more than this tool reads: not read"


def test_no_squeue_on_path_is_a_note(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    assert status(tmp_path).note == "squeue is not on PATH"


def test_an_id_that_is_no_slurm_id_is_never_asked_about(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.squeue({"job_id": 3})
    fake_slurm.answer("sacct", TIMED_OUT)
    fake_slurm.answer("scancel")
    job = forged(manifest(tmp_path), "--me")
    (shown,) = slurm.statuses([job])
    assert (shown.state, shown.note, shown.log_path) == ("UNKNOWN", FORGED, None)
    with pytest.raises(slurm.SlurmUnavailable) as cancelled:
        slurm.cancel(job)
    assert str(cancelled.value) == FORGED
    with pytest.raises(slurm.SlurmUnavailable) as logged:
        slurm.logs(job, follow=False)
    assert str(logged.value) == FORGED
    assert fake_slurm.called("sacct") == fake_slurm.called("scancel") == []


def test_a_job_that_was_never_submitted(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue()
    fake_slurm.answer("sacct", TIMED_OUT)
    shown = status(tmp_path, None)
    assert (shown.state, shown.note, shown.log_path) == (
        "UNKNOWN", "the job has no Slurm job id: it was never submitted", None
    )  # fmt: skip
    with pytest.raises(slurm.SlurmUnavailable) as cancelled:
        slurm.cancel(manifest(tmp_path, None))
    assert str(cancelled.value) == "the job has no Slurm job id: nothing to cancel"
    with pytest.raises(slurm.SlurmUnavailable) as logged:
        slurm.logs(manifest(tmp_path, None), follow=True)
    assert str(logged.value) == "the job has no Slurm job id: it was never submitted"
    assert fake_slurm.called("sacct") == []


def test_cancel_puts_the_id_after_a_double_dash_and_waits_for_the_end(
    fake_slurm: FakeSlurm, tmp_path: Path
) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "RUNNING"})
    cancelled = fake_slurm.root / "squeue.cancelled"
    fake_slurm.squeue({"job_id": 3, "job_state": "CANCELLED", "exit_code": 15})
    (fake_slurm.root / "squeue.out").rename(cancelled)
    fake_slurm.squeue({"job_id": 3, "job_state": "RUNNING"})
    fake_slurm.tool("scancel", f'/bin/cp "{cancelled}" "{fake_slurm.root}/squeue.out"')
    import time

    start = time.monotonic()
    shown = slurm.cancel(manifest(tmp_path), wait=60)
    assert time.monotonic() - start < 30  # it ended: no waiting on
    assert (shown.state, shown.exit_code) == ("CANCELLED", 143)
    assert fake_slurm.called("scancel") == ["scancel -- 3"]
    assert (tmp_path / "cancelled").exists()


def test_cancel_stops_waiting_after_its_time(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "RUNNING"})
    fake_slurm.answer("scancel")
    shown = slurm.cancel(manifest(tmp_path), wait=2.0)
    assert shown.state == "RUNNING"
    assert len(fake_slurm.called("squeue")) >= 5  # before, after, and every 0.3 s while waiting


@pytest.mark.parametrize("state", sorted(FINISHED))
def test_a_finished_job_is_not_cancelled(fake_slurm: FakeSlurm, tmp_path: Path, state: str) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": state})
    fake_slurm.answer("scancel")
    assert slurm.cancel(manifest(tmp_path)).state == state
    assert fake_slurm.called("scancel") == []


def test_scancel_refusing_says_why(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "PENDING"})
    said = "scancel: error: Kill job error on job id 3: Access/permission denied"
    fake_slurm.answer("scancel", stderr=said + "\n", code=1)
    with pytest.raises(slurm.SlurmUnavailable) as refused:
        slurm.cancel(manifest(tmp_path))
    assert str(refused.value) == f"scancel refused: {said}"
    assert not (tmp_path / "cancelled").exists()


def test_scancel_missing_or_hanging(
    fake_slurm: FakeSlurm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "PENDING"})
    with pytest.raises(slurm.SlurmUnavailable) as missing:
        slurm.cancel(manifest(tmp_path))
    assert str(missing.value) == "scancel is not on PATH"
    monkeypatch.setenv(slurm.TIMEOUT_VARIABLE, "0.5")
    fake_slurm.hang("scancel")
    with pytest.raises(slurm.SlurmUnavailable) as hung:
        slurm.cancel(manifest(tmp_path))
    assert str(hung.value) == "scancel did not answer within 0.5s"


def test_a_command_that_cannot_start_is_said(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.unrunnable("squeue")
    assert status(tmp_path).note == "cannot run squeue: Exec format error"


def test_logs_before_the_job_wrote_any(fake_slurm: FakeSlurm, tmp_path: Path) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "PENDING", "state_reason": "Priority"})
    with pytest.raises(slurm.SlurmUnavailable) as caught:
        slurm.logs(manifest(tmp_path), follow=False)
    assert str(caught.value) == (
        f"no output yet: the job is PENDING (Priority); {tmp_path}/fails_3.out is not there"
    )
    fake_slurm.squeue({"job_id": 3, "job_state": "PENDING", "state_reason": ""})
    with pytest.raises(slurm.SlurmUnavailable) as bare:
        slurm.logs(manifest(tmp_path), follow=False)
    assert str(bare.value) == (
        f"no output yet: the job is PENDING; {tmp_path}/fails_3.out is not there"
    )


def test_logs_follow_to_the_end_and_exit_with_the_job(
    fake_slurm: FakeSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_slurm.squeue({"job_id": 3, "job_state": "FAILED", "exit_code": 512})
    (tmp_path / "fails_3.out").write_text("step 1\n")
    assert slurm.logs(manifest(tmp_path), follow=True) == 2
    assert slurm.logs(manifest(tmp_path), follow=False) == 0
    assert capsys.readouterr().out == "step 1\nstep 1\n"


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, 30.0), ("0.5", 0.5), ("3600", 3600.0), ("3601", 30.0), ("0", 30.0), ("-1", 30.0),
     ("nan", 30.0), ("inf", 30.0), ("x", 30.0), ("", 30.0)],
)  # fmt: skip
def test_the_timeout_of_slurms_commands(
    monkeypatch: pytest.MonkeyPatch, value: str | None, seconds: float
) -> None:
    if value is None:
        monkeypatch.delenv(slurm.TIMEOUT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(slurm.TIMEOUT_VARIABLE, value)
    assert slurm.timeout() == seconds
    assert slurm.timeout(120.0) == (120.0 if seconds == 30.0 else seconds)


def test_logs_follow_until_the_job_ends(
    fake_slurm: FakeSlurm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "fails_3.out"
    log.write_text("[rank0]:a\n[rank1]:b\n")
    fake_slurm.squeue({"job_id": 3, "job_state": "COMPLETED", "exit_code": 0})
    done = fake_slurm.root / "squeue.done"
    (fake_slurm.root / "squeue.out").rename(done)
    fake_slurm.squeue({"job_id": 3, "job_state": "RUNNING"})
    seen = fake_slurm.root / "seen"
    fake_slurm.tool(
        "squeue",
        f'if [ -e "{seen}" ]; then printf "[rank0]:c\\n" >> "{log}"; /bin/cat "{done}"; '
        f'else : > "{seen}"; /bin/cat "{fake_slurm.root}/squeue.out"; fi',
    )
    assert slurm.logs(manifest(tmp_path), follow=True, rank=0) == 0
    assert capsys.readouterr().out == "a\nc\n"
