"""The server's log on stderr: one line a record, never a document's text.

pygls logs whole messages when one goes wrong (``Failed to handle notification %r: %s``
with the params of a ``didOpen``, ``Unknown message "%s"``, the traceback of a message
it could not read, ``Sending data: %s``): a document, and the credential in it. The
filter of :func:`install` rewrites every record before it is written:

- an argument that is a short string or a number (a method name, a message id, a size)
  is kept; a long string (a body, a traceback) becomes its length, any other object
  (params, a message) its type's name;
- the exception becomes its type's name, with its message when it is one of pygls'
  JSON-RPC errors (``Method Not Found: x``); the traceback is dropped (kept, for this
  package's own records only, when ``AUTOMODEL_LAUNCH_DEBUG`` is set);
- the line is cleaned as everything the tool prints (:func:`automodel_launch.secrets.display`).
"""

from __future__ import annotations

import logging
import os
from typing import Any, TextIO

from automodel_launch.errors import LaunchError
from automodel_launch.secrets import display

SHORT = 100
"""A string argument up to this long is kept (cleaned); a longer one is only counted."""
FORMAT = "automodel-launch lsp: %(levelname)s: %(message)s"


def _argument(value: Any) -> Any:
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if isinstance(value, str):
        return display(value) if len(value) <= SHORT else f"<{len(value)} characters>"
    return f"<{type(value).__name__}>"


def describe(error: BaseException) -> str:
    """The error as a log says it: its type, and the message of a JSON-RPC error."""
    from pygls.exceptions import JsonRpcException

    if isinstance(error, (JsonRpcException, LaunchError)) and len(str(error)) <= SHORT:
        return f"{type(error).__name__}: {error!s}"
    return type(error).__name__


class SafeRecords(logging.Filter):
    """Rewrites a record as the module says; never drops one."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__()
        self._debug = debug

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, dict):
            args = (args,)
        try:
            text = str(record.msg) % tuple(_argument(a) for a in args) if args else str(record.msg)
        except (TypeError, ValueError):
            text = str(record.msg)
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({describe(record.exc_info[1])})"
            if not (self._debug and record.name.startswith("automodel_launch")):
                record.exc_info = None
                record.exc_text = None
        record.msg = display(text)
        record.args = None
        record.stack_info = None
        return True


def install(stream: TextIO, level: int = logging.WARNING) -> logging.Handler:
    """Every record (pygls' and ours) written to ``stream`` through :class:`SafeRecords`."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(SafeRecords(debug=bool(os.environ.get("AUTOMODEL_LAUNCH_DEBUG"))))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
