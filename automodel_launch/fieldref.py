"""The field reference (``docs/fields.md``), generated from the models.

Every key the models know, section by section: its type as the JSON Schema states it
(what editors check), its default and its description. Sections are found by walking
:class:`~automodel_launch.config.document.LaunchDocument`, so a new field or section
shows up here without editing this module.

Regenerate with ``python -m automodel_launch.fieldref -o docs/fields.md``
(``nox -s schema`` does it); a test fails when the committed page drifts.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from automodel_launch.config.document import LaunchDocument
from automodel_launch.schema import build_schema

REGENERATE = "python -m automodel_launch.fieldref -o docs/fields.md"
JSON = Any


@dataclass
class Section:
    """One model and every place it appears in a recipe (``slurm.extra_mounts[]``)."""

    model: type[BaseModel]
    paths: list[str] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return anchor(self.model.__name__)


def anchor(name: str) -> str:
    return name.lower()


def sections(root: type[BaseModel] = LaunchDocument) -> list[Section]:
    """The models below ``root``, depth first in field order, each with its paths."""
    found: dict[type[BaseModel], Section] = {}

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, info in model.model_fields.items():
            for sub, is_list in _models_in(info.annotation):
                path = f"{prefix}{name}" + ("[]" if is_list else "")
                first = sub not in found
                found.setdefault(sub, Section(sub)).paths.append(path)
                if first:
                    walk(sub, path + ".")

    walk(root, "")
    return list(found.values())


def _models_in(annotation: Any, in_list: bool = False) -> Iterator[tuple[type[BaseModel], bool]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, in_list
        return
    origin = typing.get_origin(annotation)
    is_list = in_list or origin in (list, tuple, set, frozenset, Sequence)
    for arg in typing.get_args(annotation):
        yield from _models_in(arg, is_list)


# --------------------------------------------------------------------------- rendering
def render(schema: dict[str, JSON] | None = None) -> str:
    """The whole page, Markdown."""
    schema = schema or build_schema()
    defs: dict[str, JSON] = schema.get("$defs", {})
    found = sections()
    lines = [
        "# Field reference",
        "",
        f"<!-- Generated from the models by `{REGENERATE}` (`nox -s schema`). Do not edit. -->",
        "",
        "Every key `automodel-launch` knows, with its type (as the JSON Schema states it, "
        "which is what editors check), default and meaning. Launcher sections are *strict*: "
        "an unknown key is an error. Recipe sections are *open*: keys not listed here pass "
        "through unchecked. The CLI checks more than the schema can say (cross-field rules, "
        "YAML 1.1 traps, secrets); run `automodel-launch validate`.",
        "",
        "Sections: " + ", ".join(f"[`{s.paths[0]}`](#{s.anchor})" for s in found) + ".",
        "",
        "## Top level",
        "",
        _description(schema.get("description")),
        "",
        *_table(LaunchDocument, schema),
    ]
    for section in found:
        node = defs.get(section.model.__name__, {})
        where = ", ".join(f"`{p}`" for p in section.paths)
        strict = section.model.model_config.get("extra") == "forbid"
        kind = getattr(section.model, "other_keys", None) or (
            "Strict: an unknown key is an error."
            if strict
            else "Open: other keys pass through unchecked."
        )
        lines += [
            "",
            f'<a id="{section.anchor}"></a>',
            "",
            f"## {where}",
            "",
            f"{_description(node.get('description') or section.model.__doc__)} {kind}",
            "",
            *_table(section.model, node),
        ]
    return "\n".join(lines) + "\n"


def _table(model: type[BaseModel], node: dict[str, JSON]) -> list[str]:
    rows = ["| key | type | default | description |", "|---|---|---|---|"]
    properties: dict[str, JSON] = node.get("properties", {})
    for name, info in model.model_fields.items():
        prop = properties.get(name, {})
        description = info.description or prop.get("description")
        if description is None:
            inner = [m for m, _ in _models_in(info.annotation)]
            description = inner[0].__doc__ if inner else ""
        cells = [f"`{name}`", _type(prop), _default(info), _description(description)]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return rows


def _type(node: JSON) -> str:
    if not isinstance(node, dict) or not node:
        return "any"
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{anchor(name)})"
    for key in ("anyOf", "oneOf"):
        if key in node:
            branches = [sub for sub in node[key] if not _spelling_variant(sub, node[key])]
            parts = [_type(sub) for sub in branches]
            parts = sorted(dict.fromkeys(parts), key=lambda p: p == "null")
            return " or ".join(parts)
    if "enum" in node:
        return "one of " + ", ".join(_literal(v) for v in node["enum"])
    if "const" in node:
        return _literal(node["const"])
    kinds = node.get("type")
    if kinds is None:
        return "any"
    if isinstance(kinds, list):
        return " or ".join(_kind(k, node) for k in kinds)
    return _kind(str(kinds), node)


def _spelling_variant(branch: JSON, branches: list[JSON]) -> bool:
    """A pattern-only string branch beside an enum: the enum in other letter cases."""
    has_enum = any(isinstance(b, dict) and "enum" in b for b in branches)
    return has_enum and isinstance(branch, dict) and set(branch) == {"type", "pattern"}


def _kind(kind: str, node: dict[str, JSON]) -> str:
    if kind in ("integer", "number"):
        low, high = node.get("minimum"), node.get("maximum")
        if low is not None and high is not None:
            return f"{kind} {low}..{high}"
        if low is not None:
            return f"{kind} ≥ {low}"
        if high is not None:
            return f"{kind} ≤ {high}"
        return kind
    if kind == "array":
        return f"list of {_type(node.get('items'))}"
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, dict):
            keys = node.get("propertyNames")
            key = keys.get("title") if isinstance(keys, dict) else None
            return f"mapping of {key if isinstance(key, str) else 'name'} to {_type(values)}"
        return "mapping"
    return kind


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    return _literal(info.get_default(call_default_factory=True))


def _literal(value: Any) -> str:
    """A value as YAML spells it, in backticks."""
    if value is None:
        text = "null"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, BaseModel):
        text = json.dumps(value.model_dump(), ensure_ascii=False)
    else:
        text = json.dumps(value, ensure_ascii=False)
    return f"`{text}`"


def _description(text: str | None) -> str:
    return re.sub(r"\s+", " ", (text or "").strip())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


# --------------------------------------------------------------------------- one field
@dataclass(frozen=True)
class FieldDoc:
    """What the page says of one key (the language server's hover and completion)."""

    path: str
    kind: str
    """The type, as the page writes it."""
    default: str
    description: str
    node: dict[str, JSON]
    """The key's JSON Schema node (examples, enum, bounds)."""
    model: type[BaseModel] | None
    """The model of the key's value, when it is a section."""


def model_at(path: Sequence[str], root: type[BaseModel] = LaunchDocument) -> type[BaseModel] | None:
    """The model whose keys sit under ``path`` (``()``: the top level), if any."""
    model: type[BaseModel] | None = root
    for name in path:
        info = model.model_fields.get(name) if model else None
        if info is None:
            return None
        inner = [m for m, _ in _models_in(info.annotation)]
        model = inner[0] if inner else None
    return model


def field_doc(path: Sequence[str], schema: dict[str, JSON] | None = None) -> FieldDoc | None:
    """The row of ``docs/fields.md`` for the key at ``path`` (list items seen through)."""
    if not path:
        return None
    schema = schema or build_schema()
    parent = model_at(path[:-1])
    info = parent.model_fields.get(path[-1]) if parent else None
    if parent is None or info is None:
        return None
    node = schema if parent is LaunchDocument else schema.get("$defs", {}).get(parent.__name__, {})
    prop: dict[str, JSON] = node.get("properties", {}).get(path[-1], {})
    inner = [m for m, _ in _models_in(info.annotation)]
    description = info.description or prop.get("description") or (inner[0].__doc__ if inner else "")
    return FieldDoc(
        path=".".join(path),
        kind=_type(prop),
        default=_default(info),
        description=_description(description),
        node=prop,
        model=inner[0] if inner else None,
    )


# --------------------------------------------------------------------------- command
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m automodel_launch.fieldref",
        description="Write the field reference (Markdown) generated from the models.",
    )
    parser.add_argument("-o", "--output", type=Path, help="write to FILE instead of stdout")
    args = parser.parse_args(argv)
    text = render()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    output: Path = args.output
    tmp = output.with_name(output.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
