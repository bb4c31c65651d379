"""The language server under a hostile client: raw JSON-RPC on its stdin, in a child process.

Each case: the answer or exit code the LSP and docs/editors.md say, no traceback on
stderr, no byte of a token on stdout or stderr, no hang (every read has a deadline), and
the server still answering afterwards where the stream allows it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from automodel_launch.lsp.framing import MAX_MESSAGE
from tests.conftest import ROOT
from tests.hostile.tokens import KINDS, Token, make

pytest.importorskip("pygls", reason="the lsp extra is not installed")

TOKENS = [make(kind, 11) for kind in KINDS]
ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("AUTOMODEL_LAUNCH_")},
    "PYTHONPATH": str(ROOT),
    "XDG_CONFIG_HOME": str(ROOT / "tests" / "lsp" / "no-config"),
}
URI = (ROOT / "examples" / "_hostile.yaml").as_uri()
TEXT = "slurm:\n  nodes: 2\n  time: 1:00:00\n"  # three lines and an empty fourth
WAIT = 20.0


class Server:
    """``automodel-launch lsp`` with a reader thread: messages parsed, bytes kept."""

    def __init__(self) -> None:
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the process)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "automodel_launch", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            env=ENV,
            cwd=ROOT,
        )
        self.raw = bytearray()
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        while chunk := os.read(self.process.stdout.fileno(), 65536):
            self.raw += chunk
            buffer += chunk
            while b"\r\n\r\n" in buffer:
                head, rest = buffer.split(b"\r\n\r\n", 1)
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.startswith(b"Content-Length:")
                )
                if len(rest) < length:
                    break
                self.messages.put(json.loads(rest[:length]))
                buffer = rest[length:]

    def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def frame(self, body: bytes) -> None:
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, method: str, params: Any = None, id: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if id is not None:
            message["id"] = id
        self.frame(json.dumps(message).encode())

    def next(self, timeout: float = WAIT) -> dict[str, Any]:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the server within {timeout} s") from None

    def answer(self, id: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The response to ``id`` (notifications on the way are skipped)."""
        while True:
            message = self.next(timeout)
            if "method" not in message and message.get("id") == id:
                return message

    def request(self, method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
        self.send(method, params, id)
        return self.answer(id)

    def error(self, method: str, params: Any = None, id: Any = 1) -> tuple[int, str]:
        response = self.request(method, params, id)
        assert "result" not in response, response
        return response["error"]["code"], response["error"]["message"]

    def initialize(self) -> None:
        assert "capabilities" in self.request("initialize", {"capabilities": {}}, 0)["result"]
        self.send("initialized", {})

    def open(self, text: str = TEXT, uri: str = URI) -> None:
        document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
        self.send("textDocument/didOpen", {"textDocument": document})

    def alive(self) -> None:
        """The server still answers a request."""
        assert self.request("textDocument/hover", hover(1, 3), id="alive")["result"] is not None

    def close(self, timeout: float = WAIT) -> int:
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the server did not stop within {timeout} s") from None
        self.reader.join(timeout)
        return code

    def stderr(self) -> str:
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace")

    def clean(self, tokens: list[Token] = TOKENS) -> str:
        """stderr, checked: no traceback, no byte of a token on either stream."""
        errors = self.stderr()
        assert "Traceback" not in errors, errors
        assert "Error:" not in errors.replace("ParseError", ""), errors
        for token in tokens:
            assert token.middle not in errors, token.kind
            assert token.middle.encode() not in self.raw, token.kind
        return errors


def hover(line: Any, character: Any, uri: str = URI) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def code_action(start: Any, end: Any, uri: str = URI) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri},
        "range": {"start": start, "end": end},
        "context": {"diagnostics": []},
    }


@pytest.fixture
def server() -> Iterator[Server]:
    started = Server()
    started.initialize()
    started.open()
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


@pytest.fixture(scope="module")
def live() -> Iterator[Server]:
    """One initialized server for the cases that leave it running."""
    started = Server()
    started.initialize()
    started.open()
    yield started
    started.request("shutdown", id="end")
    started.send("exit")
    assert started.close() == 0
    started.clean()


