"""The LSP contract, kept at pygls' own hooks: every request gets an answer.

pygls 2 leaves a client waiting in several cases: params it cannot read (it raises from
inside ``json.loads``, where the request's id is lost), any request after ``shutdown``
(logged, not answered), a body that is not JSON. :class:`RecipeProtocol` takes each
message whole instead:

- ``structure_message`` (the ``object_hook`` of ``json.loads``) keeps every JSON object
  a dict; ``handle_message`` gets the whole message and decides before pygls sees it;
- a message that is not JSON-RPC 2.0, or whose id is not an integer or a string:
  ``InvalidRequest`` (id ``null`` when it has none);
- a request before ``initialize``: ``ServerNotInitialized`` (-32002); after
  ``shutdown``: ``InvalidRequest`` (-32600); notifications then are dropped, ``exit``
  aside;
- params that do not fit the method's type (integers must be JSON integers: no ``"3"``,
  ``3.5`` or ``true`` for a line), or a position outside the open document:
  ``InvalidParams`` (-32602), naming the field, never its value;
- a body dropped for its size (:mod:`automodel_launch.lsp.framing`) or that is not JSON
  (``report_server_error`` of the server): an error with id ``null``.

``set_writer`` puts the output funnel (:mod:`automodel_launch.lsp.outgoing`) in front of
the writer. The exit code (``exit`` after ``shutdown``: 0, else 1, as the LSP says) is
:attr:`RecipeProtocol.exit_code`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import cattrs
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, default_converter

from automodel_launch.lsp.framing import MAX_MESSAGE, OVERSIZED
from automodel_launch.lsp.outgoing import CleanWriter

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_INITIALIZED = -32002
_BREAK = re.compile(r"\r\n|\r|\n")


def strict_int(value: Any, _: type) -> int:
    """A JSON integer, and nothing cattrs would turn into one (``"3"``, ``3.5``, ``true``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def strict_bool(value: Any, _: type) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected a boolean, got {type(value).__name__}")
    return value


def converter() -> cattrs.Converter:
    """pygls' converter, integers strict (and booleans, which would take the integers')."""
    made: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    made.register_structure_hook(int, strict_int)
    made.register_structure_hook(bool, strict_bool)
    return made


def message_id(message: Any) -> int | str | None:
    """The id to answer with: the message's, when it is one the LSP allows."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None


def position_problem(params: Any, text: str) -> str | None:
    """What is wrong with a request's ``position`` or ``range`` in a document of ``text``.

    A line past the last one is an error; a character past its line's end is not (the
    LSP says it means the end of the line). A range may end at the start of the line
    after the last (the document's end, as some clients say it).
    """
    count = len(_BREAK.split(text))
    position = getattr(params, "position", None)
    if isinstance(position, types.Position) and position.line >= count:
        return f"position line {position.line} is past the document's last line ({count - 1})"
    where = getattr(params, "range", None)
    if not isinstance(where, types.Range):
        return None
    start, end = where.start, where.end
    if start.line >= count:
        return f"range start line {start.line} is past the document's last line ({count - 1})"
    if end.line > count or (end.line == count and end.character > 0):
        return f"range end line {end.line} is past the document's last line ({count - 1})"
    if (start.line, start.character) > (end.line, end.character):
        return "range ends before it starts"
    return None


class RecipeProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialized = False
        self.shut_down = False
        self.exit_code: int | None = None

    def set_writer(self, writer: Any, include_headers: bool = True) -> None:
        super().set_writer(CleanWriter(writer), include_headers)

    def structure_message(self, data: dict[str, Any]) -> Any:
        return data  # the whole message is read in handle_message

    def reply_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        """An error response; a dict, since lsprotocol's would leave out ``"id": null``."""
        error = {"code": code, "message": message}
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": error})

    def handle_message(self, message: Any) -> None:
        try:
            self._handle(message)
        except Exception as exc:  # a bug here must not leave the client waiting
            log.error("could not handle a message", exc_info=exc)
            if isinstance(message, dict) and "method" in message and "id" in message:
                self.reply_error(message_id(message), INTERNAL_ERROR, "internal error")

    def _handle(self, message: Any) -> None:
        if isinstance(message, dict) and set(message) == {OVERSIZED}:
            size = message[OVERSIZED]
            limit = f"{MAX_MESSAGE // 2**20} MiB"
            self.reply_error(None, INVALID_REQUEST, f"message of {size} bytes over {limit}")
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.reply_error(message_id(message), INVALID_REQUEST, "not a JSON-RPC 2.0 message")
            return
        method = message.get("method")
        request = "id" in message
        if method is None and request and ("result" in message or "error" in message):
            self._pass_on(message, None)  # the client's answer to a request of ours
            return
        if not isinstance(method, str):
            self.reply_error(message_id(message), INVALID_REQUEST, "method must be a string")
            return
        if request and message_id(message) is None:
            self.reply_error(None, INVALID_REQUEST, "id must be an integer or a string")
            return
        if method == types.EXIT:
            self.exit_code = 0 if self.shut_down else 1
        elif self.shut_down or (not self.initialized and method != types.INITIALIZE):
            if request:
                code, why = (
                    (INVALID_REQUEST, "the server is shut down: only exit is accepted")
                    if self.shut_down
                    else (NOT_INITIALIZED, "the server is not initialized")
                )
                self.reply_error(message_id(message), code, f"{method}: {why}")
            return
        self._pass_on(message, method if request else None)

    def _pass_on(self, message: dict[str, Any], request: str | None) -> None:
        """Structure the message as pygls would and hand it to pygls, or answer why not."""
        try:
            structured = super().structure_message(message)
        except Exception as exc:
            cause = exc.__cause__
            where = (
                cattrs.transform_error(cause)[0]
                if isinstance(cause, cattrs.BaseValidationError)
                else "params do not fit the method"
            )
            if request is None:
                log.warning("ignored %s: %s", message.get("method", "a response"), where)
                return
            known = self.get_message_type(request) is not None
            code = INVALID_PARAMS if known else INVALID_REQUEST
            self.reply_error(message_id(message), code, f"invalid params for {request}: {where}")
            return
        if request is not None:
            problem = self._position_problem(structured.params)
            if problem is not None:
                self.reply_error(message_id(message), INVALID_PARAMS, f"{request}: {problem}")
                return
            if request == types.INITIALIZE:
                self.initialized = True
            elif request == types.SHUTDOWN:
                self.shut_down = True
        super().handle_message(structured)

    def _position_problem(self, params: Any) -> str | None:
        document = getattr(params, "text_document", None)
        uri = getattr(document, "uri", None)
        if self._workspace is None or uri not in self._workspace.text_documents:
            return None
        return position_problem(params, self._workspace.text_documents[uri].source)
