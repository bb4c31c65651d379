"""The pygls server: documents in, validate's diagnostics out, and the editor features.

Validation runs on the event loop, throttled per document: an edit after a quiet spell
is checked at once (the next loop turn, after the edits already received), edits that
follow within ``debounce_ms`` of a check are coalesced into one check of the latest
text. Every handler catches everything: bad input is a diagnostic or nothing, and the
server keeps serving.

What the protocol promises (an answer to every request, bounded messages, the exit
code) is kept by :mod:`automodel_launch.lsp.protocol` and
:mod:`automodel_launch.lsp.framing`; what reaches the editor is cleaned by
:mod:`automodel_launch.lsp.outgoing`, what reaches stderr by :mod:`automodel_launch.lsp.logs`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TypeVar, cast
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException
from pygls.lsp.server import LanguageServer

from automodel_launch.lsp import complete, convert, fixes, hover, logs, options, recipes
from automodel_launch.lsp.framing import BoundedInput
from automodel_launch.lsp.protocol import PARSE_ERROR, RecipeProtocol, converter
from automodel_launch.lsp.text import Lines
from automodel_launch.version import __version__

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Document:
    uri: str
    language_id: str | None
    timer: asyncio.Handle | None = None
    last_run: float = field(default=-1e9)


class RecipeServer(LanguageServer):
    protocol: RecipeProtocol

    def __init__(self) -> None:
        super().__init__(
            "automodel-launch",
            __version__,
            protocol_cls=RecipeProtocol,
            converter_factory=converter,
        )
        self.options = options.Options()
        self.documents: dict[str, Document] = {}

    # ------------------------------------------------------------------ state
    def lines(self, uri: str) -> Lines | None:
        """The open document's text, or None for a document that is not an open recipe."""
        state = self.documents.get(uri)
        if state is None or not recipes.is_yaml(uri, state.language_id):
            return None
        text = self.workspace.get_text_document(uri).source
        if not recipes.is_recipe(text):
            return None
        return Lines(text, self.workspace.position_encoding)

    def configure(self, raw: Any) -> None:
        self.options = options.parse(raw)
        for problem in self.options.problems:
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"automodel-launch: {problem}"
                )
            )
        for uri in self.documents:
            self.schedule(uri)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls' report of an error it logged already (one line, see :mod:`.logs`).

        A body its read loop could not parse (``json.loads`` failed: the protocol
        answers everything after it) is answered with a parse error, id ``null``. A
        request's error was answered already. Never pygls' message box, whose text
        would quote the error."""
        if source is JsonRpcException:
            self.protocol.reply_error(None, PARSE_ERROR, "the message is not JSON in UTF-8")
        elif source is FeatureNotificationError:
            log.warning("a notification failed (%s)", logs.describe(error))

    # ------------------------------------------------------------------ diagnostics
    def schedule(self, uri: str) -> None:
        state = self.documents.get(uri)
        if state is None or state.timer is not None:
            return  # a pending check reads the latest text
        wait = state.last_run + self.options.debounce_ms / 1000 - time.monotonic()
        loop = asyncio.get_running_loop()
        state.timer = loop.call_later(max(wait, 0), self.check, uri)

    def check(self, uri: str) -> None:
        state = self.documents.get(uri)
        if state is None:
            return
        state.timer = None
        state.last_run = time.monotonic()
        version = self.workspace.get_text_document(uri).version
        found: list[types.Diagnostic] = guarded(lambda: self.diagnostics(uri), [])
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )

    def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        from automodel_launch.validation import validate_text

        lines = self.lines(uri)
        if lines is None:
            return []
        settings = self.options.settings
        report = validate_text(lines.text, path_of(uri), settings)
        return convert.to_lsp_all(report.diagnostics, lines, uri, strict=settings.strict)


def path_of(uri: str) -> str:
    """What validate would call the file: its path for a ``file:`` URI, else the URI."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def guarded(call: Callable[[], T], fallback: T) -> T:
    """Whatever goes wrong answers ``fallback`` and is logged: the server never stops."""
    try:
        return call()
    except Exception:
        log.exception("automodel-launch language server: unexpected error")
        return fallback


