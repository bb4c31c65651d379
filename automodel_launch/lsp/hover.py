"""Hover: a key's row of the field reference; on a ``${VAR}``, whether it is set here.

The field text is :func:`automodel_launch.fieldref.field_doc`, which ``docs/fields.md``
and the JSON Schema share. A variable's value is never shown, only whether it is set
in the server's environment and where the launcher resolves it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from automodel_launch import fieldref
from automodel_launch.loading import env
from automodel_launch.lsp import outline
from automodel_launch.lsp.text import Lines

_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]*\)")
_OPEN_REFERENCE = re.compile(r"\$\{(?:oc\.env:)?(" + env.NAME + r")(?:,[^{}$]*)?\}")


@cache
def schema() -> dict[str, Any]:
    from automodel_launch.schema import build_schema

    return build_schema()


def hover(lines: Lines, line: int, column: int, environ: Mapping[str, str]) -> str | None:
    """Markdown for the cursor at (line, column in characters), or None."""
    text = lines.line(line)
    for match in _OPEN_REFERENCE.finditer(text):
        if match.start() <= column < match.end():
            here = outline.entry(lines, line)
            path = outline.parents(lines, line, here.column if here else 0)
            return variable(match.group(1), path[:1], environ)
    here = outline.entry(lines, line)
    if here is None or column < here.column:
        return None
    path = (*outline.parents(lines, line, here.column), here.key)
    doc = fieldref.field_doc(path, schema())
    return None if doc is None else field_markdown(doc)


def field_markdown(doc: fieldref.FieldDoc) -> str:
    kind = _LINK.sub(r"\1", doc.kind)
    parts = [
        f"**{doc.path}**: {kind}",
        "",
        doc.description,
        "",
        f"Default: {doc.default}",
    ]
    examples = doc.node.get("examples")
    if isinstance(examples, list) and examples:
        parts += ["", "Example: " + ", ".join(f"`{json.dumps(e)}`" for e in examples[:3])]
    return "\n".join(parts)


_RESOLVED = {
    "slurm": "Slurm resolves it in the job's shell at run time; the script keeps the "
    "reference, never the value.",
    "skypilot": "SkyPilot needs it at submit time: the VM does not have your environment "
    "(credentials travel as SkyPilot secrets).",
    "": "AutoModel resolves it when it reads the recipe.",
}


def variable(name: str, section: tuple[str, ...], environ: Mapping[str, str]) -> str:
    if env.is_runtime_variable(name):
        state = "set by the job itself at run time"
    elif name in environ:
        state = "set in this environment (its value is not shown)"
    else:
        state = "**not set** in this environment"
    where = _RESOLVED.get(section[0] if section else "", _RESOLVED[""])
    return f"`${{{name}}}`: {state}.\n\n{where}"
