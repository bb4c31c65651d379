"""Shell words from config values: literal text quoted, ``${VAR}`` references kept live.

A value such as ``/data/${USER}/run`` becomes ``'/data/'"${USER}"'/run'``: the job's
shell resolves the reference, nothing else in the value can be interpreted.
"""

from __future__ import annotations

import re

from automodel_launch.loading import env

_PLAIN = re.compile(r"[A-Za-z0-9_@%+:,./-]+")
"""Left unquoted (shlex.quote also leaves '=' bare, which linters misread in assignments)."""
_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
     "do", "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]"}
)  # fmt: skip


def quote(text: str) -> str:
    """A literal shell word (double-quoted with escapes when it holds ``$``, backticks or
    backslashes, and a leading ``~`` escaped, so linters see it is meant literally)."""
    if text.startswith("~"):
        return "\\~" + quote(text[1:]) if len(text) > 1 else "\\~"
    if any(ch in text for ch in "$`\\"):
        return f'"{_escape(text)}"'
    if _PLAIN.fullmatch(text) and text not in _RESERVED:
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def word(text: str) -> str:
    """A shell word in which only ``${VAR}`` references are expanded."""
    pieces = env.split(text)
    if not pieces:
        return "''"
    return "".join(_piece(piece) for piece in pieces)


def _piece(piece: str | env.Reference) -> str:
    if isinstance(piece, str):
        return quote(piece)
    if piece.default is None:
        return f'"${{{piece.name}}}"'
    return f'"${{{piece.name}-{_escape(piece.default)}}}"'


def _escape(text: str) -> str:
    for ch in ("\\", '"', "`", "$"):
        text = text.replace(ch, "\\" + ch)
    return text


def home_path(path: str) -> str:
    """A path word where a leading ``~`` means the job user's home directory."""
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + word(path[2:]) if path[2:] else '"$HOME"/'
    return word(path)
