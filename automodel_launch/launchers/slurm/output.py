"""What Slurm's commands say about jobs, read into typed models with bounds.

``squeue --json``: Slurm 22.05 gives ``job_state`` as a word and numbers as numbers;
23.02 and later give ``job_state`` as a list (the state, then its flags) and numbers as
``{"set": ..., "infinite": ..., "number": N}``. ``sacct -n -P -X`` gives one ``|``-separated
line a job. Nothing else is taken: a document nested deeper than :data:`MAX_DEPTH`, a
number of more than :data:`MAX_DIGITS` digits, an infinite float, a text longer than
:data:`MAX_TEXT` or a value of the wrong type is :class:`Unreadable`, whose message names
the command and the field; the decoder never raises anything else.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from automodel_launch.launchers.ids import is_scheduler_id
from automodel_launch.launchers.slurm.arrays import Listed, pending_ranges
from automodel_launch.secrets import display

MAX_DEPTH = 64
"""Nesting of ``squeue --json`` is 5 deep; far more is not Slurm's."""
MAX_DIGITS = 20
"""Digits of one JSON number: 64-bit values have 20 at most."""
MAX_TEXT = 4096
"""Characters of one text (a node list of a large job is a few hundred)."""
MAX_EPOCH = 2**34
"""Seconds since 1970: year 2514."""

_STRICT = ConfigDict(strict=True, extra="ignore", frozen=True, defer_build=True)
"""Built on first use: ``jobs`` asks for none when the queue holds none of its jobs."""
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Word = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z_]{0,31}$")]
Cluster = Annotated[str, StringConstraints(pattern=r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})?$")]
Epoch = Annotated[float, Field(ge=0, le=MAX_EPOCH, allow_inf_nan=False)]
Small = Annotated[int, Field(ge=-(2**31), le=2**32)]
"""Wait statuses, return codes and signals (Slurm's are 32-bit)."""
Minutes = Annotated[int, Field(ge=0, le=2**32)]


class Unreadable(Exception):
    """Output of a Slurm command this version cannot read; the message says where."""


class NumberSet(BaseModel):
    """Slurm 23.02+: a number that may be unset or infinite."""

    model_config = _STRICT
    set: bool = True
    infinite: bool = False
    number: Annotated[float, Field(ge=-(2**63), le=2**64, allow_inf_nan=False)] = 0


class Signal(BaseModel):
    model_config = _STRICT
    id: Small | NumberSet | None = None


class ExitStatus(BaseModel):
    """Slurm 23.02+: ``{"status": [...], "return_code": N, "signal": {"id": N}}``."""

    model_config = _STRICT
    return_code: Small | NumberSet | None = None
    signal: Signal | None = None


class SqueueJob(BaseModel):
    """The fields of one job of ``squeue --json`` that status shows."""

    model_config = _STRICT
    job_id: Annotated[int, Field(ge=1, le=2**32)]
    job_state: Word | Annotated[list[Word], Field(min_length=1, max_length=32)]
    state_reason: Text | None = None
    start_time: Epoch | NumberSet | None = None
    end_time: Epoch | NumberSet | None = None
    exit_code: Small | ExitStatus | None = None
    time_limit: Minutes | NumberSet | None = None
    nodes: Text | None = None
    cluster: Cluster | None = None

    @property
    def state(self) -> str:
        """The job's state: the word (22.05), or the list's first, the others being flags."""
        return self.job_state if isinstance(self.job_state, str) else self.job_state[0]


def number(value: int | float | NumberSet | None) -> float | None:
    """A plain number, or a set and finite one (None: unset or infinite)."""
    if isinstance(value, NumberSet):
        return value.number if value.set and not value.infinite else None
    return value


def epoch(value: float | NumberSet | None) -> float | None:
    """A time Slurm has set (0 is its unset)."""
    seconds = number(value)
    return seconds if seconds is not None and seconds > 0 else None


def wait_status(value: int | ExitStatus | None) -> int | None:
    """The exit code from squeue's ``exit_code``: a wait status (``768`` is exit 3, ``9``
    is killed by signal 9: 137), or 23.02's record of the return code and the signal."""
    if isinstance(value, ExitStatus):
        signal = number(value.signal.id) if value.signal else None
        code = number(value.return_code)
        if signal:
            code = 128 + signal
        return int(code) if code is not None and 0 <= code <= 255 else None
    if value is None:
        return None
    signal = value & 0x7F
    return 128 + signal if signal else value >> 8 & 0xFF


def time_limit(value: int | NumberSet | None) -> int | str | None:
    """Minutes, ``"UNLIMITED"`` for 23.02's infinite, None when not set."""
    if isinstance(value, NumberSet) and value.set and value.infinite:
        return "UNLIMITED"
    minutes = number(value)
    return None if minutes is None or minutes < 0 else int(minutes)


# ------------------------------------------------------------------ squeue --json
def decode_json(text: str, command: str) -> Any:
    """JSON with its nesting and numbers bounded before they reach the decoder."""
    depth = deepest(text)
    if depth > MAX_DEPTH:
        raise Unreadable(f"{command} gave JSON nested {depth} deep (at most {MAX_DEPTH} is read)")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except ValueError as exc:
        raise Unreadable(f"{command} gave no JSON ({display(str(exc))})") from None


