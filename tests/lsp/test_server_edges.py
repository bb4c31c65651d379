"""The server's edges in process: the output funnel, the log filter, the bounded input."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import pytest
from lsprotocol import types

from automodel_launch.lsp import framing, logs, outgoing, protocol
from tests.hostile.tokens import make

TOKEN = make("hugging-face", 1)
SECRET_VALUE = "value-of-a-secret-variable"
ENVIRON = {"MY_PASSWORD": SECRET_VALUE, "HOME": "/home/someone"}


class Sink:
    def __init__(self) -> None:
        self.data: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.data.append(data)

    def close(self) -> None:
        self.closed = True


def framed(message: Any) -> bytes:
    body = json.dumps(message).encode()
    head = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8"
    return head % len(body) + b"\r\n\r\n" + body


# ------------------------------------------------------------------ the funnel
def test_every_outgoing_string_is_cleaned_as_its_key_says() -> None:
    uri = f"file:///tmp/{TOKEN.value}.yaml"
    message = {
        "jsonrpc": "2.0",
        "id": 3,
        "result": [
            {
                "title": f"Write ${{{TOKEN.value}}}\x1b[31m\n",
                "edit": {
                    "changes": {
                        uri: [{"newText": f"a\tb\x1b {TOKEN.value} {SECRET_VALUE}\n", "range": 1}]
                    }
                },
                "diagnostics": [{"message": f"bad\x07 {SECRET_VALUE}", "data": {"hint": "x\ty"}}],
            }
        ],
        "params": {"uri": uri, "label": "\u202eevil"},
    }
    sink = Sink()
    writer = outgoing.CleanWriter(sink, ENVIRON)
    writer.write(framed(message))
    (data,) = sink.data
    head, body = data.split(b"\r\n\r\n")
    assert head == (
        b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8" % len(body)
    )
    (action,) = json.loads(body)["result"]
    assert action["title"] == "Write ${***}\\x1b[31m\n"
    assert action["edit"]["changes"] == {uri: [{"newText": "a\tb\x1b *** ***\n", "range": 1}]}
    assert action["diagnostics"] == [{"message": "bad\\x07 ***", "data": {"hint": "x\ty"}}]
    assert json.loads(body)["params"] == {"uri": uri, "label": "\\u202eevil"}
    writer.close()
    assert sink.closed


def test_a_message_without_headers_is_cleaned_whole() -> None:
    sink = Sink()
    outgoing.CleanWriter(sink, {}).write(json.dumps({"message": TOKEN.value}).encode())
    assert sink.data == [b'{"message": "***"}']


# ------------------------------------------------------------------ the log filter
def record(msg: str, *args: Any, error: BaseException | None = None) -> logging.LogRecord:
    info = (type(error), error, None) if error else None
    return logging.LogRecord("pygls.protocol", logging.ERROR, "x.py", 1, msg, args, info)


def test_a_log_record_keeps_short_names_and_drops_bodies_and_tracebacks() -> None:
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri="file:///x"),
        position=types.Position(line=0, character=0),
    )
    body = "x" * 200
    made = record("Failed to handle request %s %s %s", 7, "textDocument/hover", params)
    assert logs.SafeRecords().filter(made)
    assert made.getMessage() == "Failed to handle request 7 textDocument/hover <HoverParams>"
    made = record("Sending data: %s", body + TOKEN.value, error=ValueError(TOKEN.value))
    logs.SafeRecords().filter(made)
    assert made.getMessage() == f"Sending data: <{200 + len(TOKEN.value)} characters> (ValueError)"
    assert made.exc_info is None
    made = record("method %r", f"{TOKEN.value}\n")
    logs.SafeRecords().filter(made)
    assert made.getMessage() == "method '***\\\\n'"  # escaped, then repr'd


def test_a_json_rpc_error_keeps_its_message_and_debug_keeps_our_tracebacks() -> None:
    from pygls.exceptions import JsonRpcMethodNotFound

    made = record("Failed", error=JsonRpcMethodNotFound.of("x/y"))
    logs.SafeRecords().filter(made)
    assert made.getMessage() == "Failed (JsonRpcMethodNotFound: Method Not Found: x/y)"
    ours = record("oops", error=KeyError("k"))
    ours.name = "automodel_launch.lsp.server"
    logs.SafeRecords(debug=True).filter(ours)
    assert ours.exc_info is not None and ours.getMessage() == "oops (KeyError)"
    theirs = record("oops", error=KeyError("k"))
    logs.SafeRecords(debug=True).filter(theirs)
    assert theirs.exc_info is None


def test_install_writes_one_clean_line_a_record() -> None:
    stream = io.StringIO()
    handler = logs.install(stream)
    try:
        logging.getLogger("pygls.server").error("Unknown message %s", {"text": TOKEN.value})
        logging.getLogger("pygls.server").info("not shown")
    finally:
        logging.getLogger().removeHandler(handler)
    assert stream.getvalue() == "automodel-launch lsp: ERROR: Unknown message <dict>\n"


# ------------------------------------------------------------------ the bounded input
def test_the_input_drops_an_oversized_body_and_reads_on(caplog: pytest.LogCaptureFixture) -> None:
    raw = io.BufferedReader(io.BytesIO(b"a" * 100 + b"Content-Length: 2\r\n\r\n{}"))  # type: ignore[arg-type]
    source = framing.BoundedInput(raw, limit=50)
    assert (
        source.read(100) == framing.oversized(100) == b'{"automodel-launch/oversized-message": 100}'
    )
    assert source.readline() == b"Content-Length: 2\r\n"
    assert source.readline() == b"\r\n"
    assert source.read(2) == b"{}"
    assert source.readline() == b""
    assert "dropped a message of 100 bytes (the limit is 0 MiB)" in caplog.text


def test_the_input_splits_a_header_off_garbage_and_bounds_lines() -> None:
    data = b"junk{}Content-Length: 2\r\n\r\n{}" + b"Content-Length: " + b"9" * 30 + b"\r\n"
    source = framing.BoundedInput(io.BufferedReader(io.BytesIO(data)), line=8)  # type: ignore[arg-type]
    assert source.readline() == b"junk{}Co"  # at most 8 bytes a line
    assert source.readline() == b"ntent-Le"
    source = framing.BoundedInput(io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]
    assert source.readline() == b"junk{}"
    assert source.readline() == b"Content-Length: 2\r\n"
    assert source.readline() == b"\r\n"
    assert source.read(2) == b"{}"
    assert source.readline() == b"Content-Length: 1000000000000000000\r\n"


def test_the_input_ends_inside_a_dropped_body() -> None:
    source = framing.BoundedInput(io.BufferedReader(io.BytesIO(b"abc")), limit=2)  # type: ignore[arg-type]
    assert source.read(10) == b""


# ------------------------------------------------------------------ positions
@pytest.mark.parametrize(
    ("text", "position", "problem"),
    [
        ("a\nb", (1, 0), None),
        ("a\nb", (1, 99), None),
        ("a\nb", (2, 0), "position line 2 is past the document's last line (1)"),
        ("a\r\nb\rc\n", (3, 0), None),
        ("a\r\nb\rc\n", (4, 0), "position line 4 is past the document's last line (3)"),
        ("", (0, 0), None),
    ],
)
def test_a_position_past_the_last_line_is_a_problem(
    text: str, position: tuple[int, int], problem: str | None
) -> None:
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri="file:///x"),
        position=types.Position(line=position[0], character=position[1]),
    )
    assert protocol.position_problem(params, text) == problem


def test_strict_integers_and_booleans() -> None:
    convert = protocol.converter()
    assert convert.structure({"line": 1, "character": 2}, types.Position).line == 1
    for bad in ("1", 1.0, True, None):
        with pytest.raises(Exception, match="Position"):
            convert.structure({"line": bad, "character": 2}, types.Position)
    with pytest.raises(Exception, match="ClientCapabilities"):
        convert.structure({"workspace": {"applyEdit": 1}}, types.ClientCapabilities)
