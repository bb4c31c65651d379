"""What a failed job left behind that says which rank failed and why, read back bounded.

- **torch's error files**: a trainer decorated with torch's ``@record`` writes its exception
  to ``TORCHELASTIC_ERROR_FILE``; torchrun gives each rank its own, under the rank logs
  (``torchrun/RUN/attempt_N/LOCAL_RANK/error.json``), and each node's agent copies the
  first one (with the rank's exit code) to the file our scripts name
  (``errors/nodeN.json``). Each is parsed into :class:`TorchErrorFile`.
- **torchrun's report** in the job's log: each agent whose ranks failed prints
  ``ChildFailedError`` with, per failed rank, its time, global rank, exit code and error
  file (:func:`rank_exits`).
- **the log's last lines** (:func:`log_lines`): at most :data:`LOG_TAIL_BYTES`.

Every file is read through :mod:`automodel_launch.jobs.files` (no link, no FIFO, a
limit); what cannot be read is left out, never guessed.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from automodel_launch.jobs.files import Unreadable, read_job_file, read_job_tail
from automodel_launch.launchers.slurm.output import MAX_EPOCH, decode_json
from automodel_launch.launchers.slurm.output import Unreadable as BadJson
from automodel_launch.layout import ERROR_FILES, RANK_LOGS

LOG_TAIL_BYTES = 256 * 1024
"""The end of a log read for a diagnosis: torchrun's report and the last tracebacks."""
ERROR_FILE_BYTES = 1 << 20
"""An error file holds one traceback: a larger one is not read."""
MAX_ERROR_FILES = 256
"""Error files read for one job (a rank each): past that, the first are enough."""
MAX_RANK_FOLDERS = 4096
"""Rank folders looked in for one job (the ranks of all its nodes)."""
ERROR_FILE = "error.json"

_STRICT = ConfigDict(strict=True, extra="ignore", frozen=True)
Message = Annotated[str, StringConstraints(max_length=ERROR_FILE_BYTES)]
Stamp = (
    Annotated[str, StringConstraints(pattern=r"^[0-9]{1,11}$")]
    | Annotated[int, Field(ge=0, le=MAX_EPOCH)]
)
Code = Annotated[int, Field(ge=-255, le=255)]


class _ExtraInfo(BaseModel):
    model_config = _STRICT
    py_callstack: Message | None = None
    timestamp: Stamp | None = None


class _Structured(BaseModel):
    model_config = _STRICT
    message: Message = ""
    extraInfo: _ExtraInfo | None = None  # torch's names
    errorCode: Code | None = None


class TorchErrorFile(BaseModel):
    """``{"message": {"message": "T: text", "extraInfo": {"py_callstack": ...,
    "timestamp": "SECONDS"}, "errorCode": N}}`` as torch writes it (``errorCode`` only in
    the agent's copy), or the older ``{"message": "text", "timestamp": N}``."""

    model_config = _STRICT
    message: Message | _Structured
    timestamp: Stamp | None = None

    @property
    def text(self) -> str:
        return self.message if isinstance(self.message, str) else self.message.message

    @property
    def callstack(self) -> str:
        if isinstance(self.message, str) or self.message.extraInfo is None:
            return ""
        return self.message.extraInfo.py_callstack or ""

    @property
    def seconds(self) -> int | None:
        stamp = self.timestamp
        if not isinstance(self.message, str) and self.message.extraInfo is not None:
            stamp = self.message.extraInfo.timestamp
        return None if stamp is None else int(stamp)

    @property
    def error_code(self) -> int | None:
        return None if isinstance(self.message, str) else self.message.errorCode


@dataclass(frozen=True)
class Recorded:
    """One error file read: where (relative to the job directory), whose, what it says."""

    path: str
    error: TorchErrorFile
    local_rank: int | None = None
    run: str | None = None
    """The agent's run folder under ``torchrun/`` (one per node)."""


@dataclass(frozen=True)
class RankExit:
    """One failed rank as torchrun reported it."""

    rank: int
    exit_code: int
    """torch's: negative when a signal ended the rank (-9: SIGKILL)."""
    time: str
    """``YYYY-MM-DD_HH:MM:SS``, the node's local time (compares as text)."""
    error_file: str
    root: bool
    """Its agent's first failure (the others on that node came after)."""


def read_error_file(directory: Path, name: str) -> TorchErrorFile | None:
    """One error file, or None when it is not there or is no error file of torch's."""
    try:
        text = read_job_file(directory, name, ERROR_FILE_BYTES)
    except Unreadable:
        return None
    if text is None:
        return None
    try:
        document = decode_json(text, name)
        # a lone surrogate ("\\udc80") is no text pydantic takes: it becomes "?"
        valid = json.dumps(document, ensure_ascii=False).encode("utf-8", errors="replace")
        return TorchErrorFile.model_validate(json.loads(valid))
    except (BadJson, ValidationError):
        return None


