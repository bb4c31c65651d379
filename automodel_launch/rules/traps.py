"""YAML tags and YAML 1.1 traps in launcher sections: found after loading, reported after every rule
(a section's type error on a trapped value turns its warning into the one error)."""

from __future__ import annotations

import math
from typing import Any

from automodel_launch.config.document import LAUNCHER_SECTIONS
from automodel_launch.diagnostics import Loc
from automodel_launch.loading import LoadedFile, tags
from automodel_launch.loading.yaml11 import differs
from automodel_launch.rules.context import Context, Trap


def find_traps(loaded: LoadedFile) -> dict[Loc, Trap]:
    traps: dict[Loc, Trap] = {}
    for loc, text in loaded.plain.items():
        if not loc or loc[0] not in LAUNCHER_SECTIONS:
            continue
        value_12 = _value_at(loaded.data, loc)
        other = differs(text, value_12)
        if other is not None:
            traps[loc] = Trap(text, other, value_12)
    return traps


def yaml_tags(ctx: Context) -> None:
    """Launcher fields take plain values; a recipe section may carry a tag through when
    AutoModel's loader (PyYAML's safe loader) can construct it."""
    for loc, written in ctx.tags.items():
        if loc and loc[0] in LAUNCHER_SECTIONS:
            ctx.sink.add(
                "yaml-tag",
                loc,
                f"the tag {written} is not understood here: launcher fields take plain YAML values",
                "remove the tag (quote the value to keep it text)",
            )
        elif not tags.safe_loader_reads(written, _value_at(ctx.data, loc, None)):
            ctx.sink.add("yaml-tag", loc, tags.unreadable(written), tags.UNREADABLE_HINT)


def report_traps(ctx: Context) -> None:
    for loc, trap in ctx.traps.items():
        value = trap.value_11
        also = ""
        if isinstance(trap.value_12, float) and not math.isfinite(trap.value_12):
            also = f" (and by YAML 1.2 as {_reading(trap.value_12)})"
        ctx.sink.add(
            "yaml11-trap",
            loc,
            f"unquoted {trap.text} is read by AutoModel's YAML 1.1 "
            f"loader as {_reading(value)}{also}" + _consequence(loc, value),
            _trap_hint(loc, trap),
            severity=trap.severity,
        )


def _trap_hint(loc: Loc, trap: Trap) -> str:
    """A spelling both readers agree on, of the kind the field wants.

    Quoting helps only a text field: a number field needs plain decimal digits
    (``0o17`` is 15 in YAML 1.2 but text in 1.1; ``1e400`` is infinity, then text).
    """
    wants = trap.wants
    if wants is None:  # the field took the YAML 1.2 value: keep that kind
        number = _is_number(trap.value_12) and "env_vars" not in loc
        wants = "number" if number else "text"
    if wants == "bool":
        value = trap.value_11
        return f"write {str(value).lower()}" if isinstance(value, bool) else "write true or false"
    if wants == "number":
        if isinstance(trap.value_12, int) and not isinstance(trap.value_12, bool):
            return f"write {trap.value_12}: plain decimal digits read the same in YAML 1.1 and 1.2"
        example = f", e.g. {trap.value_11}" if _is_number(trap.value_11) else ""
        return f"write a whole number in plain decimal digits{example}"
    return f'quote it: {loc[-1]}: "{trap.text}"'


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _reading(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    if isinstance(value, float) and math.isinf(value):
        return "-infinity" if value < 0 else "infinity"
    kinds = {int: "integer", float: "number", str: "text"}
    return f"the {kinds.get(type(value), 'value')} {value!r}"


def _consequence(loc: Loc, value_11: Any) -> str:
    if loc[-1] == "time" and isinstance(value_11, int) and not isinstance(value_11, bool):
        return f", which Slurm takes as {value_11} minutes"
    return ""


def _value_at(data: Any, loc: Loc, missing: Any = None) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return missing
    return data
