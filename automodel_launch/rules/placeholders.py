"""Placeholders copied from documentation and never filled in.

``account: your_account``, ``hf_home: /path/to/your/HF_HOME``, ``<partition>`` or a
``{{ template }}`` variable or a template's token (``__MODEL_PATH__``, replaced by a script
before the file is used) pass every type check, and then the job asks Slurm for an
account that does not exist or writes into a directory nobody meant. A warning names
the field. Recipe text such as chat templates (``<|im_start|>``, ``{{ message }}`` inside
``{% ... %}``) or special tokens (``<pad>``) is not a placeholder: only short values,
whole path segments, and ``<...>`` naming what to fill in (``<team>``, ``<your_...>``).
"""

from __future__ import annotations

import re
from typing import Any

from automodel_launch.diagnostics import Loc
from automodel_launch.rules.context import Context

_PATTERNS = (
    re.compile(r"(?i)(^|[/_.-])your([_/-]|$)"),
    re.compile(r"(?i)^my[_-](account|partition|project|team|cluster|bucket|org|user|qos)$"),
    re.compile(r"(?i)(^|/)path/to(/|$)"),
    re.compile(
        r"(?i)(^|/)<[^<>/]*(your|my|team|user|account|partition|project|path|dir|entity|"
        r"bucket|org|cluster|image|container|name)[^<>/]*>(/|$)"
    ),
    re.compile(r"^\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}$"),
    re.compile(r"(^|[^A-Za-z0-9])__[A-Z][A-Z0-9_]*[A-Z0-9]__($|[^A-Za-z0-9_])"),
)
_LONGEST = 200
"""Longer values are prose or templates, not a field someone forgot to fill in."""


def placeholders(ctx: Context) -> None:
    suspects: list[tuple[Loc, str]] = []
    _suspects(ctx.data, (), suspects)
    for loc, text in suspects:
        if any(p.search(text) for p in _PATTERNS):
            ctx.sink.add(
                "placeholder-value",
                loc,
                f"'{text}' looks like a placeholder copied from documentation",
                f"replace it with the real value for {_field(loc)}",
            )


def _suspects(value: dict[Any, Any] | list[Any], loc: Loc, found: list[tuple[Loc, str]]) -> None:
    """Short one-line text values holding a word a placeholder needs, in document order:
    this reads every value of every file, so a loc is built only for those."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, str):
            if len(item) <= _LONGEST and "\n" not in item:
                lowered = item.lower()  # every pattern needs one of these: a fifth of a search
                if (
                    "your" in lowered
                    or "my" in lowered
                    or "path" in lowered
                    or "<" in item
                    or "{" in item
                    or "__" in item
                ):
                    found.append(((*loc, key), item))
        elif isinstance(item, (dict, list)):
            _suspects(item, (*loc, key), found)


def _field(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in loc if isinstance(p, str)) or "this field"
