"""``config show``: the merged launcher section, each value with where it came from.

Every value is one line ``key: value  # origin``; the origins are the recipe's
``file:line``, ``profile NAME (file:line)``, ``--set KEY=VALUE``, or ``default`` for
a field no layer set (fields whose default is empty are left out). Credential values
are masked as in every other output.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from automodel_launch.config.document import SECTION_MODELS
from automodel_launch.config.environment import redactor
from automodel_launch.diagnostics import Loc, dotted
from automodel_launch.profiles import LAUNCHERS
from automodel_launch.profiles.merge import PRECEDENCE, MergedFile
from automodel_launch.secrets import display

Entry = tuple[Loc, Any, str]
"""(loc, value, origin); a mapping or a list opens a block: value is None, origin ""."""


def entries(merged: MergedFile) -> list[Entry]:
    """Each launcher section's values and defaults. A null section is no section (as the
    rules read it); one that is no mapping (an error) is shown as written, one line."""
    found: list[Entry] = []
    for name in LAUNCHERS:
        section = merged.data.get(name)
        if section is None:
            continue
        if not isinstance(section, dict):
            found.append(((name,), section, merged.provenance.describe((name,))))
            continue
        found.append(((name,), None, ""))
        _walk(section, (name,), merged, found)
        found += _defaults(name, section)
    return found


def _walk(value: Any, loc: Loc, merged: MergedFile, found: list[Entry]) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        here = (*loc, key)
        if isinstance(item, (dict, list)) and item:
            found.append((here, None, ""))
            _walk(item, here, merged, found)
        else:
            found.append((here, item, merged.provenance.describe(here)))


def _defaults(name: str, section: dict[str, Any]) -> list[Entry]:
    model: type[BaseModel] = SECTION_MODELS[name]
    out: list[Entry] = []
    for key, info in model.model_fields.items():
        if key in section or info.default_factory is not None:
            continue
        if info.default is not None:
            out.append(((name, key), info.default, "default"))
    return out


def text(merged: MergedFile) -> str:
    hide = redactor(merged.data, merged.plain)
    lines = [f"# {merged.path}; precedence: " + " > ".join(_WORDS[p] for p in PRECEDENCE)]
    shown = entries(merged)
    if not shown:
        return lines[0] + "\n# no launcher section: runs interactively with torchrun\n"
    rows = [
        (display(hide(_line(loc, value, opens=not origin))), display(hide(origin)))
        for loc, value, origin in shown
    ]
    width = max(len(line) for line, origin in rows if origin) + 2
    lines += [line if not origin else f"{line.ljust(width)}# {origin}" for line, origin in rows]
    return "\n".join(lines) + "\n"


def as_json(merged: MergedFile) -> str:
    hide = redactor(merged.data, merged.plain)
    values = [
        {
            "path": _masked(dotted(loc), hide),
            "value": _masked(value, hide),
            "origin": _masked(origin, hide),
        }
        for loc, value, origin in entries(merged)
        if origin
    ]
    return json.dumps({"path": merged.path, "values": values}, indent=2) + "\n"


_WORDS = {"set": "--set", "recipe": "recipe", "profile": "profile", "default": "defaults"}


def _line(loc: Loc, value: Any, *, opens: bool = False) -> str:
    indent = "  " * (len(loc) - 1)
    key = "-" if isinstance(loc[-1], int) else f"{loc[-1]}:"
    return f"{indent}{key}" if opens else f"{indent}{key} {_scalar(value)}"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value in ({}, []):
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(value, default=str)


def _masked(value: Any, hide: Any) -> Any:
    if isinstance(value, str):
        return display(hide(value))
    return value
