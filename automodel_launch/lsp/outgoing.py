"""Every message the server sends passes here: one funnel for what reaches the editor.

:class:`CleanWriter` wraps the writer pygls sends through (the protocol installs it in
``set_writer``, the only way pygls has to reach the client), so a feature added later
cannot forget it: responses, notifications (diagnostics, ``window/showMessage``,
``window/logMessage``) and pygls' own error answers alike. Each message is parsed back,
every string in it cleaned by :func:`clean`, and written again with its new length.

Cleaning a string (:func:`clean_text`) masks every token shape and the values of this
environment's secret variables, and escapes control characters but newline and tab.
Three kinds of string are treated otherwise:

- names the client must get back as it sent them (``uri``, ``id``, ``method``, the keys
  of ``changes``): untouched, they hold no text of a document;
- text that goes into the document (``newText``, ``insertText``): masked, never
  escaped, since it is document text. The quick fixes never put a token in an edit
  (:mod:`automodel_launch.lsp.fixes`), so the mask is the last line, not the first;
- everything else (messages, hints, hover, titles, labels): masked and escaped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from automodel_launch.secrets import (
    Redactor,
    control_character,
    environment_redactor,
    escape_controls,
)

VERBATIM = frozenset({"jsonrpc", "id", "method", "uri", "targetUri", "scopeUri", "changes"})
"""Keys whose strings are the client's own names (``changes`` maps URIs to edits)."""
DOCUMENT_TEXT = frozenset({"newText", "insertText"})
_KEEP = re.compile(r"([\n\t])")
_HEADER_END = b"\r\n\r\n"


class Writer(Protocol):
    def close(self) -> Any: ...

    def write(self, data: bytes) -> Any: ...


def redactor(environ: Mapping[str, str]) -> Redactor:
    """Token shapes and the values of the secret variables of ``environ``."""
    return environment_redactor(environ)


def clean_text(text: str, redact: Callable[[str], str]) -> str:
    """A string shown to the user: masked, every control but newline and tab escaped."""
    text = redact(text)
    if control_character(text, "\n\t") is None:
        return text  # most strings: nothing to escape
    return "".join(part if part in "\n\t" else escape_controls(part) for part in _KEEP.split(text))


def clean(value: Any, redact: Callable[[str], str], key: str = "") -> Any:
    """A JSON value with every string cleaned as its key says (see the module)."""
    if isinstance(value, str):
        if key in VERBATIM:
            return value
        return redact(value) if key in DOCUMENT_TEXT else clean_text(value, redact)
    if isinstance(value, list):
        return [clean(item, redact, key) for item in value]
    if isinstance(value, dict):
        if key == "changes":  # {uri: [edits]}: the keys are URIs
            return {k: clean(v, redact) for k, v in value.items()}
        return {k: clean(v, redact, k) for k, v in value.items()}
    return value


def clean_message(data: bytes, redact: Callable[[str], str]) -> bytes:
    """One framed message (headers, blank line, JSON body), its body cleaned."""
    head, found, body = data.partition(_HEADER_END)
    if not found:  # a transport without headers: the body alone
        head, body = b"", data
    cleaned = json.dumps(clean(json.loads(body), redact)).encode()
    if not found:
        return cleaned
    headers = [
        b"Content-Length: %d" % len(cleaned) if h.startswith(b"Content-Length:") else h
        for h in head.split(b"\r\n")
    ]
    return b"\r\n".join(headers) + _HEADER_END + cleaned


class CleanWriter:
    """The writer pygls sends through, every message cleaned on its way."""

    def __init__(self, writer: Writer, environ: Mapping[str, str] | None = None) -> None:
        self._writer = writer
        self._redact = redactor(os.environ if environ is None else environ)

    def write(self, data: bytes) -> Any:
        return self._writer.write(clean_message(data, self._redact))

    def close(self) -> Any:
        return self._writer.close()
