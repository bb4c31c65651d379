"""A document's lines, and positions in the client's units.

Diagnostics count columns in characters (1-based); LSP counts them in UTF-16 code
units unless client and server agreed on UTF-8 or UTF-32. Each conversion happens
here, at the edge, so the rest of the room works in characters.
"""

from __future__ import annotations

import re

from lsprotocol import types

_BREAK = re.compile(r"\r\n|\r|\n")
_KEY = re.compile(
    r"""(?:[^\s:#'"\[\]{},&*!|>%@`-][^:#]*?|'[^']*'|"(?:[^"\\]|\\.)*")[ \t]*:(?=\s|$)"""
)


class Lines:
    """The text split as LSP splits it (``\\n``, ``\\r\\n`` or ``\\r``)."""

    def __init__(self, text: str, encoding: str | None = None) -> None:
        self.text = text
        self.lines = _BREAK.split(text)
        self.encoding = str(encoding or types.PositionEncodingKind.Utf16)

    def line(self, index: int) -> str:
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def position(self, line: int, column: int) -> types.Position:
        """``column`` in characters (0-based) to the client's units."""
        text = self.line(line)[:column]
        if self.encoding == types.PositionEncodingKind.Utf8:
            width = len(text.encode("utf-8", "surrogatepass"))
        elif self.encoding == types.PositionEncodingKind.Utf32:
            width = len(text)
        else:
            width = len(text.encode("utf-16-le", "surrogatepass")) // 2
        return types.Position(line=max(line, 0), character=width)

    def column(self, position: types.Position) -> int:
        """The client's position to a character column on its line."""
        text = self.line(position.line)
        if self.encoding == types.PositionEncodingKind.Utf32:
            return min(position.character, len(text))
        unit = "utf-8" if self.encoding == types.PositionEncodingKind.Utf8 else "utf-16-le"
        size = 1 if unit == "utf-8" else 2
        count = 0
        for index, char in enumerate(text):
            if count >= position.character:
                return index
            count += len(char.encode(unit, "surrogatepass")) // size
        return len(text)

    def range(self, line: int, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(line, start), end=self.position(line, end))

    def token_end(self, line: int, column: int) -> int:
        """Where the YAML token starting at ``column`` ends on its line: a key up to its
        colon, a quoted scalar at its closing quote, a plain one before a comment."""
        text = self.line(line)
        rest = text[column:]
        if not rest.strip():
            return len(text)
        key = _KEY.match(rest)
        if key is not None:
            return column + len(key.group(0).rstrip()[:-1].rstrip())
        if rest[0] in "'\"":
            close = _closing_quote(rest)
            if close is not None:
                return column + close + 1
            return len(text.rstrip())
        before = text[:column]
        flow = before.count("{") + before.count("[") > before.count("}") + before.count("]")
        end = re.search(r"\s#|[,\]}]" if flow else r"\s#", rest)  # in [..] / {..}: to , ] }
        value = rest[: end.start()] if end else rest
        return column + len(value.rstrip()) if value.strip() else len(text.rstrip())


def _closing_quote(text: str) -> int | None:
    quote = text[0]
    index = 1
    while index < len(text):
        char = text[index]
        if quote == '"' and char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                index += 2
                continue
            return index
        index += 1
    return None
