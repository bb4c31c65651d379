"""The server's standard input, bounded: what a client can make the server hold in memory.

pygls reads a message as header lines (``readline``), then ``Content-Length`` bytes of
body (``read``). :class:`BoundedInput` is the stream it reads from, so the limits hold
without a loop of our own:

- a header line is read :data:`MAX_LINE` bytes at a time; a ``Content-Length`` with more
  digits than any length the server accepts is rewritten to a length just as
  unacceptable (Python refuses to parse integers of thousands of digits);
- a header that starts in the middle of a line (a body sent without a header, then a
  well-framed message) starts a line of its own, so the message after garbage is read;
- a body larger than :data:`MAX_MESSAGE` is read through and dropped, a megabyte at a
  time, and the server is handed :func:`oversized`'s marker instead, which it answers
  with an error (the id is in the dropped body: the error's id is ``null``).

A client that announces more bytes than it sends keeps the server waiting for them, as
the framing says; its closing the stream ends the server.
"""

from __future__ import annotations

import json
import logging
import re
from typing import BinaryIO

MAX_MESSAGE = 64 * 1024 * 1024
"""The largest message body the server reads (64 MiB: a recipe is kilobytes)."""
MAX_LINE = 8192
"""A header line is read this many bytes at a time."""
CHUNK = 1024 * 1024
OVERSIZED = "automodel-launch/oversized-message"
"""The key of the marker that stands for a dropped body (its value: the body's size)."""

_HEADER = b"Content-Length:"
_LENGTH = re.compile(rb"^Content-Length: (\d{19,})\r\n$")
_UNACCEPTABLE = b"Content-Length: %d\r\n" % (10**18)

log = logging.getLogger(__name__)


def oversized(size: int) -> bytes:
    """The body handed on in place of one of ``size`` bytes."""
    return json.dumps({OVERSIZED: size}).encode()


class BoundedInput:
    """A binary stream's ``readline`` and ``read`` with the limits above."""

    def __init__(self, raw: BinaryIO, limit: int = MAX_MESSAGE, line: int = MAX_LINE) -> None:
        self._raw = raw
        self._limit = limit
        self._line = line
        self._pending = b""
        self._garbage = False

    def readline(self) -> bytes:
        line, self._pending = self._pending, b""
        if not line.endswith(b"\n"):
            line += self._raw.readline(max(self._line - len(line), 1))
        cut = line.find(_HEADER, 1)
        if cut > 0:
            line, self._pending = line[:cut], line[cut:]
        if line.startswith(_HEADER):
            self._garbage = False
            return _UNACCEPTABLE if _LENGTH.match(line) else line
        if line.strip() and not line.startswith(b"Content-Type:") and not self._garbage:
            self._garbage = True  # said once until the next header
            log.warning("ignored input outside any message (no Content-Length header)")
        return line

    def read(self, size: int) -> bytes:
        if size > self._limit:
            return self._drop(size)
        data, self._pending = self._pending[:size], self._pending[size:]
        while len(data) < size:
            more = self._raw.read(size - len(data))
            if not more:
                break
            data += more
        return data

    def _drop(self, size: int) -> bytes:
        left = size - len(self._pending[:size])
        self._pending = self._pending[size:]
        while left > 0:
            more = self._raw.read(min(left, CHUNK))
            if not more:
                log.warning("the client closed the stream in the middle of a message")
                return b""  # pygls stops reading
            left -= len(more)
        log.warning(
            "dropped a message of %d bytes (the limit is %d MiB)", size, self._limit // 2**20
        )
        return oversized(size)
