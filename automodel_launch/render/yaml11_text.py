"""Write data as YAML that PyYAML (YAML 1.1, AutoModel's loader) reads back exactly.

Used for the job config when it cannot be cut out of the original text. General
emitters get YAML 1.1 wrong in ways that change what AutoModel reads: ``1e-05`` is a
string to PyYAML (a 1.1 float needs a dot), keys come out sorted, long double-quoted
strings are folded with continuation backslashes. This writer is small on purpose:
block mappings and sequences in the original order, every string double-quoted with
explicit escapes, numbers in forms whose 1.1 reading is the number itself.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

_ESCAPES = {
    "\\": "\\\\", '"': '\\"', "\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t",
    "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", "\x1b": "\\e",
    "\x85": "\\N", "\xa0": "\\_", "\u2028": "\\L", "\u2029": "\\P",
}  # fmt: skip


class NotWritable(ValueError):
    """A value YAML 1.1 text cannot carry as AutoModel would read it."""

    def __init__(self, loc: tuple[str | int, ...], what: str) -> None:
        super().__init__(what)
        self.loc = loc


def dump(data: dict[str, Any]) -> str:
    lines: list[str] = []
    _mapping(data, 0, lines, ())
    return "\n".join(lines) + "\n" if lines else "{}\n"


def _mapping(data: dict[str, Any], indent: int, lines: list[str], loc: tuple[Any, ...]) -> None:
    pad = " " * indent
    for key, value in data.items():
        if not isinstance(key, str):
            raise NotWritable((*loc, str(key)), f"the key {key!r} is not text")
        here = (*loc, key)
        head = f"{pad}{quote(key)}:"
        if isinstance(value, dict) and value:
            lines.append(head)
            _mapping(value, indent + 2, lines, here)
        elif isinstance(value, list) and value:
            lines.append(head)
            _sequence(value, indent + 2, lines, here)
        else:
            lines.append(f"{head} {scalar(value, here)}")


def _sequence(items: list[Any], indent: int, lines: list[str], loc: tuple[Any, ...]) -> None:
    pad = " " * indent
    for index, item in enumerate(items):
        here = (*loc, index)
        if isinstance(item, dict) and item:
            start = len(lines)
            _mapping(item, indent + 2, lines, here)
            lines[start] = f"{pad}- " + lines[start][indent + 2 :]
        elif isinstance(item, list) and item:
            lines.append(f"{pad}-")
            _sequence(item, indent + 2, lines, here)
        else:
            lines.append(f"{pad}- {scalar(item, here)}")


def scalar(value: Any, loc: tuple[Any, ...] = ()) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    raise NotWritable(loc, f"a {type(value).__name__} value")


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # 1e-05 is text to YAML 1.1: it wants 1.0e-05
    return f"{mantissa}e{exponent}" if exponent else mantissa


def quote(text: str) -> str:
    out = []
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif _printable(char):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _printable(char: str) -> bool:
    """What PyYAML's reader takes as it is (anything else is written as an escape)."""
    code = ord(char)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    )
