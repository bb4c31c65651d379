"""Where this loader (libyaml, YAML 1.2 values) and AutoModel's (PyYAML) part ways on
whether a file loads at all.

- A tab outside quotes, block scalars and comments: libyaml takes it as a space or as
  part of a plain scalar (``raw: a<TAB>b``); PyYAML stops on it ("found character
  '\\t' that cannot start any token"). An error here, at the tab.
- A key YAML 1.1 reads as something other than text (``yes:``, ``1:``, ``~:``,
  ``2024-01-05:``): PyYAML loads it, and AutoModel's config then fails on the key.
  An error at the key.
- A flow collection with ``:`` inside a plain scalar (``{timeout: 1:00:00}``,
  ``[http://x]``): libyaml refuses it, PyYAML reads it. Composed again with ruamel's
  pure-Python composer (only for such a file), which reads it as PyYAML does.
"""

from __future__ import annotations

from collections.abc import Iterator

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from automodel_launch.diagnostics import CODES, Diagnostic, dotted
from automodel_launch.loading import yaml11
from automodel_launch.loading.positions import key_text

_KEY_STARTS = frozenset("0123456789-+.~yYnNtTfFoO")
"""First characters of every YAML 1.1 key that is not text (empty keys aside)."""
_TAB_HINT = (
    "AutoModel's loader (PyYAML) takes no tab outside quotes: use spaces, or quote the value"
)


def non_text_key(key: ScalarNode) -> tuple[object] | None:
    """``(value,)``: the YAML 1.1 value of a plain key that is not text; else None."""
    text: str = key.value
    if key.style or (text and text[0] not in _KEY_STARTS):
        return None
    value = yaml11.resolve_document_scalar(text)
    return None if isinstance(value, str) else (value,)


def key_diagnostic(key: ScalarNode, loc: tuple[str | int, ...], value: object) -> Diagnostic:
    shown = "null" if value is None else repr(value)
    mark = key.start_mark
    return Diagnostic(
        CODES["key-not-text"][0], "key-not-text", dotted(loc), mark.line + 1, mark.column + 1,
        f"AutoModel's loader (PyYAML, YAML 1.1) reads the key '{key_text(key)}' as {shown}, "
        "not text, and AutoModel's config fails on it",
        f"quote the key: \"{key_text(key)}\":",
    )  # fmt: skip


def tab_diagnostics(root: Node, text: str) -> list[Diagnostic]:
    """A tab PyYAML refuses: outside quoted and block scalars and comments."""
    allowed: dict[int, list[tuple[int, int]]] = {}
    for node in _quoted(root):
        start, end = node.start_mark, node.end_mark
        for row in range(start.line, end.line + 1):
            first = start.column if row == start.line else 0
            last = end.column if row == end.line else 1 << 30
            allowed.setdefault(row, []).append((first, last))
    found = []
    for number, line in enumerate(text.splitlines()):
        column = _refused_tab(line, allowed.get(number, []))
        if column is not None:
            found.append(_tab_at(number + 1, column + 1))
    return found


def _tab_at(line: int, column: int) -> Diagnostic:
    return Diagnostic(
        CODES["tab-not-space"][0], "tab-not-space", "", line, column,
        "a tab here stops AutoModel's loader (PyYAML): 'found character that cannot start "
        "any token'",
        _TAB_HINT,
    )  # fmt: skip


def _refused_tab(line: str, spans: list[tuple[int, int]]) -> int | None:
    previous = " "
    for column, char in enumerate(line):
        inside = any(first <= column < last for first, last in spans)
        if not inside:
            if char == "#" and previous in " \t":
                return None
            if char == "\t":
                return column
        previous = char
    return None


def _quoted(root: Node) -> Iterator[ScalarNode]:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.style:
                yield node
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
