"""Environment variable references inside config values.

A value is literal text except its references: ``${VAR}``, ``${VAR,default}`` and
``${oc.env:VAR,default}`` (the forms AutoModel accepts). A bare ``$VAR`` is *not*
a reference (it stays literal), and neither ``$(...)`` nor backticks are ever run.
Where a reference is resolved depends on the launcher: Slurm resolves it in the
job's shell, SkyPilot at submit time (see :func:`expand`). Imports nothing of the
project; whether a value is a credential is :mod:`automodel_launch.secrets`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
NAME_RE = re.compile(rf"^{NAME}$")
_REFERENCE = re.compile(rf"\$\{{(?:oc\.env:)?(?P<name>{NAME})(?:,(?P<default>[^{{}}$]*))?\}}")
_OPENER = re.compile(r"\$\{")
_BARE = re.compile(rf"(?<![\\$])\$(?P<name>{NAME})")
_COMMAND = re.compile(r"\$\(|`")
_BARE_ONLY = re.compile(rf"\${NAME}")

RUNTIME_PREFIXES = ("SLURM_", "SKYPILOT_", "PET_", "TORCHELASTIC_")
RUNTIME_NAMES = frozenset(
    {
        "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "NODE_RANK",
        "GROUP_RANK", "LOCAL_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "HOSTNAME",
        "JOB_DIR",
    }
)  # fmt: skip
"""Variables the job itself defines: never 'unset' at validate time."""


@dataclass(frozen=True)
class Reference:
    name: str
    default: str | None
    start: int
    end: int


@dataclass
class Scan:
    """What a value holds besides literal text."""

    references: list[Reference] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    bare: list[str] = field(default_factory=list)
    command_substitution: bool = False


def scan(text: str) -> Scan:
    result = Scan()
    covered: list[tuple[int, int]] = []
    for match in _REFERENCE.finditer(text):
        result.references.append(
            Reference(match["name"], match["default"], match.start(), match.end())
        )
        covered.append(match.span())
    for match in _OPENER.finditer(text):
        if not any(start == match.start() for start, _ in covered):
            closing = text.find("}", match.start())
            result.malformed.append(text[match.start() : closing + 1 if closing >= 0 else None])
    result.bare = [m["name"] for m in _BARE.finditer(text)]
    result.command_substitution = bool(_COMMAND.search(text))
    return result


def is_pure_reference(text: str) -> bool:
    """The whole value is one reference with no literal default: ``${HF_TOKEN}``."""
    match = _REFERENCE.fullmatch(text.strip())
    return match is not None and match["default"] is None


def is_reference_only(text: str) -> bool:
    """Empty, or nothing but one reference (``${NAME}``, or a bare ``$NAME``): no literal."""
    stripped = text.strip()
    return not stripped or is_pure_reference(stripped) or bool(_BARE_ONLY.fullmatch(stripped))


def is_runtime_variable(name: str) -> bool:
    return name in RUNTIME_NAMES or name.startswith(RUNTIME_PREFIXES)


def split(text: str) -> list[str | Reference]:
    """Literal pieces and references in order, for renderers that quote each part."""
    parts: list[str | Reference] = []
    position = 0
    for ref in scan(text).references:
        if ref.start > position:
            parts.append(text[position : ref.start])
        parts.append(ref)
        position = ref.end
    if position < len(text):
        parts.append(text[position:])
    return parts


def expand(text: str, environ: Mapping[str, str]) -> tuple[str, list[str]]:
    """Resolve references now; returns the text and the names that were unset."""
    missing: list[str] = []

    def value(match: re.Match[str]) -> str:
        name, default = match["name"], match["default"]
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _REFERENCE.sub(value, text), missing
