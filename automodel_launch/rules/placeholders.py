"""Placeholders copied from documentation and never filled in.

``account: your_account``, ``hf_home: /path/to/your/HF_HOME``, ``<partition>`` or a
``{{ template }}`` variable pass every type check, and then the job asks Slurm for an
account that does not exist or writes into a directory nobody meant. A warning names
the field. Recipe text such as chat templates (``<|im_start|>``, ``{{ message }}`` inside
``{% ... %}``) or special tokens (``<pad>``) is not a placeholder: only short values,
whole path segments, and ``<...>`` naming what to fill in (``<team>``, ``<your_...>``).
"""

from __future__ import annotations

import re

from automodel_launch.config.environment import strings
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
)
_MAYBE = re.compile(r"(?i)your|my|path|[<{]")
"""One quick look before the patterns: most values hold none of these."""
_LONGEST = 200
"""Longer values are prose or templates, not a field someone forgot to fill in."""


def placeholders(ctx: Context) -> None:
    for loc, text in strings(ctx.data, ()):
        if len(text) > _LONGEST or "\n" in text or not _MAYBE.search(text):
            continue
        if any(p.search(text) for p in _PATTERNS):
            ctx.sink.add(
                "placeholder-value",
                loc,
                f"'{text}' looks like a placeholder copied from documentation",
                f"replace it with the real value for {_field(loc)}",
            )


def _field(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in loc if isinstance(p, str)) or "this field"