server = RecipeServer()


@server.feature(types.INITIALIZE)
def initialize(ls: RecipeServer, params: types.InitializeParams) -> None:
    guarded(lambda: ls.configure(params.initialization_options), None)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: RecipeServer, params: types.DidChangeConfigurationParams) -> None:
    guarded(lambda: ls.configure(params.settings), None)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RecipeServer, params: types.DidOpenTextDocumentParams) -> None:
    document = params.text_document
    ls.documents[document.uri] = Document(document.uri, document.language_id)
    guarded(lambda: ls.schedule(document.uri), None)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RecipeServer, params: types.DidChangeTextDocumentParams) -> None:
    guarded(lambda: ls.schedule(params.text_document.uri), None)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RecipeServer, params: types.DidSaveTextDocumentParams) -> None:
    guarded(lambda: ls.schedule(params.text_document.uri), None)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RecipeServer, params: types.DidCloseTextDocumentParams) -> None:
    state = ls.documents.pop(params.text_document.uri, None)
    if state is not None and state.timer is not None:
        state.timer.cancel()
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: RecipeServer, params: types.HoverParams) -> types.Hover | None:
    def answer() -> types.Hover | None:
        lines = ls.lines(params.text_document.uri)
        if lines is None:
            return None
        column = lines.column(params.position)
        text = hover.hover(lines, params.position.line, column, os.environ)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    return guarded(answer, None)


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION,
    types.CompletionOptions(trigger_characters=complete.TRIGGERS),
)
def on_completion(ls: RecipeServer, params: types.CompletionParams) -> types.CompletionList:
    def answer() -> list[types.CompletionItem]:
        lines = ls.lines(params.text_document.uri)
        if lines is None or params.position.line >= len(lines.lines):
            return []  # past the last line: an edit there would be out of the document
        column = lines.column(params.position)
        return complete.complete(lines, params.position.line, column, os.environ)

    return types.CompletionList(is_incomplete=False, items=guarded(answer, []))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def on_code_action(ls: RecipeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return guarded(lambda: code_actions(ls, params), [])


def code_actions(ls: RecipeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    from automodel_launch.loading import load_buffer
    from automodel_launch.validation import validate_result

    uri = params.text_document.uri
    lines = ls.lines(uri)
    if lines is None:
        return []
    settings = ls.options.settings
    result = load_buffer(lines.text, path_of(uri))
    report = validate_result(result, path_of(uri), settings)
    source = fixes.Source(lines, result.loaded, settings)
    first = params.range.start.line
    last = params.range.end.line
    actions = []
    offered: set[tuple[fixes.Edit, ...]] = set()
    for diagnostic in report.diagnostics:
        line, _, _ = convert.span(diagnostic, lines)
        if not first <= line <= last:
            continue
        found = fixes.fix(diagnostic, source)
        if found is None or found.edits in offered:
            continue  # two diagnostics of one value ($A $B) share one fix
        offered.add(found.edits)
        edits = [
            types.TextEdit(
                range=types.Range(start=lines.position(a, b), end=lines.position(c, d)),
                new_text=text,
            )
            for a, b, c, d, text in found.edits
        ]
        actions.append(
            types.CodeAction(
                title=found.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[convert.to_lsp(diagnostic, lines, uri, strict=settings.strict)],
                is_preferred=True,
                edit=types.WorkspaceEdit(changes={uri: edits}),
            )
        )
    return actions


def serve() -> int:
    """Speak LSP over stdin/stdout until the client says exit; return the exit code.

    0 after ``shutdown`` then ``exit`` (or the end of the input), 1 when the server
    stops without ``shutdown``, as the LSP says. The protocol gets its own copies of
    the two descriptors (pygls closes them at exit, and the command still flushes its
    streams); a stray print goes to stderr, never into the protocol stream.
    """
    import sys

    logs.install(sys.stderr)
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    sys.stdout = sys.stderr
    server.start_io(cast(BinaryIO, BoundedInput(stdin)), stdout)
    protocol = server.protocol
    if protocol.exit_code is not None:
        return protocol.exit_code
    return 0 if protocol.shut_down else 1
