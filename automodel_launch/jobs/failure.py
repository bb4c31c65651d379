"""Why a job failed: which rank failed first, its exit code, the cause, what to change.

For a FAILED, TIMEOUT or PREEMPTED job (Slurm's NODE_FAIL and OUT_OF_MEMORY are FAILED),
in this order: the scheduler's own state (a time limit, a preemption, a node failure,
the host's OOM killer); what torchrun reported and torch's error files say about the
ranks (:mod:`automodel_launch.jobs.failure_sources`), the first failed rank being the
earliest that was not stopped because another had failed; then the failing rank's
traceback and log lines, matched against :data:`PATTERNS`. docs/jobs.md has the table.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from automodel_launch.jobs.failure_sources import (
    Recorded,
    TorchErrorFile,
    error_files,
    local_time,
    log_lines,
    rank_exits,
    run_folders,
)
from automodel_launch.jobs.failure_text import Cause, summary
from automodel_launch.launchers.slurm.output import iso_time
from automodel_launch.layout import ERROR_FILES, EXIT_CODE
from automodel_launch.secrets import display

if TYPE_CHECKING:
    from automodel_launch.jobs.states import State
    from automodel_launch.jobs.status import JobStatus

TAIL_LINES = 20
"""The failing rank's last lines shown."""
MAX_LINE = 400
DIAGNOSED = frozenset({"FAILED", "TIMEOUT", "PREEMPTED"})


class Failure(BaseModel):
    """The ``failure`` object of ``status --format json`` (docs/json-output.md)."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    rank: Annotated[int, Field(ge=0, le=10_000_000)] | None
    exit_code: Annotated[int, Field(ge=0, le=255)] | None
    signal: Annotated[str, StringConstraints(pattern=r"^SIG[A-Z0-9+-]{1,12}$")] | None
    cause: Cause
    summary: Annotated[str, StringConstraints(max_length=1000)]
    log_tail: Annotated[
        list[Annotated[str, StringConstraints(max_length=MAX_LINE + 3)]],
        Field(max_length=TAIL_LINES),
    ]


STATE_CAUSES: dict[str, Cause] = {
    "NODE_FAIL": "node-failure",
    "BOOT_FAIL": "node-failure",
    "OUT_OF_MEMORY": "oom-host",
}
"""Slurm's states of a FAILED job that say why (a TIMEOUT or PREEMPTED job says it too)."""
_KILLED = r"\*\*\* (?:JOB|STEP) \S+ ON \S+ CANCELLED AT (\S+) DUE TO "
JOB_MARKS: tuple[tuple[Cause, re.Pattern[str]], ...] = (
    ("time-limit", re.compile(_KILLED + "TIME LIMIT")),
    ("preempted", re.compile(_KILLED + "PREEMPTION")),
    ("node-failure", re.compile(_KILLED + "NODE FAILURE")),
    ("oom-host", re.compile(r"oom[-_]kill|Out of memory: Kill|OOM Killed", re.IGNORECASE)),
)
"""What Slurm (slurmstepd) writes in the job's log when it stops the job, whichever rank."""
PATTERNS: tuple[tuple[Cause, re.Pattern[str]], ...] = (
    ("oom-gpu", re.compile(
        r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory|HIP out of memory"
        r"|CUBLAS_STATUS_ALLOC_FAILED")),
    ("oom-host", re.compile(r"\bMemoryError\b|Cannot allocate memory")),
    ("nccl", re.compile(
        r"\bNCCL (?:error|timeout|WARN)|nccl\w*Error\b|Watchdog caught collective operation "
        r"timeout|NCCL communicator|ProcessGroupNCCL.{0,80}(?:[Tt]imeout|abort)")),
    ("import-error", re.compile(r"\b(?:ModuleNotFoundError|ImportError)\b")),
    ("config-error", re.compile(
        r'File "[^"]*/(?:recipes|components/config)/[^"]*", line \d+, in '
        r"(?:setup|instantiate|_?build\w*)\b")),
)  # fmt: skip
"""What the failing rank's traceback and last lines say, first match wins."""
COLLATERAL = re.compile(
    r"Connection closed by peer|Connection reset by peer|Broken pipe|SignalException"
    r"|remote process exited|got signal: 15"
)
"""A rank that failed because another had: its peer went away, or torchrun stopped it."""


