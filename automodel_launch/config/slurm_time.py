"""Slurm time limits, parsed exactly the way ``sbatch --time`` parses them.

Slurm (src/common/parse_time.c) accepts digits, ``-`` and ``:`` only: ``M``, ``M:S``,
``H:M:S``, ``D-H``, ``D-H:M``, ``D-H:M:S`` (and ``D-``), plus ``-1``, ``INFINITE`` and
``UNLIMITED`` in any case. Fields are not range-checked (``0:90:00`` is 90 minutes),
seconds round up to a whole minute, and ``0`` means no limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INFINITE_WORDS = ("unlimited", "infinite")
FORMATS = 'M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED (e.g. "04:00:00", "2-00:00:00")'
_MAX_SECONDS = 2**31 - 2
_FIELDS = re.compile(r"\d+")


@dataclass(frozen=True)
class SlurmTime:
    """A parsed limit: whole minutes, or ``None`` for no limit."""

    minutes: int | None

    @property
    def normalized(self) -> str:
        """Slurm's own spelling (``mins2time_str``): ``[D-]HH:MM:SS`` or ``UNLIMITED``."""
        if self.minutes is None:
            return "UNLIMITED"
        days, rest = divmod(self.minutes, 1440)
        hours, minutes = divmod(rest, 60)
        clock = f"{hours:02d}:{minutes:02d}:00"
        return f"{days}-{clock}" if days else clock


class TimeError(ValueError):
    pass


def parse(text: str) -> SlurmTime:
    """Parse a ``--time`` value; raises :class:`TimeError` with the reason."""
    value = text
    if value == "-1" or value.lower() in INFINITE_WORDS:
        return SlurmTime(None)
    if not _is_valid_timespec(value):
        raise TimeError(f"'{text}' is not a Slurm time limit")
    seconds = _seconds(value)
    if seconds > _MAX_SECONDS:
        raise TimeError(f"'{text}' is longer than Slurm can store")
    minutes = (seconds + 59) // 60
    return SlurmTime(minutes if minutes > 0 else None)


def from_minutes(minutes: int) -> SlurmTime:
    if minutes < 0 and minutes != -1:
        raise TimeError(f"{minutes} minutes is negative")
    if minutes * 60 > _MAX_SECONDS:
        raise TimeError(f"{minutes} minutes is longer than Slurm can store")
    return SlurmTime(minutes if minutes > 0 else None)


def _is_valid_timespec(value: str) -> bool:
    if not value or value.startswith("-") or set(value) - set("0123456789-:"):
        return False
    dashes, colons = value.count("-"), value.count(":")
    if dashes > 1 or colons > 2:
        return False
    if dashes and ":" in value.split("-", 1)[0]:
        return False
    groups = len(_FIELDS.findall(value))
    needed = {0: 1, 1: 2, 2: 3}[colons] + (dashes if colons else 0)
    return groups >= needed


def _seconds(value: str) -> int:
    if "-" in value:
        days_text, clock = value.split("-", 1)
        # the validator leaves no empty field after the dash, only an empty clock ("2-")
        parts = [int(p) for p in clock.split(":")] if clock else [0]
        hours, minutes, seconds = [*parts, 0, 0][:3]
        return int(days_text) * 86400 + hours * 3600 + minutes * 60 + seconds
    parts = [int(p) for p in value.split(":")]
    if len(parts) == 3:
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    if len(parts) == 2:
        return parts[0] * 60 + parts[1]
    return parts[0] * 60


def looks_like_hours_minutes(text: str) -> bool:
    """``30:00`` or ``4:00``: Slurm reads M:S, a person often means H:MM."""
    value = text
    return value.count(":") == 1 and "-" not in value
