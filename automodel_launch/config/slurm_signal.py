"""``--signal`` values, parsed the way ``sbatch --signal`` parses them.

sbatch (src/common/proc_args.c ``get_signal_opts``) reads ``[{R|B}:]SIG[@TIME]``:
an optional ``R`` (also signal before a reservation ends, Slurm 23.02+) and ``B``
(signal only the batch shell) in either order, case-insensitive, then a signal given
by number or by name (``USR1``, ``SIGUSR1``, ``usr1``), then seconds before the time
limit, 0..65535, 60 when there is no ``@``.

The job script traps the signal in its batch shell to requeue the job, so only a
signal bash can trap and that Slurm sends for nothing else is usable: ``USR1`` or
``USR2`` (Slurm itself ends a job with ``CONT`` and ``TERM``; ``KILL`` and ``STOP``
cannot be trapped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from automodel_launch.config.types import fail, kind

DEFAULT_SECONDS = 60
MAX_SECONDS = 0xFFFF
SLURM_NAMES = {
    "HUP": 1, "INT": 2, "QUIT": 3, "ABRT": 6, "KILL": 9, "USR1": 10, "USR2": 12,
    "ALRM": 14, "TERM": 15, "URG": 23, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21,
    "TTOU": 22,
}  # fmt: skip
"""The names sbatch knows, with their Linux numbers."""
USABLE = ("USR1", "USR2")
FORMAT = "[R:]SIGNAL[@SECONDS], e.g. USR1@120 (SIGNAL USR1 or USR2, SECONDS 0..65535)"
_SYNTAX = re.compile(r"(?P<flags>[RrBb]{1,2}:)?(?P<sig>[^@]*)(?:@(?P<secs>.*))?", re.DOTALL)


class SignalError(ValueError):
    pass


@dataclass(frozen=True)
class SlurmSignal:
    """A warning signal: which one, how long before the time limit, and ``R``."""

    name: str
    seconds: int
    reservation: bool = False

    @property
    def text(self) -> str:
        """The normalised spelling stored in the config: ``[R:]NAME@SECONDS``."""
        return f"{'R:' if self.reservation else ''}{self.name}@{self.seconds}"

    @property
    def sbatch(self) -> str:
        """The ``--signal`` value: always ``B`` (the batch shell traps it)."""
        return f"{'R' if self.reservation else ''}B:{self.name}@{self.seconds}"


def parse(text: str) -> SlurmSignal:
    """Parse a ``--signal`` value; raises :class:`SignalError` with the reason."""
    match = _SYNTAX.fullmatch(text)
    assert match is not None  # every string matches: the parts are checked below
    flags = (match["flags"] or "").upper()
    if len(flags) == 3 and flags[0] == flags[1]:
        raise SignalError(f"'{text}' repeats the {flags[0]}: flag")
    name = _signal_name(match["sig"], text)
    seconds = _seconds(match["secs"], text)
    if name not in USABLE:
        raise SignalError(
            f"the job script traps the signal to requeue, and {name} cannot serve: "
            + (
                "bash cannot trap it"
                if name in ("KILL", "STOP")
                else "Slurm sends it for other reasons (ending or stopping a job)"
                if name in ("TERM", "CONT", "TSTP", "TTIN", "TTOU")
                else "only USR1 and USR2 are left to the job"
            )
        )
    return SlurmSignal(name, seconds, reservation="R" in flags)


def _signal_name(raw: str, text: str) -> str:
    if raw.isascii() and raw.isdecimal():
        number = int(raw)
        for name, value in SLURM_NAMES.items():
            if value == number:
                return name
        raise SignalError(f"'{text}': signal number {number} is not one sbatch names")
    word = raw.upper()
    word = word[3:] if word.startswith("SIG") else word
    if word not in SLURM_NAMES:
        raise SignalError(f"'{text}' does not name a signal")
    return word


def _seconds(raw: str | None, text: str) -> int:
    if raw is None:
        return DEFAULT_SECONDS
    if not (raw.isascii() and raw.isdecimal()):
        raise SignalError(f"'{text}': the time after @ must be whole seconds")
    seconds = int(raw)
    if seconds > MAX_SECONDS:
        raise SignalError(f"'{text}': {seconds} seconds is more than sbatch's {MAX_SECONDS}")
    return seconds


# --------------------------------------------------------------------------- field type
def _field(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # a bare number is a signal number, as in --signal=10
    if not isinstance(value, str):
        fail(
            "invalid-signal",
            f'signal must be text such as "USR1@120", not {kind(value)}',
            f"write {FORMAT}",
        )
    try:
        return parse(value).text
    except SignalError as exc:
        fail("invalid-signal", str(exc), f"write {FORMAT}")


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


_PATTERN = (
    r"^([RrBb]{1,2}:)?((" + _any_case("sig") + r")?" + _any_case("usr") + r"[12]|10|12)"
    r"(@[0-9]{1,5})?$"
)
SlurmSignalText = Annotated[
    str,
    BeforeValidator(_field),
    WithJsonSchema(
        {
            "anyOf": [
                {
                    "type": "string",
                    "pattern": _PATTERN,
                    "patternErrorMessage": f"Slurm signal: {FORMAT}",
                },
                {"type": "integer", "enum": [10, 12]},
            ]
        }
    ),
]
"""A ``--signal`` value, stored as ``[R:]NAME@SECONDS`` (``USR1@120``)."""
