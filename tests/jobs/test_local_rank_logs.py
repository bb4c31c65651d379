"""``logs --rank N`` of a foreground local run: its output went to the terminal, and
torchrun kept each rank's own under ``torchrun/`` in the job directory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from automodel_launch.jobs.files import MAX_ENTRIES, _folders, rank_logs
from automodel_launch.jobs.manifest import Manifest, new_manifest
from automodel_launch.jobs.status import JobError
from automodel_launch.launchers.local.jobs import logs, process_start
from automodel_launch.launchers.local.submit import rank_tags, run_local


def foreground(tmp_path: Path) -> Manifest:
    """A foreground run that has ended (its leader exited; exit_code 3 recorded)."""
    leader = subprocess.Popen(["true"])
    start = process_start(leader.pid)
    leader.wait()
    job_dir = tmp_path / "run"
    job_dir.mkdir(exist_ok=True)
    config = tmp_path / "c.yaml"
    config.write_text("x: 1\n")
    manifest = new_manifest(
        name="run", launcher="interactive", job_dir=job_dir, config=config,
        argv=["automodel-launch", "submit", "c.yaml"], artifacts=["run.sh"], environ={},
    )  # fmt: skip
    (job_dir / "exit_code").write_text("3\n")
    return manifest.with_scheduler(
        str(leader.pid), pid=leader.pid, process_start=start, detached=False
    )


def rank_dir(job_dir: Path, run: str, attempt: int, rank: int, out: str, err: str) -> Path:
    folder = job_dir / "torchrun" / run / f"attempt_{attempt}" / str(rank)
    folder.mkdir(parents=True)
    (folder / "stdout.log").write_text(out)
    (folder / "stderr.log").write_text(err)
    return folder


def test_a_ranks_stdout_then_stderr_of_the_last_attempt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = foreground(tmp_path)
    job_dir = Path(manifest.job_dir)
    rank_dir(job_dir, "none_ab12", 0, 1, "first attempt\n", "")
    rank_dir(job_dir, "none_ab12", 1, 0, "rank 0\n", "")
    rank_dir(job_dir, "none_ab12", 1, 1, "step 1\nstep 2", "Traceback\nRuntimeError: boom\n")
    rank_dir(job_dir, "none_ab12", 10, 1, "attempt ten\n", "")  # numbers, not names
    assert logs(manifest, follow=False, rank=1) == 0
    assert capsys.readouterr().out == "attempt ten\n"
    (job_dir / "torchrun" / "none_ab12" / "attempt_10" / "1" / "stdout.log").unlink()
    (job_dir / "torchrun" / "none_ab12" / "attempt_10" / "1" / "stderr.log").unlink()
    assert logs(manifest, follow=True, rank=1) == 3  # the run's exit code
    assert capsys.readouterr().out == ""
    import shutil

    shutil.rmtree(job_dir / "torchrun" / "none_ab12" / "attempt_10")
    assert logs(manifest, follow=True, rank=1) == 3
    # each file's whole lines as read (stdout's, then stderr's), a last unended line at the end
    assert capsys.readouterr().out == "step 1\nTraceback\nRuntimeError: boom\nstep 2\n"


def test_the_newest_run_folder_is_read(tmp_path: Path) -> None:
    job_dir = tmp_path
    old = rank_dir(job_dir, "none_old", 0, 0, "old\n", "")
    new = rank_dir(job_dir, "none_new", 0, 0, "new\n", "")
    os.utime(old.parents[1], (1, 1))
    os.utime(new.parents[1], (2, 2))
    assert rank_logs(job_dir, 0) == [new / "stdout.log", new / "stderr.log"]
    os.utime(old.parents[1], (3, 3))
    assert rank_logs(job_dir, 0) == [old / "stdout.log", old / "stderr.log"]


def test_no_rank_logs_and_links_are_none(tmp_path: Path) -> None:
    assert rank_logs(tmp_path, 0) is None  # no torchrun/
    (tmp_path / "torchrun").mkdir()
    assert rank_logs(tmp_path, 0) is None  # no run
    (tmp_path / "torchrun" / "none_x").mkdir()
    assert rank_logs(tmp_path, 0) is None  # no attempt
    (tmp_path / "torchrun" / "none_x" / "attempt_0").mkdir()
    (tmp_path / "torchrun" / "none_x" / "not_an_attempt").mkdir()
    assert rank_logs(tmp_path, 0) is None  # no rank 0
    elsewhere = rank_dir(tmp_path / "other", "r", 0, 0, "secret\n", "")
    (tmp_path / "torchrun" / "none_x" / "attempt_0" / "0").symlink_to(elsewhere)
    assert rank_logs(tmp_path, 0) is None  # a link is no rank folder
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "torchrun").symlink_to(tmp_path / "other" / "torchrun")
    assert rank_logs(linked, 0) is None  # nor is a linked torchrun/


def test_a_folder_of_too_many_entries_is_read_no_further(tmp_path: Path) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for i in range(MAX_ENTRIES + 5):
        (many / f"d{i}").mkdir()
    assert len(_folders(many)) == MAX_ENTRIES
    (tmp_path / "file").touch()
    assert _folders(tmp_path / "file") == [] and _folders(tmp_path / "none") == []


def test_what_a_foreground_run_without_rank_logs_says(tmp_path: Path) -> None:
    manifest = foreground(tmp_path)
    with pytest.raises(JobError) as no_rank:
        logs(manifest, follow=False)
    assert str(no_rank.value) == (
        "this run was in the foreground: its output went to the terminal, not to a file"
    )
    assert no_rank.value.hint == "`logs --rank N` shows rank N's own output, kept under torchrun/"
    with pytest.raises(JobError) as none:
        logs(manifest, follow=False, rank=2)
    assert str(none.value).endswith(f"and {manifest.job_dir}/torchrun holds no output of rank 2")
    assert none.value.hint == "a run of one process (not torchrun) keeps none; ranks count from 0"


def test_a_foreground_run_gets_the_rank_tags(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text(
        'printf "%s|%s|%s" "$PET_TEE" "$PET_LOG_DIR" "$TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"'
        " > seen\n"
    )
    run_local(tmp_path)
    tags = rank_tags(tmp_path)
    assert (tmp_path / "seen").read_text() == "|".join(
        tags[k] for k in ("PET_TEE", "PET_LOG_DIR", "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE")
    )
    assert tags["PET_LOG_DIR"] == str(tmp_path / "torchrun")
