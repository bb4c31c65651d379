"""YAML 1.1 traps in launcher sections: found after loading, reported after every rule
(a section's type error on a trapped value turns its warning into the one error)."""

from __future__ import annotations

from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import Loc, Severity
from automodel_launch.loading import LoadedFile
from automodel_launch.loading.yaml11 import differs
from automodel_launch.rules.context import Context, Trap


def find_traps(loaded: LoadedFile) -> dict[Loc, Trap]:
    traps: dict[Loc, Trap] = {}
    for loc, text in loaded.plain.items():
        if not loc or loc[0] not in LAUNCHER_SECTIONS:
            continue
        other = differs(text, _value_at(loaded.data, loc))
        if other is not None:
            traps[loc] = Trap(text, other)
    return traps


def report_traps(ctx: Context) -> None:
    for loc, trap in ctx.traps.items():
        value = trap.value_11
        if isinstance(value, bool) and trap.severity is Severity.ERROR:
            hint = f"write {str(value).lower()}"
        else:
            hint = f'quote it: {loc[-1]}: "{trap.text}"'
        ctx.sink.add(
            "yaml11-trap",
            loc,
            f"unquoted {trap.text} is read by AutoModel's YAML 1.1 "
            f"loader as {_reading(value)}" + _consequence(loc, value),
            hint,
            severity=trap.severity,
        )


def _reading(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    kinds = {int: "integer", float: "number", str: "text"}
    return f"the {kinds.get(type(value), 'value')} {value!r}"


def _consequence(loc: Loc, value_11: Any) -> str:
    if loc[-1] == "time" and isinstance(value_11, int) and not isinstance(value_11, bool):
        return f", which Slurm takes as {value_11} minutes"
    return ""


def _value_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        data = data[part]
    return data
