"""``--set KEY=VALUE``: one field of the recipe or its launcher section, from the command line.

``KEY`` is a dotted path (``slurm.nodes``, ``optimizer.lr``, ``slurm.extra_mounts[0]``).
``VALUE`` is read exactly as the same text after ``KEY:`` in the file would be: by the
recipe loader, so ``slurm.time=1:00:00`` meets the YAML 1.1 check a file's
``time: 1:00:00`` meets, ``'slurm.time="1:00:00"'`` is text, and ``[a, b]`` is a list.
A malformed ``KEY`` or a control character is a usage error; anything wrong with the
value itself is a diagnostic that names the argument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import Diagnostic, Loc, Origin, Severity, dotted
from automodel_launch.loading import load_text, tags
from automodel_launch.secrets import control_character

_SEGMENT = re.compile(r"(?P<key>[^.\[\]=\s]+)|\[(?P<index>\d+)\]")
_VALUE_KEY = "v"


class OverrideError(ValueError):
    """An argument that is not ``KEY=VALUE`` with a dotted KEY."""


@dataclass(frozen=True)
class Override:
    argument: str
    """As given after ``--set``: ``slurm.time=4h``."""
    loc: Loc
    value: Any
    plain: dict[Loc, str] = field(default_factory=dict)
    """Unquoted scalars of the value, relative to ``loc`` (for the YAML 1.1 comparison)."""
    tags: dict[Loc, str] = field(default_factory=dict)
    problems: tuple[Diagnostic, ...] = ()
    """The value could not be read (YAML syntax): the override is not applied."""
    option: str = "--set"
    """The option that gave it: ``--set``, or ``--sweep`` for one point's value."""

    @property
    def origin(self) -> Origin:
        return Origin("set", self.argument, option=self.option)


@dataclass(frozen=True)
class Layers:
    """What the command line adds to a recipe: a profile name and overrides, in order."""

    profile: str | None = None
    overrides: tuple[Override, ...] = ()
    ambient: bool = True
    """Whether the environment's profile (``AUTOMODEL_LAUNCH_PROFILE``) applies when no
    other does: not to a rerun, whose config already holds the profile it ran with."""


def parse_key(key: str) -> Loc:
    loc: list[str | int] = []
    position = 0
    while position < len(key):
        if loc and key[position] == ".":
            position += 1
        match = _SEGMENT.match(key, position)
        if match is None or (match["index"] is not None and not loc):
            raise OverrideError(
                f"'{key}' is not a dotted field path such as slurm.nodes or optimizer.lr"
            )
        loc.append(match["key"] if match["key"] is not None else int(match["index"]))
        position = match.end()
    if not loc or key.endswith("."):
        raise OverrideError("KEY is empty: write KEY=VALUE, e.g. slurm.nodes=4")
    return tuple(loc)


def parse_override(argument: str, option: str = "--set") -> Override:
    """``KEY=VALUE`` -> an Override; raises OverrideError for a usage error."""
    key, equals, text = argument.partition("=")
    if not equals:
        raise OverrideError(f"'{argument}' has no '=': write KEY=VALUE, e.g. slurm.nodes=4")
    char = control_character(argument)
    if char is not None:
        raise OverrideError(
            f"it holds the control character {ord(char):#04x}; a --set value is one line"
        )
    loc = parse_key(key.strip())
    result = load_text(f"{_VALUE_KEY}: {text}", "--set")
    origin = Origin("set", argument, option=option)
    if result.loaded is None or set(result.loaded.data) != {_VALUE_KEY} or result.diagnostics:
        problems = tuple(
            Diagnostic(d.severity, d.code, dotted(loc), 0, 0, d.message, d.hint, origin)
            for d in result.diagnostics
        ) or (
            Diagnostic(
                Severity.ERROR,
                "invalid-override", dotted(loc), 0, 0,
                f"'{text}' is not one YAML value", "quote it: KEY='\"VALUE\"'", origin,
            ),
        )  # fmt: skip
        return Override(argument, loc, None, problems=problems, option=option)
    loaded = result.loaded
    value = loaded.data[_VALUE_KEY]
    tagged = {k[1:]: v for k, v in loaded.tags.items()}
    if loc[0] not in LAUNCHER_SECTIONS and tagged:  # launcher fields: the tag rule says why
        problems = _tag_problems(loc, value, tagged, origin)
        return Override(argument, loc, None, problems=problems, option=option)
    return Override(
        argument,
        loc,
        value,
        plain={k[1:]: v for k, v in loaded.plain.items()},
        tags=tagged,
        option=option,
    )


def _tag_problems(
    loc: Loc, value: Any, tagged: dict[Loc, str], origin: Origin
) -> tuple[Diagnostic, ...]:
    """A recipe value from ``--set`` reaches the job config as data, written out again:
    a tag would be dropped (the value then reads otherwise), so it is refused."""
    problems = []
    for where, written in tagged.items():
        here = value
        for part in where:
            here = here[part]
        message = (
            tags.unreadable(written)
            if not tags.safe_loader_reads(written, here)
            else f"the tag {written} would not reach the job config: it is written from "
            "the value of --set, without tags"
        )
        problems.append(
            Diagnostic(
                Severity.ERROR, "yaml-tag", dotted((*loc, *where)), 0, 0, message,
                tags.UNREADABLE_HINT, origin,
            )
        )  # fmt: skip
    return tuple(problems)
