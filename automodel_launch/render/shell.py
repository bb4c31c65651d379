"""Shell words from config values: literal text quoted, ``${VAR}`` references kept live.

A value such as ``/data/${USER}/run`` becomes ``'/data/'"${USER}"'/run'``: the job's
shell resolves the reference, nothing else in the value can be interpreted.
"""

from __future__ import annotations

import shlex

from automodel_launch.loading import env


def quote(text: str) -> str:
    """A literal shell word (double-quoted with escapes when it holds ``$`` or backticks,
    so linters see it is meant literally)."""
    if "$" in text or "`" in text:
        return f'"{_escape(text)}"'
    return shlex.quote(text)


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