# ------------------------------------------------------------------ framing
def test_a_huge_content_length_then_the_end_of_input_stops_cleanly(server: Server) -> None:
    server.write(b"Content-Length: 1000000000000\r\n\r\n" + b"x" * 4096)
    assert server.close() == 1  # no shutdown: 1, as the LSP says
    errors = server.clean()
    assert errors.endswith(
        "automodel-launch lsp: WARNING: the client closed the stream in the middle of a message\n"
    )
    assert "MemoryError" not in errors


def test_a_length_of_thousands_of_digits_is_read_as_too_large(server: Server) -> None:
    server.write(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}")
    assert server.close() == 1
    server.clean()


def test_a_message_over_the_limit_is_answered_and_skipped(server: Server) -> None:
    size = MAX_MESSAGE + 1
    server.write(b"Content-Length: %d\r\n\r\n" % size)
    chunk = b" " * (1 << 20)
    for _ in range(size // len(chunk)):
        server.write(chunk)
    server.write(b" " * (size % len(chunk)))
    response = server.answer(None)
    assert response == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": f"message of {size} bytes over 64 MiB"},
    }
    server.alive()
    assert server.close() == 1
    assert server.clean().count(f"dropped a message of {size} bytes (the limit is 64 MiB)") == 1


def test_input_without_a_header_is_ignored_and_the_next_message_answered(server: Server) -> None:
    server.write(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "shutdown"}).encode())
    server.alive()
    server.write(b"garbage\r\nmore garbage\r\n\r\n")
    server.alive()
    assert server.request("shutdown", id=8) == {"jsonrpc": "2.0", "id": 8, "result": None}
    server.send("exit")
    assert server.close() == 0
    assert 7 not in [m.get("id") for m in server.messages.queue]
    errors = server.clean()
    assert errors.count("ignored input outside any message (no Content-Length header)") == 2


@pytest.mark.parametrize(
    "body",
    [b"{not json", b'{"jsonrpc": "2.0", "id": 3, "method": "\xff\xfe"}', b"[" * 100_000],
    ids=["not-json", "not-utf-8", "too-deep"],
)
def test_a_body_that_is_not_json_gets_a_parse_error(live: Server, body: bytes) -> None:
    live.frame(body)
    assert live.answer(None) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "the message is not JSON in UTF-8"},
    }
    live.alive()


@pytest.mark.parametrize(
    ("message", "id"),
    [
        ([1, 2], None),
        (42, None),
        ("hello", None),
        (None, None),
        ({"id": 4, "method": "shutdown"}, 4),  # no jsonrpc
        ({"jsonrpc": "1.0", "id": 5, "method": "shutdown"}, 5),
        ({"jsonrpc": "2.0", "id": 6, "method": 12}, 6),
        ({"jsonrpc": "2.0", "id": [6], "method": "shutdown"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "shutdown"}, None),
        ({"jsonrpc": "2.0"}, None),
    ],
)
def test_a_message_that_is_not_a_request_gets_invalid_request(
    live: Server, message: Any, id: Any
) -> None:
    live.frame(json.dumps(message).encode())
    response = live.answer(id)
    assert response["error"]["code"] == -32600
    live.alive()


def test_a_body_cut_short_then_the_end_of_input(server: Server) -> None:
    server.write(b'Content-Length: 100\r\n\r\n{"jsonrpc": "2.0", "id": 9')
    assert server.close() == 1
    assert server.answer(None)["error"]["code"] == -32700  # what it got is not JSON
    server.clean()


# ------------------------------------------------------------------ params
BAD_POSITIONS = [
    (-1, 0),
    (0, -1),
    (10**12, 0),
    (0, 10**12),
    ("1", 0),
    (1.5, 0),
    (True, 0),
    (None, 0),
    ([1], 0),
    ({"line": 1}, 0),
    (TOKENS[0].value, 0),
]


@pytest.mark.parametrize(("line", "character"), BAD_POSITIONS)
@pytest.mark.parametrize("method", ["textDocument/hover", "textDocument/completion"])
def test_an_invalid_position_gets_invalid_params(
    live: Server, method: str, line: Any, character: Any
) -> None:
    code, message = live.error(method, hover(line, character))
    assert code == -32602
    assert message.startswith(f"invalid params for {method}: ")
    assert "@ $.params.position" in message
    live.alive()


