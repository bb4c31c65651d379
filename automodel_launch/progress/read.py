"""A job's progress: the end of its log, the end of its JSONL files, its recorded bounds,
put together for ``status`` (:func:`progress_of`) and ``jobs`` (:func:`step_of`)."""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from automodel_launch.progress.bounds import Bounds, bounds_of
from automodel_launch.progress.forecast import Forecast, forecast
from automodel_launch.progress.health import Problem, hang, loss_problems
from automodel_launch.progress.history import TRAINING, VALIDATION, History, read_history
from automodel_launch.progress.lines import StepLine, step_lines

if TYPE_CHECKING:
    from automodel_launch.jobs.status import JobStatus

LOG_TAIL_BYTES = 256 * 1024
"""The end of a log read for progress: about 1,500 step lines."""
JOBS_TAIL_BYTES = 16 * 1024
"""What ``jobs`` reads of each running job's log: its last steps."""
TREND_STEPS = 10
"""Losses averaged on each side of the trend's comparison."""
FLAT = 0.02


@dataclass(frozen=True)
class Progress:
    step: int | None = None
    max_steps: int | None = None
    epoch: int | None = None
    num_epochs: int | None = None
    loss: float | None = None
    trend: str | None = None
    val_loss: float | None = None
    best_val_loss: float | None = None
    best_val_step: int | None = None
    seconds_per_step: float | None = None
    rate_from: str | None = None
    tps: float | None = None
    tps_per_gpu: float | None = None
    mem_gib: float | None = None
    seconds_left: float | None = None
    forecast: Forecast | None = None
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = ()
    losses: tuple[tuple[int, float], ...] = field(default=(), repr=False)
    """(step, loss) of the steps read: training, for a chart."""
    val_losses: tuple[tuple[int, float], ...] = field(default=(), repr=False)

    def to_json(self) -> dict[str, Any]:
        """The ``progress`` object of docs/json-output.md."""
        return {
            "step": self.step, "max_steps": self.max_steps, "epoch": self.epoch,
            "num_epochs": self.num_epochs, "loss": _number(self.loss), "trend": self.trend,
            "val_loss": _number(self.val_loss), "best_val_loss": _number(self.best_val_loss),
            "best_val_step": self.best_val_step,
            "seconds_per_step": _rounded(self.seconds_per_step, 3),
            "rate_from": self.rate_from, "tps": _rounded(self.tps, 2),
            "tps_per_gpu": _rounded(self.tps_per_gpu, 2), "mem_gib": _rounded(self.mem_gib, 2),
            "seconds_left": _rounded(self.seconds_left, 0),
            "forecast": None if self.forecast is None else self.forecast.to_json(),
            "problems": [p.to_json() for p in self.problems], "notes": list(self.notes),
        }  # fmt: skip


