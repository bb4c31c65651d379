"""``explain FIELD``: one field's description, type, forms, default and rules.

Built from the same metadata as the JSON Schema and ``docs/fields.md``
(:func:`automodel_launch.fieldref.field_doc`), so the three never disagree.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from automodel_launch.config.document import LaunchDocument
from automodel_launch.diagnostics import CODES
from automodel_launch.errors import UsageError
from automodel_launch.explain.rules import codes_for
from automodel_launch.fieldref import FieldDoc, anchor, field_doc, model_at
from automodel_launch.schema import build_schema

_INDEX = re.compile(r"\[\d*\]")


def field_paths() -> list[str]:
    """Every key the schema knows, as ``explain`` takes it (``slurm.extra_mounts.source``)."""
    found: list[str] = []

    def walk(prefix: tuple[str, ...]) -> None:
        model = model_at(prefix)
        if model is None:
            return
        for name in model.model_fields:
            found.append(".".join((*prefix, name)))
            walk((*prefix, name))

    walk(())
    return found


class UnknownField(UsageError, LookupError):
    """No such field; the message says which were close."""


def explain(field: str, schema: dict[str, Any] | None = None) -> str:
    path = tuple(p for p in _INDEX.sub("", field.strip()).split(".") if p)
    schema = schema or build_schema()
    doc = field_doc(path, schema) if path else None
    if doc is None:
        raise UnknownField(_unknown(field))
    return _render(doc, path)


def _unknown(field: str) -> str:
    known = field_paths()
    close = difflib.get_close_matches(field, known, n=3, cutoff=0.6)
    if close:
        return f"no field '{field}'; did you mean {' or '.join(close)}?"
    tops = ", ".join(p for p in known if "." not in p)
    return f"no field '{field}'; fields start with one of: {tops}"


def _render(doc: FieldDoc, path: tuple[str, ...]) -> str:
    parent = model_at(path[:-1]) or LaunchDocument
    info = parent.model_fields[path[-1]]
    node = doc.node
    lines = [f"{doc.path}  ({_title(parent, path)})", "", f"  {doc.description}", ""]
    lines.append(f"  type:     {_plain(doc.kind)}")
    lines.append(f"  default:  {_plain(doc.default)}")
    forms = node.get("patternErrorMessage")
    if isinstance(forms, str):
        lines.append(f"  forms:    {forms}")
    examples = node.get("examples")
    if isinstance(examples, list) and examples:
        lines.append("  examples: " + ", ".join(_example(path[-1], e) for e in examples))
    if doc.model is not None:
        keys = ", ".join(doc.model.model_fields)
        lines.append(f"  keys:     {keys}")
    codes = codes_for(doc.path, node, required=info.is_required(), section=doc.model is not None)
    if codes:
        lines += ["", "  rules:"]
        width = max(len(c) for c in codes)
        for code in codes:
            severity, summary = CODES[code]
            lines.append(f"    {code.ljust(width)}  {severity.value:<7}  {summary}")
    where = anchor(parent.__name__) if parent is not LaunchDocument else "top-level"
    lines += ["", f"  reference: docs/fields.md#{where}"]
    return "\n".join(lines) + "\n"


def _title(parent: type[Any], path: tuple[str, ...]) -> str:
    if parent is LaunchDocument:
        return "top-level section"
    title = parent.model_config.get("title") or parent.__name__
    return f"{title}, in {'.'.join(path[:-1])}:"


_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]*\)")


def _plain(text: str) -> str:
    """The page's Markdown as plain text: ``[Mount](#mount)`` reads ``Mount``."""
    return _LINK.sub(r"\1", text).replace("`", "")


def _example(key: str, value: Any) -> str:
    import json

    if isinstance(value, bool):
        return f"{key}: {str(value).lower()}"
    return f"{key}: {json.dumps(value, ensure_ascii=False)}"
