"""Composed YAML nodes to plain Python data (positions are looked up later, see
:mod:`automodel_launch.loading.positions`)."""

from __future__ import annotations

import math
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from automodel_launch.diagnostics import CODES, Collector, Diagnostic, Loc, dotted
from automodel_launch.loading import pyyaml, tags
from automodel_launch.loading.positions import is_merge, key_text, merged_pairs, tag
from automodel_launch.loading.tags import YAML_TAG
from automodel_launch.loading.yaml11 import MAX_INT_DIGITS

MAX_DEPTH = 200
"""Real recipes nest under 10 levels; the builder recurses once per level."""
MAX_EXPANDED_NODES = 200_000
"""Aliases may share nodes; past this many nodes after expansion, it is a bomb."""


def section_lines(root: MappingNode) -> dict[str, tuple[int, int]]:
    """Line span of each top-level entry of a block mapping (empty for flow style)."""
    if root.flow_style:
        return {}
    spans: dict[str, tuple[int, int]] = {}
    for key, value in root.value:
        end = value.end_mark
        last = end.line if end.column == 0 else end.line + 1
        spans[key_text(key)] = (key.start_mark.line, max(last, key.start_mark.line + 1))
    return spans


def expansion_is_bounded(root: Node) -> bool:
    """Count nodes as if every alias were copied out; stop at the limit or a cycle."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise OverflowError
        active.add(key)
        total = 1
        if isinstance(node, MappingNode):
            for k, v in node.value:
                total += size(k) + size(v)
        elif isinstance(node, SequenceNode):
            for item in node.value:
                total += size(item)
        active.discard(key)
        if total > MAX_EXPANDED_NODES:
            raise OverflowError
        sizes[key] = total
        return total

    try:
        size(root)
    except (OverflowError, RecursionError):
        return False
    return True


class TooDeep(Exception):
    """Nesting past MAX_DEPTH: raised instead of recursing further."""


class Builder:
    """Builds data from nodes; fills ``plain`` and ``tags`` (see LoadedFile)."""

    def __init__(self, sink: Collector) -> None:
        self.sink = sink
        self.plain: dict[Loc, str] = {}
        self.tags: dict[Loc, str] = {}

    def build(self, node: Node, loc: Loc) -> Any:
        if len(loc) > MAX_DEPTH:
            raise TooDeep
        explicit = not isinstance(node.ctag, tags.Resolved)
        if explicit:
            self._note_tag(node, loc)
        if isinstance(node, MappingNode):
            return self._mapping(node, loc)
        if isinstance(node, SequenceNode):
            return [self.build(item, (*loc, i)) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        if not explicit:
            if not node.style:
                self.plain[loc] = node.value
            return scalar_value(node)
        kind = tag(node).removeprefix(YAML_TAG)
        if kind not in tags.CORE_SCALARS:
            return node.value
        try:
            return tags.construct(kind, node.value)
        except tags.BadTag:
            self._add(
                "yaml-tag", loc, node,
                f"this value is not a YAML 1.1 {kind}, as its tag !!{kind} says: "
                "AutoModel's loader (PyYAML) stops on it",
                "fix the value, or remove the tag",
            )  # fmt: skip
            return node.value

    def _note_tag(self, node: Node, loc: Loc) -> None:
        written = tag(node)
        kind = written.removeprefix(YAML_TAG) if written.startswith(YAML_TAG) else None
        if isinstance(node, ScalarNode) and kind in tags.CORE_SCALARS:
            return
        if not isinstance(node, ScalarNode) and kind in tags.COLLECTIONS:
            return
        self.tags[loc] = tags.shown(written)

    def _mapping(self, node: MappingNode, loc: Loc) -> dict[str, Any]:
        """Explicit keys first; merged ones (``<<: *anchor``) only fill what is left,
        each built at its own loc, as if written out in this mapping."""
        out: dict[str, Any] = {}
        merging = False
        for key_node, value_node in node.value:
            if is_merge(key_node):
                merging = True
                continue
            key = key_text(key_node)
            if isinstance(key_node, ScalarNode) and isinstance(key_node.ctag, tags.Resolved):
                read = pyyaml.non_text_key(key_node)
                if read is not None:
                    self.sink.items.append(pyyaml.key_diagnostic(key_node, (*loc, key), read[0]))
            if key in out:
                self._duplicate(node, key_node, (*loc, key))
                continue
            out[key] = self.build(value_node, (*loc, key))
        if not merging:
            return out
        pairs, bad = merged_pairs(node.value)
        for source in bad:
            self._add(
                "invalid-merge", (*loc, "<<"), source,
                f"a merge key (<<) takes a mapping or a list of mappings, "
                f"not {_node_kind(source)}",
                "merge an anchored mapping (<<: *defaults), or write the keys out",
            )  # fmt: skip
        for key_node, value_node in pairs:
            key = key_text(key_node)
            if key not in out:
                out[key] = self.build(value_node, (*loc, key))
        return out

    def _add(self, code: str, loc: Loc, node: Node, message: str, hint: str) -> None:
        mark = node.start_mark
        self.sink.items.append(
            Diagnostic(
                CODES[code][0], code, dotted(loc), mark.line + 1, mark.column + 1, message, hint
            )
        )

    def _duplicate(self, mapping: MappingNode, key_node: Node, loc: Loc) -> None:
        key = str(loc[-1])
        first = next(k for k, _ in mapping.value if not is_merge(k) and key_text(k) == key)
        mark = key_node.start_mark
        self.sink.items.append(
            Diagnostic(
                CODES["duplicate-key"][0], "duplicate-key", dotted(loc),
                mark.line + 1, mark.column + 1,
                f"key '{key}' appears twice in this mapping (first on line "
                f"{first.start_mark.line + 1}); AutoModel silently keeps the last one",
                "delete or rename one of them",
            )
        )  # fmt: skip


def _node_kind(node: Node) -> str:
    if isinstance(node, SequenceNode):
        return "a list"
    return "a single value" if isinstance(node, ScalarNode) else "a mapping"


def scalar_value(node: ScalarNode) -> Any:
    """Construct a YAML 1.2 scalar from its resolved tag; unknown tags stay text."""
    text: str = node.value
    kind = tag(node).removeprefix(YAML_TAG)
    try:
        if kind == "null":
            return None
        if kind == "bool":
            return text.lower() == "true"
        if kind == "int":
            return _int(text)
        if kind == "float":
            return _float(text)
    except ValueError:
        return text
    return text


def _int(text: str) -> int:
    clean = text.replace("_", "")
    if len(clean) > MAX_INT_DIGITS:
        raise ValueError("too many digits")
    sign = -1 if clean.startswith("-") else 1
    body = clean.lstrip("+-")
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if body.lower().startswith(prefix):
            return sign * int(body[2:], base)
    return sign * int(body, 10)


def _float(text: str) -> float:
    lowered = text.lower().replace("_", "")
    if lowered in (".inf", "+.inf"):
        return math.inf
    if lowered == "-.inf":
        return -math.inf
    if lowered == ".nan":
        return math.nan
    return float(lowered)