def deepest(text: str) -> int:
    """How deep ``[`` and ``{`` nest in ``text``, outside JSON strings."""
    depth = top = 0
    for token in _TOKENS.findall(text):
        if token in _OPENING:
            depth += 1
            top = max(top, depth)
        elif token in _CLOSING:
            depth -= 1
    return top


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to the end of the text when it is not closed), or a bracket."""
_OPENING, _CLOSING = frozenset("[{"), frozenset("]}")


def _bounded_int(text: str) -> int | float:
    """A number of more digits than any of Slurm's is infinite: no field takes it."""
    return int(text) if len(text.lstrip("-")) <= MAX_DIGITS else math.inf


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON number")


def squeue_jobs(document: Any, command: str = "squeue --json") -> Listed:
    """The jobs of squeue's answer by job id, array tasks by theirs (:class:`Listed`; each
    still to be read with :func:`read_job`)."""
    if not isinstance(document, dict) or not isinstance(document.get("jobs"), list):
        raise Unreadable(f"{command} gave no job list")
    errors = document.get("errors")
    if errors:
        first = errors[0] if isinstance(errors, list) else errors
        said = first.get("description") or first.get("error") if isinstance(first, dict) else first
        raise Unreadable(f"{command} reported an error: {display(str(said))}")
    found = Listed()
    for job in document["jobs"]:
        if isinstance(job, dict):
            found.add_squeue(job)
    return found


def read_job(raw: Any, command: str = "squeue --json") -> SqueueJob:
    try:
        return SqueueJob.model_validate(raw)
    except ValidationError as exc:
        raise Unreadable(
            f"{command} gave a job this version cannot read ({problem(exc)})"
        ) from None


def problem(exc: ValidationError) -> str:
    """The first field that does not fit and why, without the value (it may hold anything):
    ``job_state: Input should be a valid string or List should have at least 1 item ...``."""
    errors = exc.errors()
    where = max((_path(error["loc"]) for error in errors), key=len)  # of a union: the closest
    why = dict.fromkeys(error["msg"] for error in errors if _path(error["loc"]) == where)
    return display(f"{where or 'the answer'}: {' or '.join(why)}")


def _path(location: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in location if _is_field(part))


def _is_field(part: str | int) -> bool:
    """A part of an error's location that names a field or an index, not a union's member."""
    return isinstance(part, int) or (_FIELD.fullmatch(part) is not None and part not in _TYPES)


_FIELD = re.compile(r"[a-z][a-z0-9_]*")
_TYPES = frozenset({"str", "int", "float", "bool", "list", "dict", "none"})


# ------------------------------------------------------------------ sacct
SACCT_FIELDS = "JobID,State,ExitCode,Start,End,NodeList,Timelimit,Reason"
"""``-o`` of ``sacct -n -P -X``: the job id, then what :func:`read_sacct` reads."""
_SACCT_STATE = re.compile(r"([A-Z][A-Z_]{0,31})(?: by [0-9]{1,10})?")
_SACCT_EXIT = re.compile(r"([0-9]{1,3}):([0-9]{1,3})")


@dataclass(frozen=True)
class SacctRecord:
    state: str
    exit_code: int | None
    started_at: float | None
    ended_at: float | None
    nodes: str | None
    time_limit: str | None
    reason: str | None


def sacct_records(text: str) -> tuple[Listed, list[Unreadable]]:
    """The lines of ``sacct -n -P -X -o`` :data:`SACCT_FIELDS` by job id (each a
    :class:`SacctRecord`, or the :class:`Unreadable` saying why it is not one; the first
    line of an id stays), and what was said of lines that name no job."""
    found, lost = Listed(), []
    for line in text.splitlines():
        if not line.strip():
            continue
        job_id, _, rest = line.partition("|")
        if not is_scheduler_id("slurm", job_id) and pending_ranges(job_id) is None:
            said = f"sacct gave a line this version cannot read ({display(line)})"
            lost.append(Unreadable(said))
            continue
        try:
            found.add(job_id, read_sacct(rest))
        except Unreadable as exc:
            found.add(job_id, exc)
    return found, lost


def read_sacct(line: str, command: str = "sacct") -> SacctRecord:
    """One line of ``sacct -n -P -X -o`` :data:`SACCT_FIELDS` without its job id."""
    parts = line.split("|")
    if len(parts) != 7 or any(len(part) > MAX_TEXT for part in parts):
        raise Unreadable(f"{command} gave a line this version cannot read ({display(line)})")
    state_text, code, start, end, nodes, limit, reason = parts
    state = _SACCT_STATE.fullmatch(state_text)
    if state is None:
        raise Unreadable(f"{command} gave the state {display(state_text)!r}")
    exit_code = None
    exited = _SACCT_EXIT.fullmatch(code)
    if exited is not None:  # "CODE:SIGNAL"
        status, signal = int(exited.group(1)), int(exited.group(2))
        if status > 255 or signal > 127:
            raise Unreadable(f"{command} gave the exit code {code!r}")
        exit_code = 128 + signal if signal else status
    elif code:
        raise Unreadable(f"{command} gave the exit code {display(code)!r}")
    return SacctRecord(
        state.group(1),
        exit_code,
        iso_time(start),
        iso_time(end),
        display(nodes) if nodes not in ("", "None assigned") else None,
        display(limit) if limit else None,
        display(reason) if reason not in ("", "None") else None,
    )


def iso_time(text: str) -> float | None:
    """sacct's local time (``2026-11-30T10:00:00``); ``Unknown`` and ``None`` are None."""
    if len(text) != 19:
        return None
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except (ValueError, OverflowError):
        return None
