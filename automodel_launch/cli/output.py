"""Every character the command line prints passes here: one funnel for stdout and stderr.

:func:`install` replaces ``sys.stdout`` and ``sys.stderr`` with :class:`CleanStream`\\ s
before any command runs, so a value that reaches the terminal uncleaned is impossible,
not merely unlikely: a command that forgets :func:`automodel_launch.secrets.display`
still prints no credential and no escape sequence. A CleanStream

- holds back the text of a line until the line ends or the stream is flushed, so a
  token written in two pieces is still seen whole;
- masks the values of this environment's secret variables (``HF_TOKEN=...``: values of
  at least :data:`~automodel_launch.secrets.MIN_SECRET_VALUE` characters) and every token
  shape;
- escapes every control character but newline, tab and carriage return; on a terminal
  it lets through the colour and cursor sequences (CSI) that rich draws with, never an
  operating-system command (OSC: window titles, the clipboard) or a lone ESC.

It has no ``buffer``: nothing can reach the file descriptor past it, except a program
that writes to the descriptor itself (the language server's protocol stream, a job run
in the foreground).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from automodel_launch.secrets import environment_redactor, escape_controls

_CSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ABCDGHJKhlm]")
_KEEP = "\n\t\r"


def cleaner(environ: Mapping[str, str], *, terminal: bool) -> Callable[[str], str]:
    """The text cleaner of one stream: secrets masked, controls escaped."""
    redact = environment_redactor(environ)

    def escape(text: str) -> str:
        return "".join(escape_controls(part) if part not in _KEEP else part for part in
                       re.split(r"([\n\t\r])", text))  # fmt: skip

    def clean(text: str) -> str:
        text = redact(text)
        if not terminal:
            return escape(text)
        pieces = _CSI.split(text)
        kept = _CSI.findall(text)
        out = [escape(pieces[0])]
        for sequence, piece in zip(kept, pieces[1:], strict=True):
            out.append(sequence)
            out.append(escape(piece))
        return "".join(out)

    return clean


class CleanStream:
    """A text stream that cleans what is written to it (see the module's docstring)."""

    def __init__(self, stream: TextIO, environ: Mapping[str, str] | None = None) -> None:
        self._stream = stream
        self._pending = ""
        terminal = _isatty(stream)
        self._clean = cleaner(os.environ if environ is None else environ, terminal=terminal)

    @property
    def wrapped(self) -> TextIO:
        return self._stream

    def write(self, text: str) -> int:
        self._pending += text
        cut = self._pending.rfind("\n") + 1
        if cut:
            whole, self._pending = self._pending[:cut], self._pending[cut:]
            self._stream.write(self._clean(whole))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, ""
            self._stream.write(self._clean(pending))
        self._stream.flush()

    def isatty(self) -> bool:
        return _isatty(self._stream)

    def fileno(self) -> int:
        return self._stream.fileno()

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # the way around the cleaning: none
            raise AttributeError(name)
        return getattr(self._stream, name)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def install() -> None:
    """Put :class:`CleanStream` in front of stdout and stderr (once)."""
    if sys.stdout is not None and not isinstance(sys.stdout, CleanStream):
        sys.stdout = CleanStream(sys.stdout)
    if sys.stderr is not None and not isinstance(sys.stderr, CleanStream):
        sys.stderr = CleanStream(sys.stderr)