@pytest.mark.parametrize("method", ["textDocument/hover", "textDocument/completion"])
def test_a_line_past_the_end_gets_invalid_params(live: Server, method: str) -> None:
    for line in (4, 5, 2**31 - 1):
        assert live.error(method, hover(line, 0)) == (
            -32602,
            f"{method}: position line {line} is past the document's last line (3)",
        )
    # the last line, and a character past a line's end (the LSP: the end of the line)
    assert "result" in live.request(method, hover(3, 0))
    assert "result" in live.request(method, hover(1, 500))


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ((5, 0), (5, 0), "range start line 5 is past the document's last line (3)"),
        ((0, 0), (5, 0), "range end line 5 is past the document's last line (3)"),
        ((0, 0), (4, 1), "range end line 4 is past the document's last line (3)"),
        ((2, 0), (1, 0), "range ends before it starts"),
        ((1, 5), (1, 4), "range ends before it starts"),
    ],
)
def test_a_code_action_range_outside_the_document_gets_invalid_params(
    live: Server, start: tuple[int, int], end: tuple[int, int], message: str
) -> None:
    def at(where: tuple[int, int]) -> dict[str, int]:
        return {"line": where[0], "character": where[1]}

    assert live.error("textDocument/codeAction", code_action(at(start), at(end))) == (
        -32602,
        f"textDocument/codeAction: {message}",
    )
    # the whole document, to the start of the line after the last: fine
    whole = live.request("textDocument/codeAction", code_action(at((0, 0)), at((4, 0))))
    assert isinstance(whole["result"], list) and whole["result"]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("textDocument/hover", {"textDocument": {"uri": 5}, "position": {"line": 0}}),
        ("textDocument/hover", {"position": {"line": 0, "character": 0}}),
        ("textDocument/hover", 42),
        ("textDocument/hover", [URI, 0, 0]),
        ("textDocument/completion", {"textDocument": URI, "position": {}}),
        ("textDocument/codeAction", code_action({"line": -1, "character": 0}, 0)),
        ("textDocument/codeAction", {"textDocument": {"uri": URI}}),
        ("workspace/executeCommand", {"arguments": []}),
        ("initialize", {"capabilities": 5}),
        ("initialize", {"capabilities": {}, "processId": "me"}),
    ],
)
def test_params_of_the_wrong_shape_get_invalid_params(
    live: Server, method: str, params: Any
) -> None:
    code, message = live.error(method, params)
    assert (code, message.split(":")[0]) == (-32602, f"invalid params for {method}")
    live.alive()


def test_an_unknown_method_gets_method_not_found(live: Server) -> None:
    assert live.error("textDocument/nothing", {})[0] == -32601
    live.send("$/nothing", {})  # a notification: no answer
    live.alive()


def test_notifications_with_invalid_params_are_dropped(live: Server) -> None:
    token = TOKENS[0].value
    text = f"hf: {token}\nprivate: words-of-a-private-recipe\n"
    document = {"uri": URI, "languageId": "yaml", "version": "one", "text": text}
    live.send("textDocument/didOpen", {"textDocument": document})
    live.send("textDocument/didChange", {"textDocument": {"uri": URI}, "contentChanges": 5})
    live.send("workspace/didChangeConfiguration", [token])
    old = {"jsonrpc": "1.0", "method": "textDocument/didOpen", "params": {"textDocument": document}}
    live.frame(json.dumps(old).encode())  # pygls would log it whole as an unknown message
    assert live.answer(None)["error"]["code"] == -32600
    live.alive()
    errors = live.stderr()
    assert "words-of-a-private-recipe" not in errors  # pygls would log the document
    assert "ignored textDocument/didOpen: " in errors


# ------------------------------------------------------------------ lifecycle
def test_a_request_before_initialize_gets_server_not_initialized() -> None:
    server = Server()
    assert server.error("textDocument/hover", hover(0, 0)) == (
        -32002,
        "textDocument/hover: the server is not initialized",
    )
    server.initialize()
    server.open()
    server.alive()
    assert server.request("shutdown", id=2)["result"] is None
    server.send("exit")
    assert server.close() == 0
    server.clean()


