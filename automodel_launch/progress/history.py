"""``training.jsonl`` and ``validation.jsonl``: the JSON Lines AutoModel appends under
``checkpoint.checkpoint_dir``, ``{"step", "epoch", "timestamp", ...metrics}`` (the
timestamp in UTC, ISO 8601 with milliseconds and ``Z``), 100 records at a time.

Only the file's end is read (:data:`TAIL_BYTES`): the first line of it may be cut and is
dropped, a line that is no JSON object of the expected shape is counted, not guessed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from automodel_launch.progress.lines import MAX_LINE_CHARS, MAX_STEP

TRAINING = "training.jsonl"
VALIDATION = "validation.jsonl"
TAIL_BYTES = 256 * 1024
"""The end of a JSONL file read: about 1,000 records, enough for a curve and a rate."""
MAX_RECORDS = 4096


class Record(BaseModel):
    """One record; metrics AutoModel may add are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    step: Annotated[int, Field(ge=0, le=MAX_STEP, strict=True)]
    epoch: Annotated[int, Field(ge=0, le=10**9, strict=True)] = 0
    timestamp: Annotated[str, Field(max_length=40)] | None = None
    loss: float | None = None
    val_loss: float | None = None
    tps: float | None = None
    tps_per_gpu: float | None = None
    mem: float | None = None

    @property
    def seconds(self) -> float | None:
        """The timestamp as seconds since the epoch; None when it is not one."""
        if self.timestamp is None:
            return None
        try:
            stamp = datetime.fromisoformat(self.timestamp.replace("Z", "+00:00"))
        except ValueError:
            return None
        if stamp.tzinfo is None:
            from datetime import timezone

            stamp = stamp.replace(tzinfo=timezone.utc)
        return stamp.timestamp()

    @property
    def value(self) -> float | None:
        """The record's loss: ``loss``, or a validation file's ``val_loss``."""
        return self.loss if self.loss is not None else self.val_loss


@dataclass(frozen=True)
class History:
    """The records read from one file's end, and what could not be used."""

    records: tuple[Record, ...]
    skipped: int = 0
    note: str | None = None


def parse(raw: bytes, *, whole: bool) -> History:
    """The records of ``raw``, a file's end (``whole``: the file from its start)."""
    lines = raw.split(b"\n")
    if not whole and lines:
        lines = lines[1:]  # cut by the tail
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        lines.pop()  # still being written
    records: list[Record] = []
    skipped = 0
    for line in lines[-MAX_RECORDS:]:
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            skipped += 1
            continue
        try:
            data = json.loads(line.decode("utf-8", errors="replace"))
            records.append(Record.model_validate(data))
        except (ValueError, ValidationError, RecursionError):
            skipped += 1
    return History(tuple(records), skipped)


def read_history(directory: Path, name: str) -> History | None:
    """The end of ``directory/name`` (None when it is not there), through the job files'
    reader: a link, a pipe or a device there is a note, not a read."""
    from automodel_launch.jobs.files import Unreadable, read_job_tail

    try:
        raw = read_job_tail(directory, name, TAIL_BYTES + 1)
    except FileNotFoundError:
        return None
    except Unreadable as exc:
        return History((), note=f"{directory / name} is not read: {exc.reason}")
    except OSError as exc:
        return History((), note=f"{directory / name} is not read: {exc.strerror or exc}")
    if raw is None:
        return None
    return parse(raw[-TAIL_BYTES:], whole=len(raw) <= TAIL_BYTES)
