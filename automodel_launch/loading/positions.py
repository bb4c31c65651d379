"""Where a loc sits in the file, looked up in the composed nodes when it is asked for.

Positions are wanted only for the few locs a diagnostic names, so none is recorded
while building (recording one per key and value was a sixth of ``validate``'s time on
a directory of recipes). The lookup follows the builder's rules: a repeated key is its
first occurrence, and keys merged in with ``<<`` sit where they are written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from automodel_launch.diagnostics import Loc
from automodel_launch.loading.tags import YAML_TAG

Position = tuple[int, int]


class Positions(Mapping[Loc, Position]):
    """1-based (line, column) of each loc's value node, or with ``at_key`` its key node."""

    def __init__(self, root: Node | None, *, at_key: bool = False) -> None:
        self.root = root
        self.at_key = at_key

    def __getitem__(self, loc: Loc) -> Position:
        found = self.root is not None and find(self.root, loc)
        if not found:
            raise KeyError(loc)
        key_node, value_node = found
        node = key_node if self.at_key else value_node
        if node is None:  # a list item, or the top: no key
            raise KeyError(loc)
        return (node.start_mark.line + 1, node.start_mark.column + 1)

    def __iter__(self) -> Iterator[Loc]:
        return iter(())  # looked up, never listed

    def __len__(self) -> int:
        return 0


def find(root: Node, loc: Loc) -> tuple[Node | None, Node] | None:
    """The (key node, value node) at ``loc``; None where the file has no such loc."""
    key_node: Node | None = None
    node = root
    for part in loc:
        pair = child(node, part)
        if pair is None:
            return None
        key_node, node = pair
    return key_node, node


def child(node: Node, part: str | int) -> tuple[Node | None, Node] | None:
    if isinstance(node, SequenceNode):
        if isinstance(part, int) and 0 <= part < len(node.value):
            return None, node.value[part]
        return None
    if not isinstance(node, MappingNode):
        return None
    for key_node, value_node in node.value:
        if not is_merge(key_node) and key_text(key_node) == part:
            return key_node, value_node
    for key_node, value_node in merged_pairs(node.value)[0]:
        if key_text(key_node) == part:
            return key_node, value_node
    return None


def merged_pairs(pairs: list[tuple[Node, Node]]) -> tuple[list[tuple[Node, Node]], list[Node]]:
    """The pairs the ``<<`` keys among ``pairs`` bring in, earlier sources first (the
    first one wins), and the merge sources that are not mappings."""
    found: list[tuple[Node, Node]] = []
    bad: list[Node] = []
    for key_node, merge in pairs:
        if not is_merge(key_node):
            continue
        for source in merge.value if isinstance(merge, SequenceNode) else [merge]:
            if isinstance(source, MappingNode):
                found += [(k, v) for k, v in source.value if not is_merge(k)]
                inner, inner_bad = merged_pairs(source.value)
                found += inner
                bad += inner_bad
            else:
                bad.append(source)
    return found, bad


def is_merge(node: Node) -> bool:
    """``<<`` resolved as a merge key (the text first: most keys are not ``<<``)."""
    return node.value == "<<" and isinstance(node, ScalarNode) and tag(node) == YAML_TAG + "merge"


def tag(node: Node) -> str:
    """The node's tag text; a plain suffix skips ruamel's URI decoding on every call."""
    ctag = node.ctag
    suffix = ctag.suffix if ctag is not None else None
    if ctag is not None and ctag.handle is None and isinstance(suffix, str) and "%" not in suffix:
        return suffix
    return str(node.tag)


def key_text(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return str(node.value)
    return f"<{type(node).__name__.removesuffix('Node').lower()} key>"