def error_files(job_dir: Path) -> list[Recorded]:
    """Every rank's error file of the last attempt of each torchrun agent, then each
    agent's own (``errors/``); at most :data:`MAX_ERROR_FILES`."""
    found: list[Recorded] = []
    rank_logs = job_dir / RANK_LOGS
    looked = 0
    for run in _folders(rank_logs, _RUN):
        attempts = _folders(rank_logs / run, _ATTEMPT)
        if not attempts:
            continue
        last = max(attempts, key=lambda name: int(name.removeprefix("attempt_")))
        for local in sorted(_folders(rank_logs / run / last, _LOCAL_RANK), key=int):
            looked += 1
            if len(found) >= MAX_ERROR_FILES or looked > MAX_RANK_FOLDERS:
                return found
            directory = rank_logs / run / last / local
            error = read_error_file(directory, ERROR_FILE)
            if error is not None:
                path = f"{RANK_LOGS}/{run}/{last}/{local}/{ERROR_FILE}"
                found.append(Recorded(path, error, int(local), run))
    for name in sorted(_entries(job_dir / ERROR_FILES, _AGENT_FILE, folders=False)):
        error = read_error_file(job_dir / ERROR_FILES, name)
        if error is not None and len(found) < MAX_ERROR_FILES:
            found.append(Recorded(f"{ERROR_FILES}/{name}", error))
    return found


def run_folders(job_dir: Path) -> list[str]:
    """The torchrun agents' run folders (one per node that started its ranks)."""
    return _folders(job_dir / RANK_LOGS, _RUN)


_RUN = re.compile(r"[A-Za-z0-9_.-]{1,255}")
_ATTEMPT = re.compile(r"attempt_[0-9]{1,4}")
_LOCAL_RANK = re.compile(r"[0-9]{1,5}")
_AGENT_FILE = re.compile(r"node[0-9]{1,6}\.json")
_MAX_ENTRIES = 1024


def _folders(directory: Path, name: re.Pattern[str]) -> list[str]:
    return _entries(directory, name, folders=True)


def _entries(directory: Path, name: re.Pattern[str], *, folders: bool) -> list[str]:
    """Names in ``directory`` that fit ``name`` and are folders (or files), never links;
    at most :data:`_MAX_ENTRIES` looked at."""
    found: list[str] = []
    try:
        with os.scandir(directory) as listing:
            for count, entry in enumerate(listing):
                if count >= _MAX_ENTRIES:
                    break
                if name.fullmatch(entry.name) is None:
                    continue
                if entry.is_dir(follow_symlinks=False) == folders:  # a link is no folder
                    found.append(entry.name)
    except OSError:
        return []
    return sorted(found)


def log_lines(job_dir: Path, name: str) -> list[str]:
    """The lines of the last :data:`LOG_TAIL_BYTES` of the log ``name`` (the first, cut,
    line left out); none when it is not there or is no file to read."""
    try:
        raw = read_job_tail(job_dir, name, LOG_TAIL_BYTES)
    except Unreadable:
        return []
    if not raw:
        return []
    lines = raw.decode("utf-8", errors="replace").splitlines()
    return lines[1:] if len(raw) >= LOG_TAIL_BYTES else lines


_FIELD = re.compile(r"\s{2,}(time|rank|exitcode|error_file)\s*: (.*)$")
_ENTRY = re.compile(r"^\[[0-9]{1,6}\]:$")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{2}:[0-9]{2}:[0-9]{2}")
_RANK = re.compile(r"([0-9]{1,7}) \(local_rank: [0-9]{1,7}\)")
_EXIT = re.compile(r"(-?[0-9]{1,3}) \(pid: [0-9]{1,10}\).*")


def rank_exits(lines: list[str]) -> list[RankExit]:
    """The failed ranks of every ``ChildFailedError`` report in ``lines``:

    .. code-block:: text

        Root Cause (first observed failure):
        [0]:
          time      : 2026-12-02_04:01:02
          host      : node2
          rank      : 1 (local_rank: 0)
          exitcode  : 3 (pid: 4242)
          error_file: <N/A>
    """
    found: list[RankExit] = []
    fields: dict[str, str] = {}
    root = False
    for line in lines:
        if line.startswith("Root Cause (first observed failure)"):
            root, fields = True, {}
        elif line.startswith(("Failures:", "=====")):
            root, fields = False, {}
        elif _ENTRY.match(line):
            fields = {}
        match = _FIELD.match(line)
        if match is None:
            continue
        fields[match.group(1)] = match.group(2).strip()
        if match.group(1) == "error_file":
            exit_ = _exit(fields, root)
            if exit_ is not None:
                found.append(exit_)
            fields = {}
    return found


def _exit(fields: dict[str, str], root: bool) -> RankExit | None:
    time = _TIME.fullmatch(fields.get("time", ""))
    rank = _RANK.fullmatch(fields.get("rank", ""))
    code = _EXIT.fullmatch(fields.get("exitcode", ""))
    if time is None or rank is None or code is None or abs(int(code.group(1))) > 255:
        return None
    return RankExit(int(rank.group(1)), int(code.group(1)), time.group(0),
                    fields["error_file"][:4096], root)  # fmt: skip


def local_time(seconds: int) -> str:
    """An error file's time as torchrun prints it (to compare with :attr:`RankExit.time`)."""
    try:
        return datetime.fromtimestamp(seconds).isoformat(sep="_")
    except (OverflowError, OSError, ValueError):
        return ""