@dataclass(frozen=True)
class _Candidate:
    rank: int | None
    code: int | None
    """torch's exit code: negative when a signal ended the rank."""
    time: str
    root: bool = True
    """Its agent's first failure (torchrun reports the others of that node too)."""
    error: TorchErrorFile | None = None


def diagnose(status: JobStatus) -> Failure | None:
    """The failure of a failed job; None for a job that did not fail."""
    if status.state not in DIAGNOSED:
        return None
    job_dir = Path(status.manifest.job_dir)
    lines = log_lines(job_dir, name) if (name := _log_name(status)) else []
    recorded = error_files(job_dir)
    first = first_failure(lines, recorded, single_node=len(run_folders(job_dir)) <= 1)
    own = _rank_lines(lines, first.rank) if first is not None else []
    cause, whole_job = cause_of(status, lines, first, own, recorded)
    code, signal_name = _exit(first, status.exit_code)
    tail = own or [line for line in lines if line.strip()]
    if not tail and first is not None and first.error is not None:
        tail = first.error.callstack.splitlines()
    return Failure(
        rank=None if first is None else first.rank,
        exit_code=code,
        signal=signal_name,
        cause=cause,
        summary=summary(cause, None if first is None or whole_job else first.rank, code,
                        signal_name, status.time_limit),
        log_tail=[_line(line) for line in tail[-TAIL_LINES:]],
    )  # fmt: skip


STOPPED: dict[Cause, State] = {
    "time-limit": "TIMEOUT", "preempted": "PREEMPTED", "node-failure": "FAILED",
}  # fmt: skip
"""The state of a job Slurm stopped, as Slurm showed it while it knew the job."""
AFTER_STOP_SECONDS = (-120, 300)
"""The job's ``exit_code`` is the end Slurm's stop made when written this soon after it
(KillWait, a clock apart); later, the job ran again (requeued) and ended otherwise."""


def stopped_by_scheduler(status: JobStatus) -> State | None:
    """The state of a job the scheduler no longer knows, when its log says Slurm stopped
    it (its time limit, a preemption, a node failure) and nothing ended it after that:
    the exit status the job left may be that of the signal, or 0."""
    name = _log_name(status)
    if name is None:
        return None
    cause = _stop(status, log_lines(Path(status.manifest.job_dir), name))
    return None if cause is None else STOPPED[cause]


def _stop(status: JobStatus, lines: list[str]) -> Cause | None:
    """Slurm's last stop of the job in its log, when the job's ``exit_code`` (if any) was
    written at that stop, not at a later run's end."""
    last: tuple[Cause, str] | None = None
    for line in lines:
        for cause, pattern in JOB_MARKS[:3]:
            match = pattern.search(line)
            if match is not None:
                last = (cause, match.group(1))
    if last is None:
        return None
    cause, when = last
    ended = _mtime(Path(status.manifest.job_dir) / EXIT_CODE)
    stopped = iso_time(when)
    if ended is not None and stopped is not None:
        low, high = AFTER_STOP_SECONDS
        if not low <= ended - stopped <= high:
            return None
    return cause


def _mtime(path: Path) -> float | None:
    try:
        return path.lstat().st_mtime
    except OSError:
        return None


def first_failure(
    lines: list[str], recorded: list[Recorded], *, single_node: bool
) -> _Candidate | None:
    """The rank that failed first and not because another had: torchrun's reports, each
    with the rank's error file; without a report, the error files themselves.

    The first is the least of the candidates in this order: one that was not stopped
    because another had failed (SIGTERM, a peer gone) before one that was; one whose time
    is known before one without (an error file without a timestamp); the earlier; the root
    cause of its report before the report's other failures; one whose rank is known before
    one without (an agent's copy, a rank of one node of several); the lower rank. What is
    still equal goes in the order found (the log's, the error files' paths)."""
    by_path = {r.path: r.error for r in recorded if r.local_rank is not None}
    candidates = [
        _Candidate(e.rank, e.exit_code, e.time, e.root, _matching(e.error_file, by_path))
        for e in rank_exits(lines)
    ]
    reported = bool(candidates)
    if not reported:
        agents = [r.error for r in recorded if r.path.startswith(ERROR_FILES + "/")]
        for r in recorded:
            seconds = r.error.seconds
            when = "" if seconds is None else local_time(seconds)
            if r.local_rank is not None:
                rank = r.local_rank if single_node else None
                candidates.append(_Candidate(rank, _agent_code(r.error, agents), when,
                                             error=r.error))  # fmt: skip
            elif not any(c.error is not None and _same(c.error, r.error) for c in candidates):
                candidates.append(_Candidate(None, r.error.error_code, when, error=r.error))
    if not candidates:
        return None

    def order(c: _Candidate) -> tuple[bool, bool, str, bool, bool, int | None]:
        return (_collateral(c, lines), not c.time, c.time, not c.root, c.rank is None, c.rank)

    first = min(candidates, key=order)
    if not reported and _collateral(first, lines):
        # only the ranks stopped after another left a file: the first one is not known
        return replace(first, rank=None)
    return first


