"""Field types shared by the launcher models.

Each type validates, normalises, and describes itself in the JSON Schema, so the
CLI and editors agree on what is valid. Failures raise :func:`fail`, whose code
becomes the diagnostic code.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, NoReturn

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from automodel_launch.config import slurm_time
from automodel_launch.loading import env


def fail(code: str, message: str, hint: str | None = None) -> NoReturn:
    """Raise a validation error whose type is our diagnostic code."""
    raise PydanticCustomError(code, "{message}", {"message": message, "hint": hint})


PROFILE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
"""A profile name: the top-level key of a profile file."""


class StrictSection(BaseModel):
    """A launcher section: unknown keys are errors, types are not coerced."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=False, defer_build=True)


class OpenSection(BaseModel):
    """A recipe section: only the keys launching depends on are checked."""

    model_config = ConfigDict(extra="allow", defer_build=True)


# --------------------------------------------------------------------------- counts
MAX_NODES = 100_000
"""Nodes of one job: the largest clusters have about 10,000."""
MAX_PER_NODE = 1024
"""GPUs, accelerators or ranks of one node: the largest nodes have 72 GPUs."""
MAX_CPUS_PER_TASK = 16_384
"""CPUs of one node (its torchrun agent's task): the largest have under 1,000."""
MAX_RESTARTS = 10_000
"""Requeues or restarts of one job: each is a run of the whole job."""
MAX_DISK_GB = 65_536
"""One node's disk, in GB: no cloud's disk is larger (64 TiB)."""
MAX_IDLE_MINUTES = 525_600
"""An idle timer of a year."""


def at_most(maximum: int, what: str, hint: str) -> Any:
    """A count's upper bound, with the reason: a number past it is a typo (a digit too
    many), and would otherwise pass here and fail, or misbehave, on the cluster.

    ``what`` ends the message: ``100000 is more than 1024: {what}``. Use it in an
    ``Annotated`` with a ``Field(le=maximum)`` (the schema's maximum)."""

    def check(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and value > maximum:
            fail("out-of-range", f"{number_text(value)} is more than {maximum}: {what}", hint)
        return value

    return BeforeValidator(check)


Nodes = Annotated[
    int,
    Field(ge=1, le=MAX_NODES),
    at_most(MAX_NODES, "no cluster has that many nodes", "a digit too many?"),
]
_GPUS = at_most(MAX_PER_NODE, "no node has that many GPUs", "the count is per node")
GpusPerNode = Annotated[int, Field(ge=1, le=MAX_PER_NODE), _GPUS]
GpusOrNone = Annotated[int, Field(ge=0, le=MAX_PER_NODE), _GPUS]
"""0: a CPU job."""
RanksPerNode = Annotated[
    int,
    Field(ge=1, le=MAX_PER_NODE),
    at_most(MAX_PER_NODE, "no node runs that many ranks", "one rank per GPU of a node"),
]
CpusPerTask = Annotated[
    int,
    Field(ge=1, le=MAX_CPUS_PER_TASK),
    at_most(MAX_CPUS_PER_TASK, "no node has that many CPUs", "a digit too many?"),
]
Restarts = Annotated[
    int,
    Field(ge=0, le=MAX_RESTARTS),
    at_most(MAX_RESTARTS, "no job needs that many", "a digit too many? each one runs it again"),
]


# --------------------------------------------------------------------------- time
def _time(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        fail(
            "invalid-time",
            f'time must be text such as "04:00:00", not {kind(value)}',
            f"use one of {slurm_time.FORMATS}",
        )
    try:
        parsed = (
            slurm_time.from_minutes(value) if isinstance(value, int) else slurm_time.parse(value)
        )
    except slurm_time.TimeError as exc:
        fail("invalid-time", str(exc), f"use one of {slurm_time.FORMATS}")
    return parsed.normalized


_TIME_PATTERN = (
    r"^(\d+(:\d+){0,2}|\d+-(\d+(:\d+){0,2})?|-1|"
    + "".join(f"[{c.upper()}{c}]" for c in "unlimited")
    + "|"
    + "".join(f"[{c.upper()}{c}]" for c in "infinite")
    + ")$"
)
SlurmTimeText = Annotated[
    str,
    BeforeValidator(_time),
    WithJsonSchema(
        {
            "type": ["string", "integer"],
            "pattern": _TIME_PATTERN,
            "minimum": -1,
            "patternErrorMessage": f"Slurm time: {slurm_time.FORMATS}. Quote it.",
        }
    ),
]
"""A Slurm time limit, stored in Slurm's normalised spelling (``04:00:00``)."""


# --------------------------------------------------------------------------- ports
_PORT_TEXT = (
    r"^(102[4-9]|10[3-9][0-9]|1[1-9][0-9]{2}|[2-9][0-9]{3}|[1-5][0-9]{4}|6[0-4][0-9]{3}"
    r"|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$"
)
"""1024..65535 as text, for editors (JSON Schema cannot range-check a string)."""


def _port(value: Any) -> int | str:
    if value == "auto":
        return "auto"
    if isinstance(value, str) and value.isascii() and value.isdecimal():
        value = int(value)  # a quoted port ("13742") is the same port
    if isinstance(value, bool) or not isinstance(value, int):
        fail(
            "invalid-port",
            f"master_port must be a number or 'auto', not {kind(value)}",
            "pick a free port in 1024..65535, or 'auto' to derive one from the job id",
        )
    if not 1024 <= value <= 65535:
        fail(
            "invalid-port",
            f"port {value} is outside 1024..65535",
            "pick a free port in 1024..65535, or 'auto' to derive one from the job id",
        )
    return value


Port = Annotated[
    int | Literal["auto"],
    BeforeValidator(_port),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1024, "maximum": 65535},
                {"type": "string", "pattern": _PORT_TEXT},
                {"const": "auto"},
            ]
        }
    ),
]
"""A port number or ``auto``; a quoted number (``"13742"``) is accepted and stored as int."""


