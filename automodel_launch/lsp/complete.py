"""Completion: the keys of a section (as snippets), a field's values, ``${`` names.

Keys and values come from the models and the schema (the same metadata as the field
reference); variable names from the server's environment (names only, never values)
and the variables the job itself defines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from automodel_launch import fieldref
from automodel_launch.loading import env
from automodel_launch.lsp import outline
from automodel_launch.lsp.hover import field_markdown, schema
from automodel_launch.lsp.text import Lines

_VARIABLE = re.compile(r"\$\{(?:oc\.env:)?(?P<word>[A-Za-z0-9_]*)$")
_VALUE = re.compile(
    r"^(?P<indent>[ ]*)(?P<dash>(?:-[ ]+)*)(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?P<space>[ \t]*)"
    r"(?P<word>[^\s#]*)$"
)
_KEY = re.compile(r"^(?P<indent>[ ]*)(?P<dash>(?:-[ ]+)*)(?P<word>[A-Za-z_]*)$")
TRIGGERS = ["{", ":", " "]


def complete(
    lines: Lines, line: int, column: int, environ: Mapping[str, str]
) -> list[types.CompletionItem]:
    before = lines.line(line)[:column]
    found = _VARIABLE.search(before)
    if found is not None:
        return _variables(lines, line, column, found, environ)
    found = _VALUE.match(before)
    if found is not None:
        start = len(found["indent"]) + len(found["dash"])
        path = (*outline.parents(lines, line, start), found["key"])
        return _values(lines, line, column, found, path)
    found = _KEY.match(before)
    if found is not None:
        start = len(found["indent"]) + len(found["dash"])
        return _keys(lines, line, column, start)
    return []


def _variables(
    lines: Lines, line: int, column: int, found: re.Match[str], environ: Mapping[str, str]
) -> list[types.CompletionItem]:
    names = {n: "set in this environment" for n in environ if env.NAME_RE.match(n)}
    names.update((n, "set by the job at run time") for n in env.RUNTIME_NAMES)
    closed = lines.line(line)[column : column + 1] == "}"
    where = lines.range(line, column - len(found["word"]), column)
    return [
        types.CompletionItem(
            label=name,
            kind=types.CompletionItemKind.Variable,
            detail=detail,
            text_edit=types.TextEdit(range=where, new_text=name if closed else name + "}"),
        )
        for name, detail in sorted(names.items())
    ]


def choices(node: Mapping[str, Any]) -> list[Any]:
    """The values a schema node allows, when it is a closed set (enum, boolean)."""
    for branch in [node, *node.get("anyOf", [])]:
        if isinstance(branch, dict) and isinstance(branch.get("enum"), list):
            return list(branch["enum"])
    kinds = [node.get("type"), *(b.get("type") for b in node.get("anyOf", []))]
    return [True, False] if "boolean" in kinds else []


def _yaml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _values(
    lines: Lines, line: int, column: int, found: re.Match[str], path: tuple[str, ...]
) -> list[types.CompletionItem]:
    doc = fieldref.field_doc(path, schema())
    if doc is None:
        return []
    where = lines.range(line, column - len(found["word"]), column)
    space = "" if found["space"] else " "
    return [
        types.CompletionItem(
            label=_yaml(value),
            kind=types.CompletionItemKind.EnumMember,
            sort_text=f"{index:03d}",
            text_edit=types.TextEdit(range=where, new_text=space + _yaml(value)),
        )
        for index, value in enumerate(choices(doc.node))
    ]


def _keys(lines: Lines, line: int, column: int, start: int) -> list[types.CompletionItem]:
    path = outline.parents(lines, line, start)
    model = fieldref.model_at(path)
    if model is None:
        return []
    present = outline.siblings(lines, line, start)
    where = lines.range(line, start, column)
    items = []
    for index, name in enumerate(model.model_fields):
        doc = fieldref.field_doc((*path, name), schema())
        if name in present or doc is None or doc.description.startswith("Not launched"):
            continue
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Property,
                sort_text=f"{index:03d}",
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=field_markdown(doc)
                ),
                insert_text_format=types.InsertTextFormat.Snippet,
                insert_text_mode=types.InsertTextMode.AsIs,
                text_edit=types.TextEdit(range=where, new_text=_snippet(doc, name, start)),
            )
        )
    return items


def _escape(text: str) -> str:
    return re.sub(r"([$}\\])", r"\\\1", text)


def _snippet(doc: fieldref.FieldDoc, name: str, start: int) -> str:
    """``name: ${1:default}``; a section opens its block (with the schema's snippet, if any)."""
    indent = " " * (start + 2)
    if doc.model is not None:
        node = schema().get("$defs", {}).get(doc.model.__name__, {})
        snippets = node.get("defaultSnippets") or []
        body = snippets[0].get("bodyText") if snippets else None
        if isinstance(body, str):
            return f"{name}:\n" + "\n".join(indent + part for part in body.split("\n"))
        return f"{name}:\n{indent}$0"
    default = doc.node.get("default")
    values = sorted(choices(doc.node), key=lambda v: v != default)  # the default first
    if values:
        return f"{name}: ${{1|{','.join(_yaml(v) for v in values)}|}}"
    if default is None or isinstance(default, (list, dict)):
        return f"{name}: $0"
    text = json.dumps(default) if isinstance(default, str) else _yaml(default)
    return f"{name}: ${{1:{_escape(text)}}}"