def test_every_request_after_shutdown_gets_invalid_request(server: Server) -> None:
    assert server.request("shutdown", id=1) == {"jsonrpc": "2.0", "id": 1, "result": None}
    requests = [
        ("textDocument/hover", hover(1, 3)),
        ("textDocument/hover", hover(-1, 3)),  # invalid too: shutdown comes first
        ("textDocument/completion", hover(1, 3)),
        (
            "textDocument/codeAction",
            code_action({"line": 0, "character": 0}, {"line": 1, "character": 0}),
        ),
        ("shutdown", None),
        ("initialize", {"capabilities": {}}),
        ("workspace/executeCommand", {"command": "x"}),
    ]
    for number, (method, params) in enumerate(requests, 2):
        assert server.error(method, params, id=number) == (
            -32600,
            f"{method}: the server is shut down: only exit is accepted",
        )
    server.open(uri=URI + ".again.yaml")  # a notification: dropped, no diagnostics
    server.send("exit")
    assert server.close() == 0
    assert all(m.get("method") != "textDocument/publishDiagnostics" or m["params"]["uri"] == URI
               for m in server.messages.queue)  # fmt: skip
    server.clean()


def test_exit_without_shutdown_exits_1(server: Server) -> None:
    server.send("exit")
    assert server.close() == 1
    server.clean()


def test_exit_after_shutdown_exits_0(server: Server) -> None:
    server.request("shutdown", id=1)
    server.send("exit")
    assert server.close() == 0
    server.clean()


def test_the_end_of_input_without_shutdown_exits_1_and_after_it_0(server: Server) -> None:
    assert server.close() == 1
    server.clean()
    other = Server()
    other.initialize()
    other.request("shutdown", id=1)
    assert other.close() == 0
    other.clean()


# ------------------------------------------------------------------ tokens
def test_no_token_byte_leaves_the_server(server: Server) -> None:
    """Documents full of tokens, every feature asked, malformed messages quoting them."""
    lines = ["slurm:", "  nodes: 2", "  env_vars:"]
    for number, token in enumerate(TOKENS):
        name = "WANDB_API_KEY" if token.needs_key_name else f"T{number}_TOKEN"
        lines.append(f"    {name}: {json.dumps(token.value)}")
        if not token.needs_key_name:  # 40 hex alone is a commit, not a credential
            lines.append(f"    B{number}: ${{{token.value}}} ${token.value}")
    lines += [f"  hf_token: {TOKENS[0].value}", f"  {TOKENS[1].value}: 1", ""]
    text = "\n".join(lines)
    server.open(text, uri=URI + ".tokens.yaml")
    uri = URI + ".tokens.yaml"
    for line, content in enumerate(lines):
        for character in sorted({0, 4, len(content) // 2, len(content) - 3}):
            if character >= 0:
                live_hover = server.request("textDocument/hover", hover(line, character, uri), id=1)
                assert "result" in live_hover
        server.request("textDocument/completion", hover(line, len(content), uri), id=2)
    end = {"line": len(lines), "character": 0}
    actions = server.request(
        "textDocument/codeAction", code_action({"line": 0, "character": 0}, end, uri), id=3
    )
    titles = [a["title"] for a in actions["result"]]
    assert "Replace the credential with ${HF_TOKEN}" in titles
    # malformed messages that carry the tokens: pygls would log them whole
    secret = " ".join(t.value for t in TOKENS)
    server.frame(b'{"jsonrpc": "2.0", "id": 5, "method": "x", ' + secret.encode())
    server.send("textDocument/didOpen", {"textDocument": {"uri": 5, "text": secret}})
    far = {"start": {"line": 900, "character": 0}, "end": {"line": 901, "character": 0}}
    change = {"range": far, "text": secret}
    versioned = {"uri": uri, "version": 2}
    server.send("textDocument/didChange", {"textDocument": versioned, "contentChanges": [change]})
    server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": secret}, id=6)
    server.request(secret.replace(" ", "/"), {"text": secret}, id=7)
    server.send(secret.replace(" ", "/"), {"text": secret})
    server.alive()
    server.request("shutdown", id=8)
    server.send("exit")
    assert server.close() == 0
    server.clean()
