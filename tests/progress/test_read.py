"""A job's progress read from its job directory: the log's end, the JSONL files, the
bounds its manifest recorded; and what a hostile job directory gets (a huge file, one
endless line, bytes that are no UTF-8, a pipe or a link in place of a file)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from automodel_launch.jobs.manifest import Manifest
from automodel_launch.jobs.status import JobStatus
from automodel_launch.jobs.view import status_lines
from automodel_launch.progress.read import progress_of, step_of

START = 1_796_637_600.0  # 2026-12-07T10:00:00Z


def manifest(job_dir: Path, **details: Any) -> Manifest:
    return Manifest(
        id="abc123", name="train", launcher="slurm", job_dir=str(job_dir),
        submitted_at="2026-12-07T09:59:00Z", config_path="/x.yaml", config_sha256="0" * 64,
        command_line=("automodel-launch", "submit", "x.yaml"), artifacts=("job.sbatch",),
        scheduler_id="7", details=details,
    )  # fmt: skip


def running(job_dir: Path, state: str = "RUNNING", **details: Any) -> JobStatus:
    return JobStatus(manifest(job_dir, **details), state, started_at=START, time_limit="00:30:00",
                     log_path=str(job_dir / "train_7.out"))  # fmt: skip


def stamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".000Z"


def step_line(step: int, loss: float) -> str:
    return (f"[rank0]: step {step} | epoch 0 | loss {loss:.4f} | grad_norm 1.0000 | lr 1.00e-04"
            f" | mem 2.00 GiB | tps 1000.00(500.00/gpu) | num_label_tokens 10")  # fmt: skip


def job(tmp_path: Path, steps: int = 30, seconds: float = 2.0) -> Path:
    job_dir = tmp_path / "job"
    (job_dir / "ckpt").mkdir(parents=True)
    lines = ["loading...", *(step_line(s, 3.0 - s * 0.05) for s in range(1, steps + 1))]
    lines.append('[rank0]: [val] name "default" | step 20 | epoch 0 | loss 2.2000')
    log = job_dir / "train_7.out"
    log.write_text("\n".join(lines) + "\n")
    records = [{"step": s, "epoch": 0, "timestamp": stamp(START + 20 + s * seconds),
                "loss": 3.0 - s * 0.05} for s in range(1, 21)]  # fmt: skip
    (job_dir / "ckpt" / "training.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    checks = [
        {"step": 10, "epoch": 0, "timestamp": stamp(START + 40), "val_loss": 2.5},
        {"step": 20, "epoch": 0, "timestamp": stamp(START + 60), "val_loss": 2.2},
    ]
    text = "".join(json.dumps(c) + "\n" for c in checks)
    (job_dir / "ckpt" / "validation.jsonl").write_text(text)
    os.utime(log, (START + 20 + steps * seconds, START + 20 + steps * seconds))
    return job_dir


BOUNDS = {"max_steps": 1000, "ckpt_every_steps": 100, "checkpoints": True,
          "checkpoint_dir": "ckpt"}  # fmt: skip


def test_a_running_job_s_progress_and_forecast(tmp_path: Path) -> None:
    job_dir = job(tmp_path)
    status = running(job_dir, **BOUNDS)
    shown = progress_of(status, now=START + 81)
    assert shown is not None
    assert (shown.step, shown.max_steps, shown.epoch, shown.loss) == (30, 1000, 0, 1.5)
    assert shown.trend == "falling"
    assert (shown.val_loss, shown.best_val_loss, shown.best_val_step) == (2.2, 2.2, 20)
    assert shown.seconds_per_step == 2.0
    assert shown.rate_from == "training.jsonl's timestamps"
    assert (shown.tps, shown.tps_per_gpu, shown.mem_gib) == (1000.0, 500.0, 2.0)
    assert shown.seconds_left == 970 * 2.0
    assert shown.problems == ()
    assert shown.forecast is not None
    # step 30 came 80 s after the start; 1800 s of limit: step 30 + 1720 // 2 = 890
    assert shown.forecast.text == (
        "at 2.00 s a step, step 1000 comes 33m40s after the start; the limit is 30m: the job "
        "stops near step 890; its last checkpoint will be step 800; the 90 steps after it "
        "are lost"
    )
    lines = status_lines(status.__class__(**{**status.__dict__, "progress": shown}))
    assert "progress   step 30 of 1000, epoch 0; loss 1.5000 (falling)" in lines
    assert "validation loss 2.2000 (best 2.2000 at step 20)" in lines
    assert ("rate       2.00 s a step (from training.jsonl's timestamps); 500 tokens/s per "
            "GPU; memory 2.00 GiB; 32m20s left at this rate") in lines  # fmt: skip
    assert f"forecast   {shown.forecast.text}" in lines
    assert step_of(status) == (30, 1000)


def test_a_hang_is_named_once_the_log_went_quiet(tmp_path: Path) -> None:
    status = running(job(tmp_path), **BOUNDS)
    last_step = START + 80
    assert progress_of(status, now=last_step + 25) is not None
    quiet = progress_of(status, now=last_step + 31)
    assert quiet is not None and [p.kind for p in quiet.problems] == ["hang"]
    assert quiet.problems[0].text == (
        "no new step for 31s after step 30 (a step usually takes 2.00 s): it may hang"
    )
    done = progress_of(running(job_dir := Path(status.manifest.job_dir), "COMPLETED",
                               **BOUNDS), now=last_step + 1000)  # fmt: skip
    assert done is not None and done.problems == () and job_dir.exists()


def test_without_recorded_bounds_the_log_still_answers(tmp_path: Path) -> None:
    shown = progress_of(running(job(tmp_path)), now=START + 81)
    assert shown is not None
    assert (shown.step, shown.max_steps, shown.forecast) == (30, None, None)
    assert shown.rate_from == "the time since the start (start-up included)"
    assert shown.seconds_per_step == pytest.approx(80 / 30)
    assert shown.notes == (
        "the manifest records no checkpoint directory (an older submit): training.jsonl is "
        "not read",
    )


def test_a_pending_job_and_a_finished_job_without_steps_show_none(tmp_path: Path) -> None:
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    pending = JobStatus(manifest(job_dir), "PENDING")
    assert progress_of(pending) is None
    (job_dir / "train_7.out").write_text("hello\n")
    assert progress_of(running(job_dir, "COMPLETED")) is None
    shown = progress_of(running(job_dir))
    assert shown is not None and shown.notes == ("no training step is logged yet",)


@pytest.mark.parametrize("kind", ["fifo", "link", "directory"])
def test_a_log_that_is_no_file_is_a_note(tmp_path: Path, kind: str) -> None:
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    log = job_dir / "train_7.out"
    if kind == "fifo":
        os.mkfifo(log)  # opened blocking, it would wait for a writer forever
    elif kind == "link":
        (tmp_path / "elsewhere").write_text(step_line(1, 1.0) + "\n")
        log.symlink_to(tmp_path / "elsewhere")
    else:
        log.mkdir()
    shown = progress_of(running(job_dir, "FAILED"))
    assert shown is not None
    reason = {"fifo": "it is a named pipe, not a file",
              "link": "it is a symbolic link, not a file",
              "directory": "it is a directory, not a file"}[kind]  # fmt: skip
    assert shown.notes == (f"the log is not read: {reason}",)
    assert shown.step is None


def test_one_endless_line_and_bytes_that_are_no_utf8(tmp_path: Path) -> None:
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    log = job_dir / "train_7.out"
    with log.open("wb") as out:
        out.write(step_line(4, 2.0).encode() + b"\n")
        out.write(b"x" * (100 << 20))  # one line of 100 MB, no newline yet
    shown = progress_of(running(job_dir))
    assert shown is not None and shown.step is None  # step 4 is 100 MB before the tail
    log.write_bytes(b"\xff\xfe junk \x80\n" + step_line(5, 1.5).encode() + b" \xc3\x28\n")
    shown = progress_of(running(job_dir))
    assert shown is not None and (shown.step, shown.loss) == (5, 1.5)


def test_a_huge_training_jsonl_is_read_from_its_end(tmp_path: Path) -> None:
    job_dir = tmp_path / "job"
    (job_dir / "ckpt").mkdir(parents=True)
    with (job_dir / "ckpt" / "training.jsonl").open("w") as out:
        out.truncate(1 << 30)
        out.seek(1 << 30)
        record = {"step": 77, "epoch": 1, "timestamp": stamp(START + 100), "loss": 0.5}
        out.write("\n" + json.dumps(record) + "\n")
    shown = progress_of(running(job_dir, "COMPLETED", **BOUNDS))
    assert shown is not None and (shown.step, shown.loss, shown.epoch) == (77, 0.5, 1)