# --------------------------------------------------------------------------- env vars
def _env_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        fail(
            "wrong-type",
            f"an environment value must be text, not {kind(value)}",
            "write the value as text; pass a variable through as ${NAME}",
        )
    return value


def _env_name(value: Any) -> str:
    if not isinstance(value, str) or not env.NAME_RE.fullmatch(value):
        fail(
            "invalid-env-name",
            f"{show(value)} is not an environment variable name",
            "names are letters, digits and '_', not starting with a digit (e.g. HF_HOME)",
        )
    return value


EnvName = Annotated[str, BeforeValidator(_env_name)]
EnvValue = Annotated[
    str,
    BeforeValidator(_env_value),
    WithJsonSchema({"type": ["string", "number", "boolean"]}),
]
EnvVars = Annotated[
    dict[EnvName, EnvValue],
    Field(json_schema_extra={"propertyNames": {"pattern": env.NAME_RE.pattern}}),
]


def _secret_reference(value: Any) -> str:
    if not isinstance(value, str) or not env.is_pure_reference(value):
        fail(
            "secret-in-plain-text",
            "a credential is written into the config file",
            "write a reference such as ${HF_TOKEN} and set the variable where you submit",
        )
    return value


SecretReference = Annotated[
    str,
    BeforeValidator(_secret_reference),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$",
            "patternErrorMessage": "never the credential itself: a reference such as ${HF_TOKEN}",
        }
    ),
]


# --------------------------------------------------------------------------- helpers
def not_text(name: str, value: Any, code: str = "invalid-job-name") -> NoReturn:
    """A name that YAML read as a number, boolean, list...: say so, and how to keep the text."""
    if isinstance(value, bool):
        read = f"the boolean {str(value).lower()}"
    elif isinstance(value, (int, float)):
        read = f"the number {number_text(value)}"
    else:
        fail(code, f"{name} must be text, not {kind(value)}", "write a plain name")
    fail(
        code,
        f"{name} must be text, but YAML read it as {read}",
        "put the value in quotes so YAML keeps it as written",
    )


def number_text(value: float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("-" if value < 0 else "") + "infinity"
    if isinstance(value, int) and abs(value) >= 10**40:
        return "with more than 40 digits"
    return str(value)


def kind(value: Any) -> str:
    names = {
        bool: "true/false",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "a mapping",
        type(None): "null",
    }
    return names.get(type(value), "text") if not isinstance(value, str) else f"'{value}'"


def show(value: Any) -> str:
    """The value quoted for a message; control characters (a trailing newline) made visible."""
    if not isinstance(value, str):
        return kind(value)
    return "'" + "".join(repr(c)[1:-1] if not c.isprintable() else c for c in value) + "'"
