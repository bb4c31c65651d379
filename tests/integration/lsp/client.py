"""A small synchronous stdio LSP client for driving yaml-language-server in tests.

Only the standard library is used.  Messages are JSON-RPC 2.0 with
``Content-Length`` framing.  A reader thread dispatches everything the server
sends; a second thread drains stderr so its pipe can never fill up and block
the server.  Every wait is bounded, so a misbehaving server fails a test
instead of hanging it.

Behaviour of yaml-language-server (1.x) this client accounts for:

* Settings are *pulled*: the server asks ``workspace/configuration`` for the
  ``yaml``, ``http``, ``[yaml]`` and ``editor`` sections (and again per
  document before validating it).  Whatever ``didChangeConfiguration`` carries
  is ignored, so the client has to answer those requests.
* A completion request sent before the document's first
  ``textDocument/publishDiagnostics`` can come back empty, because the schema
  association is not in place yet.  ``completion`` and ``hover`` therefore
  wait for that first publication.
* Validation is debounced (about 200 ms) and a document may be published more
  than once, so ``diagnostics`` keeps listening for a short settle period and
  returns the latest list.

Usage::

    settings = yaml_settings({schema_uri: "*.yaml"})
    with YamlLanguageServer(server_command(), settings) as ls:
        ls.open(uri, text)
        ls.diagnostics(uri)
        ls.completion(uri, line, character)
        ls.hover(uri, line, character)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

JSON = Any
HERE = Path(__file__).resolve().parent
SERVER_JS = HERE / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"

# Methods the server may call on the client that need nothing but a null result.
_NULL_REQUESTS = frozenset(
    {
        "client/registerCapability",
        "client/unregisterCapability",
        "window/workDoneProgress/create",
        "window/showMessageRequest",
        "workspace/diagnostic/refresh",
        "workspace/codeLens/refresh",
        "workspace/semanticTokens/refresh",
        "workspace/inlayHint/refresh",
    }
)


class LspError(RuntimeError):
    """The server answered with an error, exited, or broke the protocol."""


class LspTimeout(LspError):
    """A bounded wait ran out."""


def server_command(node: str | None = None) -> list[str]:
    """Command line for the yaml-language-server installed next to this file."""
    node = node or shutil.which("node") or "node"
    return [node, str(SERVER_JS), "--stdio"]


def yaml_settings(
    schemas: Mapping[str, str | list[str]] | None = None, **extra: JSON
) -> dict[str, JSON]:
    """Settings answered on ``workspace/configuration``, keyed by section.

    ``schemas`` maps a schema (file URI or absolute path) to one glob or a list
    of globs.  The schema store is off so nothing is fetched from the network.
    """
    yaml: dict[str, JSON] = {
        "schemas": dict(schemas or {}),
        "validate": True,
        "completion": True,
        "hover": True,
        "schemaStore": {"enable": False},
        "format": {"enable": False},
    }
    yaml.update(extra)
    return {"yaml": yaml}


def _deep_get(settings: Mapping[str, JSON], section: str | None) -> JSON:
    if not section:
        return dict(settings)
    if section in settings:
        return settings[section]
    node: JSON = settings
    for part in section.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _hover_text(result: JSON) -> str:
    if not result:
        return ""
    contents = result.get("contents")
    if isinstance(contents, str):
        return contents
    if isinstance(contents, dict):
        return str(contents.get("value", ""))
    if isinstance(contents, list):
        return "\n".join(c if isinstance(c, str) else str(c.get("value", "")) for c in contents)
    return ""


class YamlLanguageServer:
    """Synchronous client for one yaml-language-server process (stdio)."""

    def __init__(
        self,
        server_cmd: list[str],
        settings: Mapping[str, JSON],
        *,
        root: Path | None = None,
        timeout: float = 15.0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.server_cmd = list(server_cmd)
        self.settings = settings
        self.root = (root or Path.cwd()).resolve()
        self.timeout = timeout
        self.env = dict(env) if env is not None else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.startup_seconds: float | None = None
        self.server_info: JSON = None
        self.stderr_tail: deque[str] = deque(maxlen=100)
        self.server_requests: list[str] = []
        self._cv = threading.Condition()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._responses: dict[int, dict[str, JSON]] = {}
        self._notifications: list[dict[str, JSON]] = []
        self._opened_at: dict[str, int] = {}  # uri -> notification index at didOpen
        self._versions: dict[str, int] = {}
        self._config_pulled = False
        self._eof = False
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------ lifecycle
    def __enter__(self) -> YamlLanguageServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self) -> None:
        """Spawn the server, run initialize/initialized and wait for the settings pull."""
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            self.server_cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(self.root),
            env=self.env,
            bufsize=0,
        )
        for target in (self._read_stdout, self._read_stderr):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        try:
            root_uri = self.root.as_uri()
            result = self.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "clientInfo": {"name": "automodel-launch-tests"},
                    "rootUri": root_uri,
                    "workspaceFolders": [{"uri": root_uri, "name": self.root.name}],
                    "capabilities": {
                        "workspace": {"configuration": True, "workspaceFolders": True},
                        "textDocument": {
                            "completion": {
                                "completionItem": {
                                    "snippetSupport": True,
                                    "documentationFormat": ["markdown", "plaintext"],
                                }
                            },
                            "hover": {"contentFormat": ["markdown", "plaintext"]},
                            "publishDiagnostics": {"relatedInformation": True},
                        },
                    },
                },
            )
            self.server_info = (result or {}).get("serverInfo")
            self.notify("initialized", {})
            # Ignored by the server (it pulls instead) but harmless; sent so a
            # server that does honour pushed settings gets them too.
            self.notify("workspace/didChangeConfiguration", {"settings": dict(self.settings)})
            self._wait_for(
                lambda: self._config_pulled, self.timeout, "workspace/configuration pull"
            )
        except BaseException:
            self.close()
            raise
        self.startup_seconds = time.monotonic() - t0

    def close(self, timeout: float = 3.0) -> int | None:
        """shutdown + exit, wait; then terminate and, last, kill this process only."""
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            graceful = True
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit")
            except (LspError, OSError):
                graceful = False
            try:
                proc.wait(timeout if graceful else 0.2)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(2.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(2.0)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        for thread in self._threads:
            thread.join(1.0)
        return proc.returncode

    # ------------------------------------------------------------ transport
    def _write(self, msg: dict[str, JSON]) -> None:
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        frame = b"Content-Length: %d\r\n\r\n" % len(body) + body
        proc = self.proc
        if proc is None or proc.stdin is None or proc.poll() is not None:
            raise LspError(f"server is not running; stderr: {self._stderr()}")
        with self._write_lock:
            proc.stdin.write(frame)
            proc.stdin.flush()

    def _read_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out: IO[bytes] = self.proc.stdout
        try:
            while True:
                length = -1
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length < 0:
                    continue
                body = b""
                while len(body) < length:
                    chunk = out.read(length - len(body))
                    if not chunk:
                        return
                    body += chunk
                self._dispatch(json.loads(body.decode("utf-8")))
        except (OSError, ValueError):
            return
        finally:
            with self._cv:
                self._eof = True
                self._cv.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        try:
            for raw in iter(self.proc.stderr.readline, b""):
                self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):
            return

    def _stderr(self) -> str:
        return " | ".join(list(self.stderr_tail)[-10:])

    def _dispatch(self, msg: dict[str, JSON]) -> None:
        method = msg.get("method")
        if method is not None and "id" in msg:
            self.server_requests.append(str(method))
            try:
                reply: dict[str, JSON] = {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": self._answer(str(method), msg.get("params")),
                }
            except KeyError:
                reply = {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32601, "message": f"unsupported: {method}"},
                }
            with contextlib.suppress(LspError, OSError):
                self._write(reply)
        elif method is not None:
            with self._cv:
                self._notifications.append(msg)
                self._cv.notify_all()
        elif "id" in msg:
            with self._cv:
                self._responses[int(msg["id"])] = msg
                self._cv.notify_all()

    def _answer(self, method: str, params: JSON) -> JSON:
        if method == "workspace/configuration":
            items = (params or {}).get("items", [])
            result = [_deep_get(self.settings, item.get("section")) for item in items]
            if any(item.get("section") == "yaml" for item in items):
                with self._cv:
                    self._config_pulled = True
                    self._cv.notify_all()
            return result
        if method == "workspace/workspaceFolders":
            return [{"uri": self.root.as_uri(), "name": self.root.name}]
        if method in _NULL_REQUESTS:
            return None
        raise KeyError(method)

    def _wait_for(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self._cv:
            while not ready():
                left = deadline - time.monotonic()
                if self._eof:
                    raise LspError(
                        f"server exited while waiting for {what}; stderr: {self._stderr()}"
                    )
                if left <= 0:
                    raise LspTimeout(f"no {what} within {timeout:.1f}s")
                self._cv.wait(left)

    # ------------------------------------------------------------ raw API
    def notify(self, method: str, params: JSON = None) -> None:
        msg: dict[str, JSON] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._write(msg)

    def request(self, method: str, params: JSON = None, timeout: float | None = None) -> JSON:
        """Send a request and return its result (bounded by ``timeout``)."""
        timeout = self.timeout if timeout is None else timeout
        with self._cv:
            self._next_id += 1
            rid = self._next_id
        msg: dict[str, JSON] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._write(msg)
        try:
            self._wait_for(lambda: rid in self._responses, timeout, f"response to {method}")
        except LspTimeout:
            with contextlib.suppress(LspError, OSError):
                self.notify("$/cancelRequest", {"id": rid})
            raise
        with self._cv:
            resp = self._responses.pop(rid)
        if "error" in resp:
            err = resp["error"]
            raise LspError(f"{method}: {err.get('code')} {err.get('message')}")
        return resp.get("result")

    # ------------------------------------------------------------ documents
    def open(self, uri: str, text: str, language_id: str = "yaml") -> None:
        """textDocument/didOpen.  Re-opening a URI replaces the document."""
        with self._cv:
            version = self._versions.get(uri, 0) + 1
            self._versions[uri] = version
            self._opened_at[uri] = len(self._notifications)
        if version > 1:
            # didClose makes the server publish an empty list for the URI; let
            # it arrive before the new mark so it is not taken for the result.
            self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            with contextlib.suppress(LspTimeout):
                self._wait_for(lambda: [] in self._published(uri), 2.0, "diagnostics clear")
            with self._cv:
                self._opened_at[uri] = len(self._notifications)
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": language_id,
                    "version": version,
                    "text": text,
                }
            },
        )

    def _published(self, uri: str) -> list[list[dict[str, JSON]]]:
        """Diagnostics lists published for ``uri`` since it was (re)opened (hold ``_cv``)."""
        start = self._opened_at.get(uri, 0)
        return [
            n["params"]["diagnostics"]
            for n in self._notifications[start:]
            if n.get("method") == "textDocument/publishDiagnostics"
            and n["params"].get("uri") == uri
        ]

    def diagnostics(
        self, uri: str, timeout: float | None = None, settle: float = 0.4
    ) -> list[dict[str, JSON]]:
        """Latest diagnostics for ``uri`` since it was opened.

        Waits (bounded) for the first ``publishDiagnostics``, then keeps
        listening ``settle`` seconds for a re-publication (the server may
        publish an empty list before the schema is applied) and returns the
        newest list.
        """
        timeout = self.timeout if timeout is None else timeout
        if uri not in self._opened_at:
            raise LspError(f"{uri} was never opened")
        self._wait_for(lambda: bool(self._published(uri)), timeout, f"publishDiagnostics for {uri}")
        end = time.monotonic() + settle
        with self._cv:
            count = len(self._published(uri))
            while not self._eof:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(left)
                now = len(self._published(uri))
                if now != count:  # a newer publication: settle again from here
                    count = now
                    end = time.monotonic() + settle
            return list(self._published(uri)[-1])

    def _ensure_validated(self, uri: str, timeout: float | None) -> None:
        timeout = self.timeout if timeout is None else timeout
        self._wait_for(lambda: bool(self._published(uri)), timeout, f"publishDiagnostics for {uri}")

    def completion_items(
        self, uri: str, line: int, character: int, timeout: float | None = None
    ) -> list[dict[str, JSON]]:
        """Raw CompletionItems at a 0-based position."""
        self._ensure_validated(uri, timeout)
        result = self.request(
            "textDocument/completion",
            {
                "textDocument": {"uri": uri},
                "position": {"line": line, "character": character},
                "context": {"triggerKind": 1},
            },
            timeout,
        )
        if isinstance(result, dict):
            result = result.get("items", [])
        return list(result or [])

    def completion(
        self, uri: str, line: int, character: int, timeout: float | None = None
    ) -> list[str]:
        """Labels offered at a 0-based position."""
        return [
            str(item.get("label")) for item in self.completion_items(uri, line, character, timeout)
        ]

    def hover(self, uri: str, line: int, character: int, timeout: float | None = None) -> str:
        """Hover contents (markdown or plain text) at a 0-based position; "" if none."""
        self._ensure_validated(uri, timeout)
        result = self.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
            timeout,
        )
        return _hover_text(result)