def progress_of(status: JobStatus, *, now: float | None = None) -> Progress | None:
    """What the job's training has done; None before it started (nothing to read)."""
    if status.state == "PENDING" and status.started_at is None:
        return None
    now = time.time() if now is None else now
    bounds = bounds_of(status.manifest)
    notes: list[str] = []
    lines, log_mtime = _log(status, LOG_TAIL_BYTES, notes)
    train, valid = _histories(status, bounds, notes)
    steps = [line for line in lines if not line.validation]
    checks = [line for line in lines if line.validation]
    run_start = status.started_at
    records = [r for r in (train.records if train else ()) if r.value is not None]
    losses = _merged([(r.step, r.value) for r in records if r.value is not None],
                     [(s.step, s.loss) for s in _this_run(steps)])  # fmt: skip
    val = _merged([(r.step, r.value) for r in (valid.records if valid else ())
                   if r.value is not None], [(c.step, c.loss) for c in checks])  # fmt: skip
    if not losses and not val:
        said = [note for note in notes if note.startswith("the log")]
        if status.finished and not said:
            return None
        return Progress(max_steps=bounds.max_steps, num_epochs=bounds.num_epochs,
                        notes=tuple(said or ["no training step is logged yet"]))  # fmt: skip
    last = steps[-1] if steps else None
    step = losses[-1][0] if losses else None
    rate, rate_from, at = _rate(steps, records, log_mtime, run_start)
    problems = loss_problems(losses)
    if status.state == "RUNNING" and step is not None and at is not None:
        stalled = hang(step, now - at, rate)
        if stalled is not None:
            problems.append(stalled)
    finite_val = [(s, v) for s, v in val if math.isfinite(v)]
    best = min(finite_val, key=lambda sv: sv[1]) if finite_val else None
    left = None
    if rate is not None and step is not None and bounds.max_steps is not None:
        left = max(0, bounds.max_steps - step) * rate
    return Progress(
        step=step, max_steps=bounds.max_steps,
        epoch=last.epoch if last else (records[-1].epoch if records else None),
        num_epochs=bounds.num_epochs, loss=losses[-1][1] if losses else None,
        trend=_trend([loss for _, loss in losses]),
        val_loss=val[-1][1] if val else None,
        best_val_loss=best[1] if best else None, best_val_step=best[0] if best else None,
        seconds_per_step=rate, rate_from=rate_from,
        tps=_either(_last(steps, "tps"), _last_record(records, "tps")),
        tps_per_gpu=_either(_last(steps, "tps_per_gpu"), _last_record(records, "tps_per_gpu")),
        mem_gib=_either(_last(steps, "mem_gib"), _last_record(records, "mem")),
        seconds_left=left if status.state in ("RUNNING", "PENDING", "REQUEUED") else None,
        forecast=_forecast(status, bounds, step, at, rate),
        problems=tuple(problems), notes=tuple(notes),
        losses=tuple(losses), val_losses=tuple(val),
    )  # fmt: skip


def step_of(status: JobStatus) -> tuple[int, int | None] | None:
    """``jobs``' column: the last step a running job's log shows, and its ``max_steps``."""
    lines, _ = _log(status, JOBS_TAIL_BYTES, [])
    steps = [line for line in lines if not line.validation]
    if not steps:
        return None
    return steps[-1].step, bounds_of(status.manifest).max_steps


def _log(status: JobStatus, limit: int, notes: list[str]) -> tuple[list[StepLine], float | None]:
    from automodel_launch.jobs.files import Unreadable, read_job_tail

    if not status.log_path:
        return [], None
    path = Path(status.log_path)
    job_dir = Path(status.manifest.job_dir)
    if path.parent != job_dir:
        notes.append(f"the log {path} is not in the job directory: not read")
        return [], None
    try:
        raw = read_job_tail(job_dir, path.name, limit)
        mtime = os.stat(path, follow_symlinks=False).st_mtime if raw is not None else None
    except Unreadable as exc:
        notes.append(f"the log is not read: {exc.reason}")
        return [], None
    except OSError:
        return [], None
    if raw is None:
        return [], None
    return step_lines(raw.decode("utf-8", errors="replace")), mtime


def _histories(
    status: JobStatus, bounds: Bounds, notes: list[str]
) -> tuple[History | None, History | None]:
    directory = bounds.checkpoint_dir
    if directory is None:
        if bounds.note:
            notes.append(f"{bounds.note}: {TRAINING} is not read")
        return None, None
    remote = status.manifest.remote
    if remote is not None and Path(status.manifest.job_dir) not in directory.parents:
        notes.append(f"{directory} is on {remote.name}: {TRAINING} is not read from here")
        return None, None
    found = (read_history(directory, TRAINING), read_history(directory, VALIDATION))
    for history in found:
        if history is not None and history.note:
            notes.append(history.note)
        if history is not None and history.skipped:
            notes.append(f"{history.skipped} line(s) of a JSONL file are no record: skipped")
    return found