def _matching(path: str, by_path: dict[str, TorchErrorFile]) -> TorchErrorFile | None:
    for relative, error in by_path.items():
        if path == relative or path.endswith("/" + relative):
            return error
    return None


def _same(a: TorchErrorFile, b: TorchErrorFile) -> bool:
    return a.text == b.text and a.seconds == b.seconds


def _agent_code(error: TorchErrorFile, agents: list[TorchErrorFile]) -> int | None:
    """The exit code the agent recorded in its copy of this rank's error file."""
    return next((a.error_code for a in agents if _same(a, error)), None)


def _collateral(candidate: _Candidate, lines: list[str]) -> bool:
    if candidate.code in (-signal.SIGTERM, 128 + signal.SIGTERM):
        return True
    return any(COLLATERAL.search(text) for text in _texts(candidate, lines))


def _texts(candidate: _Candidate, lines: list[str]) -> list[str]:
    error = candidate.error
    said = [] if error is None else [error.text, error.callstack]
    if candidate.rank is not None:
        said += _rank_lines(lines, candidate.rank)[-200:]
    return said


def cause_of(
    status: JobStatus,
    lines: list[str],
    first: _Candidate | None,
    own: list[str],
    recorded: list[Recorded],
) -> tuple[Cause, bool]:
    """The cause, and whether it is the whole job's: the scheduler's state, then what
    Slurm wrote in the log; else the failing rank's own words (every rank's, when none is
    known to have failed first)."""
    if status.scheduler_state in STATE_CAUSES:
        return STATE_CAUSES[status.scheduler_state], True
    if status.state == "TIMEOUT":
        return "time-limit", True
    if status.state == "PREEMPTED":
        return "preempted", True
    stop = _stop(status, lines) if status.scheduler_state is None else None
    if stop is not None:
        return stop, True
    log = "\n".join(lines)
    if JOB_MARKS[3][1].search(log):
        return JOB_MARKS[3][0], True
    if first is not None and first.rank is not None:
        said = "\n".join([*_texts(first, lines), *own])
    else:
        errors = (t for r in recorded for t in (r.error.text, r.error.callstack))
        said = "\n".join(t for t in (status.reason, log, *errors) if t)  # SkyPilot's reason
    for cause, pattern in PATTERNS:
        if pattern.search(said):
            return cause, False
    code = first.code if first is not None and first.code is not None else status.exit_code
    return ("exit-code" if code else "unknown"), False


def _exit(first: _Candidate | None, job_code: int | None) -> tuple[int | None, str | None]:
    """The failing rank's exit code (the job's when no rank is known) and the signal that
    ended it: torch says -N for signal N, a shell 128+N."""
    code = first.code if first is not None and first.code is not None else job_code
    if code is None:
        return None, None
    if code < 0:
        code, name = 128 - code, _signal_name(-code)
    else:
        name = _signal_name(code - 128)  # none up to 128: there is no signal 0 or below
    return (code, name) if code <= 255 else (None, None)


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


def _rank_lines(lines: list[str], rank: int | None) -> list[str]:
    if rank is None:
        return []
    tag = f"[rank{rank}]:"
    return [_untagged(line[len(tag) :], tag) for line in lines if line.startswith(tag)]


def _untagged(line: str, tag: str) -> str:
    """torch tags a rank's traceback ``[rankN]:`` itself: the line without both tags."""
    return line[len(tag) :].removeprefix(" ") if line.startswith(tag) else line


def _log_name(status: JobStatus) -> str | None:
    """The job's log when it is a file of its job directory (a SkyPilot log is remote)."""
    if not status.log_path:
        return None
    path = Path(status.log_path)
    return path.name if path.parent == Path(status.manifest.job_dir) else None


def _line(text: str) -> str:
    shown = display(text.rstrip())
    return shown if len(shown) <= MAX_LINE else shown[:MAX_LINE] + "..."
