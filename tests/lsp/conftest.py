"""A real LSP client (pytest-lsp) driving ``automodel-launch lsp`` over stdio."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

SERVER_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("AUTOMODEL_LAUNCH_")},
    "PYTHONPATH": str(ROOT),
    "XDG_CONFIG_HOME": str(ROOT / "tests" / "lsp" / "no-config"),
    "AUTOMODEL_LAUNCH_DEBUG": "1",
}
SERVER = [sys.executable, "-m", "automodel_launch", "lsp"]


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=SERVER, server_env=SERVER_ENV),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    params = types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


@dataclass
class Editor:
    """Open documents and wait for the server's answers."""

    client: LanguageClient
    count: int = 0

    def uri(self, name: str | None = None) -> str:
        self.count += 1
        return (ROOT / "examples" / (name or f"_lsp_{self.count}.yaml")).as_uri()

    async def open(self, text: str, name: str | None = None, language: str = "yaml") -> str:
        uri = self.uri(name)
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language, version=1, text=text
                )
            )
        )
        return uri

    async def diagnostics(self, uri: str, timeout: float = 10) -> list[types.Diagnostic]:
        deadline = asyncio.get_running_loop().time() + timeout
        while uri not in self.client.diagnostics:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no diagnostics published for {uri}")
            await asyncio.sleep(0.005)
        return list(self.client.diagnostics[uri])

    async def change(self, uri: str, version: int, text: str) -> None:
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )


def key(d: types.Diagnostic) -> dict[str, Any]:
    """An LSP diagnostic in the shape of ``validate --format json`` (1-based, hint)."""
    hint = d.related_information[0].message if d.related_information else None
    return {
        "severity": "error" if d.severity == types.DiagnosticSeverity.Error else "warning",
        "code": d.code,
        "path": d.data["path"] if isinstance(d.data, dict) else None,
        "line": d.range.start.line + 1,
        "column": d.range.start.character + 1,
        "message": d.message,
        "hint": hint,
    }