def _this_run(steps: list[StepLine]) -> list[StepLine]:
    """The steps since the log last went back (a requeued run appends to the same log)."""
    start = 0
    for index in range(1, len(steps)):
        if steps[index].step <= steps[index - 1].step:
            start = index
    return steps[start:]


Losses = list[tuple[int, float]]


def _merged(older: Losses, newer: Losses) -> Losses:
    """The JSONL's history, then the log's steps after it (the JSONL lags the log)."""
    last = newer[0][0] if newer else None
    kept = [item for item in older if last is None or item[0] < last]
    return kept + newer


def _rate(
    steps: list[StepLine], records: list[Any], log_mtime: float | None, start: float | None
) -> tuple[float | None, str | None, float | None]:
    """Seconds a step, where that comes from, and when the last step came."""
    run = _this_run(steps)
    timed = [s.seconds for s in run[-20:] if s.seconds is not None and s.seconds > 0]
    if timed:
        return sum(timed) / len(timed), "the log's step times", log_mtime
    stamped = [(r.step, r.seconds) for r in records[-100:] if r.seconds is not None]
    if start is not None:
        stamped = [(s, t) for s, t in stamped if t >= start]
    if len(stamped) >= 2 and stamped[-1][0] > stamped[0][0] and stamped[-1][1] > stamped[0][1]:
        rate = (stamped[-1][1] - stamped[0][1]) / (stamped[-1][0] - stamped[0][0])
        at = log_mtime if run and run[-1].step > stamped[-1][0] else stamped[-1][1]
        return rate, "training.jsonl's timestamps", at
    if run and start is not None and log_mtime is not None and log_mtime > start:
        done = run[-1].step - run[0].step + 1
        return (log_mtime - start) / done, "the time since the start (start-up included)", log_mtime
    return None, None, log_mtime


def _forecast(
    status: JobStatus, bounds: Bounds, step: int | None, at: float | None, rate: float | None
) -> Forecast | None:
    from automodel_launch.config.slurm_time import TimeError, parse

    if None in (step, at, rate, status.started_at, bounds.max_steps) or not status.time_limit:
        return None
    try:
        minutes = parse(status.time_limit).minutes
    except TimeError:
        return None
    if minutes is None:
        return None
    assert step is not None and at is not None and rate is not None
    assert status.started_at is not None and bounds.max_steps is not None
    signal = status.manifest.details.get("requeue_signal_seconds")
    return forecast(
        step=step, at=at - status.started_at, seconds_per_step=rate,
        max_steps=bounds.max_steps, limit=minutes * 60.0,
        ckpt_every_steps=bounds.ckpt_every_steps, checkpoints=bounds.checkpoints,
        requeue_signal=signal if type(signal) is int else None,
    )  # fmt: skip


def _trend(losses: list[float]) -> str | None:
    finite = [loss for loss in losses if math.isfinite(loss)]
    if len(finite) < 2 * TREND_STEPS:
        return None
    before = sum(finite[-2 * TREND_STEPS : -TREND_STEPS]) / TREND_STEPS
    after = sum(finite[-TREND_STEPS:]) / TREND_STEPS
    if before == 0 or abs(after - before) <= FLAT * abs(before):
        return "flat"
    return "falling" if after < before else "rising"


def _either(first: float | None, second: float | None) -> float | None:
    """The log's value, else the JSONL's (a 0 the log printed is a value, not a gap)."""
    return first if first is not None else second


def _last(steps: list[StepLine], name: str) -> float | None:
    for line in reversed(steps[-5:]):
        value = getattr(line, name)
        if value is not None:
            return float(value)
    return None


def _last_record(records: list[Any], name: str) -> float | None:
    for record in reversed(records[-5:]):
        value = getattr(record, name)
        if value is not None:
            return float(value)
    return None


def _number(value: float | None) -> float | str | None:
    """JSON has no NaN: a loss that is none is said as text (``"nan"``, ``"inf"``)."""
    if value is None or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)
